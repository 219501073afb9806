import EmulatorCore
import Testing

@testable import EmulatorStore

/// A write-ahead journal that keeps entries in memory and can be told to refuse (a full disk).
final class MemoryJournal: Sendable {
    let entries = Mutex<[JSON]>([])
    let refusing = Mutex(false)
    static let refusal = EmulatorError(.unavailable, "disk full")

    func append(_ project: String, _ entry: JSON) throws {
        if refusing.withLock({ $0 }) { throw Self.refusal }
        entries.withLock { $0.append(entry) }
    }
}

@Suite struct StoreJournalTests {
    func fields(_ s: StoreService, _ path: String) -> FieldMap? {
        try? s.getDocument(project: "p", database: "(default)", path: path, caller: .admin).value.fields
    }

    @Test func aRefusedChangeIsUndoneAndNobodySeesIt() throws {
        let (s, _) = try makeStore()
        let journal = MemoryJournal()
        s.setJournal(journal.append)
        let observed = Mutex(0)
        s.setObserver { _ in observed.withLock { $0 += 1 } }
        try set(s, "t/a", ["v": .integer(1)])
        let sink = RecordingSink()
        try s.addWatch(
            project: "p", database: "(default)", sink: sink, target: 1,
            spec: .query(parent: "", try StructuredQuery(json: ["from": [["collectionId": "t"]]])), resume: nil, once: false, caller: .admin)
        _ = sink.take()
        let before = s.exportProject("p")
        let seen = observed.withLock { $0 }

        journal.refusing.withLock { $0 = true }
        #expect(throws: MemoryJournal.refusal) { try set(s, "t/a", ["v": .integer(2)]) }
        #expect(throws: MemoryJournal.refusal) { try set(s, "t/b", [:]) }
        #expect(throws: MemoryJournal.refusal) {
            try s.commit(
                project: "p", database: "(default)",
                writes: [
                    StoreWrite(path: "t/c", operation: .update([:])),
                    StoreWrite(path: "t/a", operation: .delete),
                ], caller: .admin)
        }
        #expect(throws: MemoryJournal.refusal) { try s.deleteAll(project: "p", database: "(default)") }
        #expect(throws: MemoryJournal.refusal) { try s.resetProject("p") }
        #expect(throws: MemoryJournal.refusal) { try s.importProject("p", ["databases": ["(default)": ["documents": []]]]) }
        #expect(throws: MemoryJournal.refusal) { try s.restoreProject("p", from: [String: DatabaseState]()) }

        #expect(s.exportProject("p") == before)
        #expect(fields(s, "t/a") == ["v": .integer(1)])
        #expect(fields(s, "t/b") == nil)
        #expect(sink.take().isEmpty, "listeners never see a refused write")
        #expect(observed.withLock { $0 } == seen, "the observer (functions, UI) never sees one either")

        journal.refusing.withLock { $0 = false }
        try set(s, "t/b", ["v": .integer(3)])
        #expect(fields(s, "t/b") == ["v": .integer(3)])
        #expect(sink.changes() == ["t/b:+1/-"])
    }

    @Test func journalEntriesReplayToTheSameStateIncludingReplacements() throws {
        let (s, _) = try makeStore()
        let journal = MemoryJournal()
        s.setJournal(journal.append)
        try set(s, "t/a", ["v": .integer(1)])
        try set(s, "t/b", ["v": .integer(2)])
        let snap = s.captureProject("p")
        try s.deleteAll(project: "p", database: "(default)", path: "t/a")
        try s.resetProject("p")
        try s.restoreProject("p", from: snap)
        try set(s, "u/c", ["w": .string("x")])
        _ = try s.commit(project: "p", database: "other-db", writes: [StoreWrite(path: "d/e", operation: .update([:]))], caller: .admin)

        let (replayed, _) = try makeStore()
        for e in journal.entries.withLock({ $0 }) { try replayed.replay(project: "p", entry: e) }
        #expect(replayed.exportProject("p") == s.exportProject("p"))
        #expect(journal.entries.withLock { $0 }.contains { $0["replace"] != nil })
    }

    @Test func idsThatAreNotIdsNeverReachTheStore() throws {
        let (s, _) = try makeStore()
        for (project, database) in [
            ("victim.json\u{0}x", "(default)"), ("a/b", "(default)"), ("UPPER", "(default)"), ("p", "a\u{0}b"), ("p", "(other)"),
        ] {
            #expect(throws: EmulatorError.self) {
                try s.commit(project: project, database: database, writes: [StoreWrite(path: "c/d", operation: .update([:]))], caller: .admin)
            }
            #expect(throws: EmulatorError.self) { try s.importProject(project, ["databases": [database: ["documents": []]]]) }
            #expect(throws: EmulatorError.self) {
                try s.replay(project: project, entry: ["database": .string(database), "commitTime": "2030-01-01T00:00:00Z"])
            }
        }
        #expect(s.projectsWithData.isEmpty)
    }
}
