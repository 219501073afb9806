import EmulatorCore
import Testing

@testable import EmulatorStore

/// A read that may not wait (`waitForLock: false`, an event loop answering inline) throws
/// `StoreBusy` while another thread holds its database, changing nothing, and reads as usual
/// otherwise.
@Suite struct StoreBusyTests {
    @Test func aReadThatMayNotWaitThrowsStoreBusyWhileTheDatabaseIsHeld() throws {
        let (s, _) = try makeStore()
        try set(s, "c/d", ["a": .integer(1)])
        let free = try s.getDocument(project: "p", database: "(default)", path: "c/d", caller: .admin, waitForLock: false)
        #expect(free.value.fields == ["a": .integer(1)])
        let held = s.box("p", "(default)").data.withLock { _ in
            Result { try s.getDocument(project: "p", database: "(default)", path: "c/d", caller: .admin, waitForLock: false) }
        }
        #expect(throws: StoreBusy.self) { try held.get() }
        // Another database of the project is not held.
        try set(s, "c/d", ["a": .integer(1)])
        let other = s.box("p", "(default)").data.withLock { _ in
            Result { try s.getDocument(project: "p", database: "other", path: "c/d", caller: .admin, waitForLock: false) }
        }
        #expect(throws: EmulatorError.self) { try other.get() }  // not found there, but answered
    }
}
