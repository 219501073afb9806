import EmulatorCore
import Testing

@testable import EmulatorStore

@Suite struct TransactionTests {
    @Test func blindWriteDuringTransactionAbortsItsCommit() throws {
        let (s, _) = try makeStore()
        try set(s, "c/d", ["v": .integer(1)])
        let t = try s.beginTransaction(project: "p", database: "(default)", readOnly: false)
        _ = try s.getDocument(project: "p", database: "(default)", path: "c/d", consistency: .transaction(t), caller: .admin)
        try set(s, "c/d", ["v": .integer(5)])
        do {
            _ = try s.commit(
                project: "p", database: "(default)", writes: [StoreWrite(path: "c/d", operation: .update(["v": .integer(2)]))], transaction: t,
                caller: .admin)
            Issue.record("commit succeeded")
        } catch let e as EmulatorError {
            #expect(e.code == .aborted)
            #expect(e.message.contains("projects/p/databases/(default)/documents/c/d"))
        }
    }

    @Test func readOfAMissingDocumentIsProtectedToo() throws {
        let (s, _) = try makeStore()
        let t = try s.beginTransaction(project: "p", database: "(default)", readOnly: false)
        #expect(throws: EmulatorError.self) {
            try s.getDocument(project: "p", database: "(default)", path: "c/new", consistency: .transaction(t), caller: .admin)
        }
        try set(s, "c/new", [:])
        #expect(throws: EmulatorError.self) { try s.commit(project: "p", database: "(default)", writes: [], transaction: t, caller: .admin) }
    }

    @Test func queryResultsInATransactionDetectPhantoms() throws {
        let (s, _) = try makeStore()
        let t = try s.beginTransaction(project: "p", database: "(default)", readOnly: false)
        _ = try s.runQuery(
            project: "p", database: "(default)", parent: "", query: StructuredQuery(json: ["from": [["collectionId": "c"]]]),
            consistency: .transaction(t), caller: .admin)
        try set(s, "c/phantom", [:])
        #expect(throws: EmulatorError.self) { try s.commit(project: "p", database: "(default)", writes: [], transaction: t, caller: .admin) }
    }

    @Test func unknownFinishedAndExpiredIds() throws {
        let (s, env) = try makeStore()
        #expect(throws: EmulatorError.invalidArgument("Transaction is invalid or expired.")) {
            try s.commit(project: "p", database: "(default)", writes: [], transaction: [1, 2, 3], caller: .admin)
        }
        let t = try s.beginTransaction(project: "p", database: "(default)", readOnly: false)
        _ = try s.commit(project: "p", database: "(default)", writes: [], transaction: t, caller: .admin)
        #expect(throws: EmulatorError.self) { try s.commit(project: "p", database: "(default)", writes: [], transaction: t, caller: .admin) }
        let idle = try s.beginTransaction(project: "p", database: "(default)", readOnly: false)
        try env.clock.advance(seconds: 61)
        #expect(throws: EmulatorError.aborted("The referenced transaction has expired or is no longer valid.")) {
            try s.commit(project: "p", database: "(default)", writes: [], transaction: idle, caller: .admin)
        }
    }

    @Test func readOnlyTransactionsReadASnapshotAndCannotWrite() throws {
        let (s, env) = try makeStore()
        try set(s, "c/d", ["v": .integer(1)])
        try env.clock.advance(seconds: 1)
        let t = try s.beginTransaction(project: "p", database: "(default)", readOnly: true)
        try env.clock.advance(seconds: 1)
        try set(s, "c/d", ["v": .integer(2)])
        #expect(
            try s.getDocument(project: "p", database: "(default)", path: "c/d", consistency: .transaction(t), caller: .admin).value.fields["v"]
                == .integer(1))
        #expect(throws: EmulatorError.invalidArgument("Cannot modify entities in a read-only transaction.")) {
            try s.commit(project: "p", database: "(default)", writes: [StoreWrite(path: "c/d", operation: .delete)], transaction: t, caller: .admin)
        }
    }

    /// N tasks run read-increment-write transactions with retry on ABORTED; none is lost.
    @Test func concurrentIncrementsLoseNoUpdate() async throws {
        let (s, _) = try makeStore()
        try set(s, "counters/c", ["n": .integer(0)])
        let commits = Counter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<25 {
                        while true {
                            let t = try s.beginTransaction(project: "p", database: "(default)", readOnly: false)
                            let doc = try s.getDocument(
                                project: "p", database: "(default)", path: "counters/c", consistency: .transaction(t), caller: .admin
                            ).value
                            guard case .integer(let n)? = doc.fields["n"] else {
                                Issue.record("bad counter")
                                return
                            }
                            await Task.yield()
                            do {
                                _ = try s.commit(
                                    project: "p", database: "(default)",
                                    writes: [StoreWrite(path: "counters/c", operation: .update(["n": .integer(n + 1)]))], transaction: t,
                                    caller: .admin)
                                commits.add()
                                break
                            } catch let e as EmulatorError where e.code == .aborted {
                                continue
                            }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let final = try s.getDocument(project: "p", database: "(default)", path: "counters/c", caller: .admin).value.fields["n"]
        #expect(final == .integer(Int64(commits.value)))
        #expect(final == .integer(200))
    }
}

/// A thread-safe counter for concurrency tests.
final class Counter: Sendable {
    private let n = Mutex(0)
    func add() { n.withLock { $0 += 1 } }
    var value: Int { n.withLock { $0 } }
}

/// The idle expiry is added to the project clock: an unbounded value once trapped there.
@Test func transactionIdleSecondsIsBounded() throws {
    #expect(try StoreOptions(json: ["transactionIdleSeconds": 31_536_000]).transactionIdleSeconds == 31_536_000)
    for bad: JSON in [0, -1, 31_536_001, 1e300, "60"] {
        #expect(throws: EmulatorError.self) { try StoreOptions(json: ["transactionIdleSeconds": bad]) }
    }
}
