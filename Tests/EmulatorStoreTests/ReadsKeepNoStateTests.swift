import EmulatorCore
import Testing

@testable import EmulatorStore

/// Reads of a database nothing has written, watched or opened a transaction in keep nothing: each
/// once made the database (about 400 bytes) and registered its project (about 1.1 KB) for the
/// process's life, so a client reading made-up ids grew the process without bound.
@Suite struct ReadsKeepNoStateTests {
    /// Records which projects the store asked to keep.
    final class RecordingProvider: ProjectEnvironmentProvider {
        let kept = Mutex<Set<String>>([])
        let local = LocalEnvironmentProvider()

        func environment(for projectId: String) -> ProjectEnvironment {
            kept.withLock { _ = $0.insert(projectId) }
            return local.environment(for: projectId)
        }

        func peekEnvironment(for projectId: String) -> ProjectEnvironment {
            kept.withLock { $0.contains(projectId) } ? local.environment(for: projectId) : ProjectEnvironment(projectId: projectId)
        }
    }

    @Test func readsOfUnusedDatabasesKeepNothing() throws {
        let provider = RecordingProvider()
        let s = StoreService(environments: provider)
        let q = try StructuredQuery(json: ["from": [["collectionId": "c"]]])
        for (project, db) in [("p", "(default)"), ("p", "other"), ("q", "(default)")] {
            #expect(throws: EmulatorError.self) { try s.getDocument(project: project, database: db, path: "c/d", caller: .admin) }
            #expect(try s.batchGet(project: project, database: db, paths: ["c/d"], caller: .admin).value.count == 1)
            #expect(try s.runQuery(project: project, database: db, parent: "", query: q, caller: .admin).value.isEmpty)
            #expect(
                try s.listDocuments(
                    project: project, database: db, parent: "", collectionId: "c", pageSize: nil, pageToken: nil, orderBy: [],
                    showMissing: false, caller: .admin
                ).value.entries.isEmpty)
            #expect(try s.listCollectionIds(project: project, database: db, parent: "", caller: .admin).isEmpty)
            #expect(try s.collections(project: project, database: db, parent: "").isEmpty)
            #expect(try s.peekDocument(project: project, database: db, path: "c/d") == nil)
            #expect(s.watchCount(project: project, database: db) == 0)
            #expect(!s.removeWatch(project: project, database: db, sink: NullSink(), target: 1))
            try? s.rollback(project: project, database: db, transaction: [UInt8](repeating: 7, count: StoreService.transactionIdBytes))
            _ = s.reserveReadTime(project: project, database: db)
        }
        #expect(s.allBoxes().isEmpty)
        #expect(provider.kept.withLock { $0.isEmpty })
    }

    /// A transaction in a database that is read for the first time is kept, and so is its database.
    @Test func aReadThatBeginsATransactionKeepsItsDatabase() throws {
        let provider = RecordingProvider()
        let s = StoreService(environments: provider)
        let r = try s.batchGet(
            project: "p", database: "(default)", paths: ["c/d"], consistency: .newTransaction(readOnly: false, readTime: nil), caller: .admin)
        let id = try #require(r.transaction)
        #expect(s.databaseIds(project: "p") == ["(default)"])
        #expect(provider.kept.withLock { $0 } == ["p"])
        _ = try s.commit(
            project: "p", database: "(default)", writes: [StoreWrite(path: "c/d", operation: .update([:]))], transaction: id, caller: .admin)
    }

    /// The answer a transaction id gets in a database nothing made is the one it gets in an empty
    /// database that exists.
    @Test func anUnknownTransactionIsRefusedTheSameWayEitherWay() throws {
        let s = StoreService(environments: RecordingProvider())
        _ = try s.commit(project: "p", database: "made", writes: [StoreWrite(path: "c/d", operation: .delete)], caller: .admin)
        func answer(_ db: String) -> String {
            do {
                _ = try s.getDocument(project: "p", database: db, path: "c/d", consistency: .transaction([9, 9, 9]), caller: .admin)
                return "no error"
            } catch { return "\(error)" }
        }
        #expect(answer("never") == answer("made"))
        #expect(s.databaseIds(project: "p") == ["made"])
    }

    /// A sink that drops every event.
    final class NullSink: WatchSink {
        func deliver(_ event: WatchEvent) {}
    }
}
