import EmulatorCore

/// An open transaction. Read-write ones record what they read (versions of documents, including
/// missing ones, and query results) so a commit can detect that anything changed; read-only ones
/// read a fixed snapshot.
struct StoreTransaction: Sendable {
    var readOnly: Bool
    var readTime: Timestamp?
    var reads = UTF8Dictionary<Timestamp?>()
    var queries: [(query: StructuredQuery, parent: String, results: UTF8Dictionary<Timestamp>)] = []
    var lastUsed: Timestamp

    /// Records a document read (first read wins: later reads see the same version or abort).
    mutating func recordRead(_ path: String, _ doc: Document?) {
        if reads[path] == nil { reads[path] = .some(doc?.updateTime) }
    }

    /// The first document whose recorded read no longer holds, if any.
    func contendedDocument(in state: DatabaseState, project: String, database: String) -> String? {
        for (path, version) in reads where state.docs[path]?.updateTime != version {
            return path
        }
        for q in queries {
            let now = state.run(q.query, parent: q.parent, project: project, database: database)
            let current = UTF8Dictionary(now.map { ($0.path, $0.updateTime) })
            if current != q.results {
                return current.first { q.results[$0.key] != $0.value }?.key ?? q.results.first { current[$0.key] == nil }?.key ?? q.parent
            }
        }
        return nil
    }
}
