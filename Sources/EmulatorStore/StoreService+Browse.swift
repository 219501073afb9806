import EmulatorCore

/// A collection as a data browser lists it.
public struct CollectionSummary: Sendable, Equatable {
    /// The collection id (last segment).
    public var id: String
    /// The database-relative collection path.
    public var path: String
    /// Documents directly in it (missing parents of subcollections not counted).
    public var count: Int
}

/// One page of a collection in name order.
public struct DocumentPage: Sendable {
    /// The page's documents.
    public var documents: [Document]
    /// Documents the whole collection holds.
    public var total: Int
    /// Ids of missing documents that have subcollections (first page only, at most 1,000).
    public var missing: [String]
    /// The id to pass as `startAfter` for the next page; nil on the last page.
    public var nextStartAfter: String?
}

/// Admin reads for the emulator's UI: listings that cost what they return (the per-collection
/// sorted index is searched, never the whole database scanned per page), and reads that are not
/// store requests (no authorization hook, so they do not show up in the request log).
extension StoreService {
    /// The databases of the project that have been used, sorted.
    public func databaseIds(project: String) -> [String] { databases(of: project) }

    /// Documents in every database of the project.
    public func documentCount(project: String) -> Int {
        databases(of: project).reduce(0) { n, db in n + box(project, db).data.withLock { $0.state.docs.count } }
    }

    /// Collections directly under `parent` (a document path, "" = the root), each with how many
    /// documents it holds; collections that only hold deeper subcollections are listed with 0.
    public func collections(project: String, database: String, parent: String) throws -> [CollectionSummary] {
        if !parent.isEmpty { try DocumentName.validateDocumentPath(parent) }
        let prefix = parent.isEmpty ? "" : parent + "/"
        return try withDatabase(project, database, keep: false) { data, _, _ in
            var ids = Set<UTF8Key>()
            for key in data.state.collections.keys {
                if let id = DocumentName.child(key, under: prefix) { ids.insert(UTF8Key(id)) }
            }
            return ids.sorted().map(\.string).map { id in
                CollectionSummary(id: id, path: prefix + id, count: data.state.collections[prefix + id]?.count ?? 0)
            }
        }
    }

    /// Up to `pageSize` documents of `collection` in name order, after the document `startAfter`
    /// (an id); O(log n + pageSize) whatever the collection's size.
    public func documentPage(project: String, database: String, collection: String, startAfter: String?, pageSize: Int) throws -> DocumentPage {
        try DocumentName.validateCollectionPath(collection)
        guard (1...1000).contains(pageSize) else { throw EmulatorError.invalidArgument("pageSize must be between 1 and 1000.") }
        return try withDatabase(project, database, keep: false) { data, _, _ in
            let list = data.state.collections[collection] ?? SortedPaths()
            let after = startAfter.flatMap { $0.isEmpty ? nil : collection + "/" + $0 }
            // One name more than the page: whether another page follows.
            let names = list.page(after: after, limit: pageSize + 1)
            let more = names.count > pageSize
            let docs = names.prefix(pageSize).compactMap { data.state.docs[$0] }
            var missing: [String] = []
            if startAfter == nil {
                let prefix = collection + "/"
                var parents = Set<UTF8Key>()
                for key in data.state.collections.keys {
                    if let id = DocumentName.child(key, under: prefix), data.state.docs[prefix + id] == nil { parents.insert(UTF8Key(id)) }
                }
                missing = Array(parents.sorted().map(\.string).prefix(1000))
            }
            return DocumentPage(
                documents: docs, total: list.count, missing: missing,
                nextStartAfter: more ? docs.last.map(\.id) : nil)
        }
    }

    /// The document at `path`, or nil, read without the authorization hook (admin browsing).
    public func peekDocument(project: String, database: String, path: String) throws -> Document? {
        try DocumentName.validateDocumentPath(path)
        return try withDatabase(project, database, keep: false) { data, _, _ in data.state.docs[path] }
    }
}
