import EmulatorCore
import Testing

@testable import Emulator

/// A participant whose data is a counter per project.
final class CounterParticipant: ProjectStateParticipant {
    let counts = Mutex<[String: Int]>([:])
    var participantName: String { "counter" }
    func bump(_ p: String) { counts.withLock { $0[p, default: 0] += 1 } }
    func value(_ p: String) -> Int { counts.withLock { $0[p] ?? 0 } }
    func resetProject(_ p: String) { counts.withLock { $0[p] = nil } }
    func resetAll() { counts.withLock { $0 = [:] } }
    func captureProject(_ p: String) -> any Sendable { value(p) }
    func restoreProject(_ p: String, from snapshot: any Sendable) throws {
        guard let v = snapshot as? Int else { throw EmulatorError.internal("not a counter snapshot") }
        counts.withLock { $0[p] = v }
    }
}

@Suite struct SnapshotStoreTests {
    @Test func savesRestoresListsAndDeletes() throws {
        let c = CounterParticipant()
        let store = SnapshotStore()
        c.bump("p")
        c.bump("p")
        try store.save(name: "two", projectId: "p", participants: [c], at: Timestamp(seconds: 1), seed: nil)
        c.bump("p")
        #expect(c.value("p") == 3)
        try store.restore(name: "two", projectId: "p", participants: [c])
        #expect(c.value("p") == 2)
        #expect(store.list(projectId: "p").map(\.name) == ["two"])
        #expect(throws: EmulatorError.self) { try store.restore(name: "nope", projectId: "p", participants: [c]) }
        #expect(store.delete(name: "two", projectId: "p"))
        #expect(!store.delete(name: "two", projectId: "p"))
    }

    /// A snapshot pins every version it captured, so their number is bounded per project; saving
    /// under a name the project already has replaces it and is always allowed.
    @Test func snapshotsPerProjectAreLimited() throws {
        let c = CounterParticipant()
        let store = SnapshotStore(maxPerProject: 2)
        try store.save(name: "a", projectId: "p", participants: [c], at: Timestamp(seconds: 1), seed: nil)
        try store.save(name: "b", projectId: "p", participants: [c], at: Timestamp(seconds: 1), seed: nil)
        do {
            try store.save(name: "c", projectId: "p", participants: [c], at: Timestamp(seconds: 1), seed: nil)
            Issue.record("a snapshot past the limit was saved")
        } catch let e as EmulatorError {
            #expect(e.code == .resourceExhausted && e.message.contains("keeps 2 snapshots") && e.message.contains("DELETE"))
        }
        try store.save(name: "b", projectId: "p", participants: [c], at: Timestamp(seconds: 2), seed: nil)
        try store.save(name: "a", projectId: "q", participants: [c], at: Timestamp(seconds: 1), seed: nil)
        #expect(store.delete(name: "a", projectId: "p"))
        try store.save(name: "c", projectId: "p", participants: [c], at: Timestamp(seconds: 3), seed: nil)
        #expect(store.list(projectId: "p").map(\.name) == ["b", "c"])
    }

    @Test func snapshotNamesAreValidated() throws {
        #expect(throws: EmulatorError.self) { try ControlPlane.snapshotName("../x") }
        #expect(throws: EmulatorError.self) { try ControlPlane.snapshotName("") }
        #expect(throws: EmulatorError.self) { try ControlPlane.snapshotName("..") }
        #expect(try ControlPlane.snapshotName("before-login_1.0") == "before-login_1.0")
    }
}
