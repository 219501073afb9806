import EmulatorCore
import Testing

@testable import EmulatorStore

/// The bounds on open transactions: their lifetime, their number per database, and the queries
/// one may record for its commit to check. Each was found unbounded by the audit of memory and
/// time out of proportion to a request (docs/robustness.md).
@Suite struct TransactionBoundsTests {
    let db = "(default)"

    /// Production ends a transaction 270 s after it began however busy it is; reads every 50 s
    /// (inside the 60 s idle expiry) once kept one alive for ever.
    @Test func aTransactionKeptBusyStillExpiresAfterItsLifetime() throws {
        let (s, env) = try makeStore()
        try set(s, "c/d", ["v": .integer(1)])
        let reader = try s.beginTransaction(project: "p", database: db, readOnly: false)
        let committer = try s.beginTransaction(project: "p", database: db, readOnly: false)
        for _ in 0..<5 {
            try env.clock.advance(seconds: 50)
            for t in [reader, committer] {
                _ = try s.getDocument(project: "p", database: db, path: "c/d", consistency: .transaction(t), caller: .admin)
            }
        }
        try env.clock.advance(seconds: 21)  // 271 s after they began, 21 s after their last use
        let expired = EmulatorError.aborted("The referenced transaction has expired or is no longer valid.")
        #expect(throws: expired) {
            try s.getDocument(project: "p", database: db, path: "c/d", consistency: .transaction(reader), caller: .admin)
        }
        #expect(throws: expired) {
            try s.commit(
                project: "p", database: db, writes: [StoreWrite(path: "c/d", operation: .update(["v": .integer(2)]))],
                transaction: committer, caller: .admin)
        }
        #expect(try s.getDocument(project: "p", database: db, path: "c/d", caller: .admin).value.fields["v"] == .integer(1))
    }

    /// 30,000 begins without a commit each held memory until the idle expiry, and each begin
    /// scanned all the others. Past the limit a begin is refused, naming it; expired transactions
    /// do not count, so a client is never refused because of dead ones.
    @Test func openTransactionsPerDatabaseAreLimited() throws {
        let (s, env) = try makeStore()
        let limit = 10_000  // the default of `firestore.maxOpenTransactions`
        for _ in 0..<limit { _ = try s.beginTransaction(project: "p", database: db, readOnly: false) }
        do {
            _ = try s.beginTransaction(project: "p", database: db, readOnly: false)
            Issue.record("a begin past the limit succeeded")
        } catch let e as EmulatorError {
            #expect(e.code == .resourceExhausted)
            #expect(e.message.contains("10000") && e.message.contains("maxOpenTransactions"))
        }
        // `newTransaction` on a read begins one too.
        try set(s, "c/d", [:])
        do {
            _ = try s.getDocument(
                project: "p", database: db, path: "c/d", consistency: .newTransaction(readOnly: false, readTime: nil), caller: .admin)
            Issue.record("a newTransaction past the limit succeeded")
        } catch let e as EmulatorError {
            #expect(e.code == .resourceExhausted)
        }
        // Another database has its own allowance.
        _ = try s.beginTransaction(project: "p", database: "other", readOnly: false)
        try env.clock.advance(seconds: 61)  // every one of them is now idle-expired
        let t = try s.beginTransaction(project: "p", database: db, readOnly: false)
        _ = try s.commit(project: "p", database: db, writes: [], transaction: t, caller: .admin)
    }

    /// Each query in a transaction is checked again by its commit, inside the database lock: 150
    /// queries held every other client for 1.66 s. A transaction may run a bounded number.
    @Test func queriesPerTransactionAreLimited() throws {
        let (s, _) = try makeStore()
        let limit = 100  // the default of `firestore.transactionMaxQueries`
        let t = try s.beginTransaction(project: "p", database: db, readOnly: false)
        let query = try StructuredQuery(json: ["from": [["collectionId": "c"]]])
        for _ in 0..<limit {
            _ = try s.runQuery(project: "p", database: db, parent: "", query: query, consistency: .transaction(t), caller: .admin)
        }
        do {
            _ = try s.runQuery(project: "p", database: db, parent: "", query: query, consistency: .transaction(t), caller: .admin)
            Issue.record("a query past the limit succeeded")
        } catch let e as EmulatorError {
            #expect(e.code == .invalidArgument)
            #expect(e.message.contains("100") && e.message.contains("transactionMaxQueries"))
        }
        // The transaction itself is still good: the refused query recorded nothing.
        try set(s, "d/x", [:])
        _ = try s.commit(project: "p", database: db, writes: [], transaction: t, caller: .admin)
    }

    /// Every document a transaction reads is kept and checked again by its commit inside the
    /// database lock, and nothing bounded their number. Past the limit a read naming a document
    /// not read before is refused whole, naming it; documents already read may be read again.
    @Test func documentsReadPerTransactionAreLimited() throws {
        let provider = LocalEnvironmentProvider()
        var options = StoreOptions()
        options.transactionMaxReads = 3
        let s = StoreService(environments: provider, options: options)
        try set(s, "c/a", [:])
        let t = try s.beginTransaction(project: "p", database: db, readOnly: false)
        _ = try s.batchGet(project: "p", database: db, paths: ["c/a", "c/b"], consistency: .transaction(t), caller: .admin)
        _ = try s.getDocument(project: "p", database: db, path: "c/a", consistency: .transaction(t), caller: .admin)
        func refused(_ body: () throws -> Void) {
            do {
                try body()
                Issue.record("a read past the limit succeeded")
            } catch let e as EmulatorError {
                #expect(e.code == .invalidArgument)
                #expect(e.message.contains("at most 3 documents") && e.message.contains("transactionMaxReads"))
            } catch { Issue.record("\(error)") }
        }
        refused { _ = try s.batchGet(project: "p", database: db, paths: ["c/a", "c/c", "c/d"], consistency: .transaction(t), caller: .admin) }
        _ = try s.batchGet(project: "p", database: db, paths: ["c/b", "c/c"], consistency: .transaction(t), caller: .admin)
        refused { _ = try s.getDocument(project: "p", database: db, path: "c/d", consistency: .transaction(t), caller: .admin) }
        // Reads outside the transaction are not counted, and the transaction still commits.
        _ = try s.getDocument(project: "p", database: db, path: "c/a", caller: .admin)
        _ = try s.commit(project: "p", database: db, writes: [], transaction: t, caller: .admin)
    }

    /// What a commit checks of a query: a change to a document it returned (or one it would now
    /// return) aborts; a change elsewhere in the database does not.
    @Test func aQueryIsContendedOnlyByChangesToItsResults() throws {
        let (s, _) = try makeStore()
        try set(s, "c/a", ["v": .integer(1)])
        try set(s, "c/b", ["v": .integer(2)])
        let query = try StructuredQuery(json: [
            "from": [["collectionId": "c"]],
            "where": ["fieldFilter": ["field": ["fieldPath": "v"], "op": "LESS_THAN", "value": ["integerValue": "10"]]],
        ])
        func transactionAfterQuery() throws -> [UInt8] {
            let t = try s.beginTransaction(project: "p", database: db, readOnly: false)
            _ = try s.runQuery(project: "p", database: db, parent: "", query: query, consistency: .transaction(t), caller: .admin)
            return t
        }
        func commit(_ t: [UInt8]) throws { _ = try s.commit(project: "p", database: db, writes: [], transaction: t, caller: .admin) }

        var t = try transactionAfterQuery()
        try set(s, "elsewhere/x", ["v": .integer(1)])
        try set(s, "c/big", ["v": .integer(99)])  // in the collection, but not a result
        try commit(t)

        for change in [{ try set(s, "c/a", ["v": .integer(3)]) }, { try set(s, "c/new", ["v": .integer(0)]) }] {
            t = try transactionAfterQuery()
            try change()
            do {
                try commit(t)
                Issue.record("a commit after its query's results changed succeeded")
            } catch let e as EmulatorError {
                #expect(e.code == .aborted)
                #expect(e.message.contains("projects/p/databases/(default)/documents/c"))
            }
        }
        t = try transactionAfterQuery()
        _ = try s.commit(project: "p", database: db, writes: [StoreWrite(path: "c/b", operation: .delete)], caller: .admin)
        #expect(throws: EmulatorError.self) { try commit(t) }
    }

    /// The three bounds are `firestore` options with sensible ranges, and they reach the store.
    @Test func theBoundsAreOptions() throws {
        let defaults = StoreOptions()
        #expect(defaults.transactionLifetimeSeconds == 270 && defaults.maxOpenTransactions == 10_000)
        #expect(defaults.transactionMaxQueries == 100)
        let o = try StoreOptions(json: ["transactionLifetimeSeconds": 5, "maxOpenTransactions": 1, "transactionMaxQueries": 1])
        for (key, bad) in [
            ("transactionLifetimeSeconds", 0), ("transactionLifetimeSeconds", 1e300), ("maxOpenTransactions", 0),
            ("maxOpenTransactions", 1.5), ("maxOpenTransactions", 1e12), ("transactionMaxQueries", -1), ("transactionMaxQueries", "9"),
        ] as [(String, JSON)] {
            #expect(throws: EmulatorError.self) { try StoreOptions(json: JSON.object([key: bad] as [String: JSON])) }
        }
        let provider = LocalEnvironmentProvider()
        let env = provider.environment(for: "p")
        try env.clock.freeze(at: Timestamp(seconds: 1_800_000_000))
        let s = StoreService(environments: provider, options: o)
        let t = try s.beginTransaction(project: "p", database: db, readOnly: true)
        #expect(throws: EmulatorError.self) { try s.beginTransaction(project: "p", database: db, readOnly: true) }
        try env.clock.advance(seconds: 5)  // the end of its 5 s lifetime, well inside the idle expiry
        #expect(throws: EmulatorError.aborted("The referenced transaction has expired or is no longer valid.")) {
            try s.commit(project: "p", database: db, writes: [], transaction: t, caller: .admin)
        }
    }

    /// A commit runs a recorded query again only when its collection changed since (after any
    /// write at all, 100 queries of 5,000 documents held the lock 7.6 s in a debug build).
    @Test func aQueryRunsAgainOnlyWhenWhatItCoversChanged() throws {
        var state = DatabaseState()
        let t = Timestamp(seconds: 1_800_000_000)
        func put(_ path: String) { state.put(Document(path: path, fields: [:], createTime: t, updateTime: t)) }
        put("c/a")
        let collection = try StructuredQuery(json: ["from": [["collectionId": "c"]]])
        let group = try StructuredQuery(json: ["from": [["collectionId": "c", "allDescendants": true]]])
        let count = state.mutations
        put("elsewhere/x")
        #expect(state.unchanged(since: count, query: collection, parent: ""))
        #expect(!state.unchanged(since: count, query: group, parent: ""))
        put("c/b")
        #expect(!state.unchanged(since: count, query: collection, parent: ""))
        let later = state.mutations
        state.remove("c/a", at: t)
        state.remove("c/b", at: t)  // the collection is gone, and with it its stamp
        #expect(!state.unchanged(since: later, query: collection, parent: ""))
    }
}
