import EmulatorCore

/// An open transaction. Read-write ones record what they read (versions of documents, including
/// missing ones, and a digest of each query's results) so a commit can detect that anything
/// changed; read-only ones read a fixed snapshot.
///
/// A value held in `OpenTransactions`, under its database's lock.
struct StoreTransaction: Sendable {
    /// A query the transaction ran, as its commit checks it.
    struct RecordedQuery: Sendable {
        var query: StructuredQuery
        var parent: String
        /// The database's `mutations` when the query ran (see `DatabaseState.unchanged`).
        var mutations: UInt64
        var results: QueryResultDigest
    }

    var readOnly: Bool
    var readTime: Timestamp?
    var reads = UTF8Dictionary<Timestamp?>()
    var queries: [RecordedQuery] = []
    /// When it expires unless used again (`transactionIdleSeconds` after its last use).
    var idleUntil: Timestamp
    /// When it expires however busy it is (`transactionLifetimeSeconds` after it began).
    var endOfLife: Timestamp

    /// When it expires: at its idle expiry or the end of its lifetime, whichever comes first.
    var deadline: Timestamp { min(idleUntil, endOfLife) }

    /// Records a document read (first read wins: later reads see the same version or abort).
    mutating func recordRead(_ path: String, _ doc: Document?) {
        if reads[path] == nil { reads[path] = .some(doc?.updateTime) }
    }

    /// Refuses a read that would take the documents read past `limit`; documents already read do
    /// not count again. Called before anything is read, so a refused read records nothing.
    func checkRoomForReads(_ paths: [String], limit: Int) throws {
        let new = paths.reduce(0) { n, p in reads[p] == nil ? n + 1 : n }
        guard reads.count + new <= limit else {
            throw EmulatorError.invalidArgument(
                "Transaction too big: a transaction may read at most \(limit) documents (firestore.transactionMaxReads); "
                    + "its commit checks each again. Read fewer documents per transaction.")
        }
    }

    /// Records a query and the results it gave, as of the database's `mutations`.
    mutating func recordQuery(_ query: StructuredQuery, parent: String, results: [Document], mutations: UInt64) {
        queries.append(RecordedQuery(query: query, parent: parent, mutations: mutations, results: QueryResultDigest(results)))
    }

    /// Refuses another query once `limit` are recorded: the commit runs each recorded one again
    /// inside the database lock, so their number bounds how long a commit can hold it.
    func checkRoomForQuery(limit: Int) throws {
        guard queries.count < limit else {
            throw EmulatorError.invalidArgument(
                "Transaction too big: a transaction may run at most \(limit) queries (firestore.transactionMaxQueries); "
                    + "its commit checks each again. Run fewer queries per transaction.")
        }
    }

    /// What no longer holds of the recorded reads, if anything: the first document read that
    /// changed, or the first query whose results changed (said as a sentence's subject and verb).
    func contention(in state: DatabaseState, project: String, database: String) -> String? {
        for (path, version) in reads where state.docs[path]?.updateTime != version {
            return "\(DocumentName.full(project: project, database: database, path: path)) changed since the transaction read it"
        }
        // A query runs again only when what it covers changed since it ran (one commit re-ran 150
        // queries, 1.66 s in the lock, after any write at all); the digests stand in for the
        // result sets (paths and update times), which a transaction no longer keeps.
        for q in queries where !state.unchanged(since: q.mutations, query: q.query, parent: q.parent) {
            let now = state.run(q.query, parent: q.parent, project: project, database: database)
            if QueryResultDigest(now) != q.results {
                return "the results of a query of \(Self.scope(q, project: project, database: database)) changed since the transaction ran it"
            }
        }
        return nil
    }

    /// The documents a recorded query covers, for messages: its collection, or its collection
    /// group under its parent.
    static func scope(_ q: RecordedQuery, project: String, database: String) -> String {
        let id = q.query.from.id
        guard q.query.from.allDescendants || id.isEmpty else {
            return DocumentName.full(project: project, database: database, path: q.parent.isEmpty ? id : q.parent + "/" + id)
        }
        let under = DocumentName.full(project: project, database: database, path: q.parent)
        return id.isEmpty ? "every collection under \(under)" : "collection group '\(id)' under \(under)"
    }
}
