import EmulatorCore

/// The result of a read: what was read, at which time, and the id of a transaction it began.
public struct ReadResult<T: Sendable>: Sendable {
    /// The data.
    public var value: T
    /// The read time.
    public var readTime: Timestamp
    /// The id of a transaction begun by `newTransaction`.
    public var transaction: [UInt8]?
}

extension StoreService {
    /// Reads one document (NOT_FOUND when missing). With `waitForLock` false, throws `StoreBusy`
    /// rather than wait for a database another thread holds (an event loop answering inline).
    public func getDocument(
        project: String, database: String, path: String, consistency: ReadConsistency = .latest,
        caller: Caller, waitForLock: Bool = true
    ) throws -> ReadResult<Document> {
        try DocumentName.validateDocumentPath(path)
        return try withDatabase(project, database, wait: waitForLock, keep: consistency.beginsTransaction) { data, env, hooks in
            let (rt, txn, newId) = try Self.resolve(consistency, &data, env, options: options, database: database)
            if let txn { try Self.checkRoomForReads(data, txn: txn, paths: [path], options: options) }
            let doc = data.state.document(path, at: rt)
            try authorize(
                hooks,
                StoreAccess(
                    caller: caller, project: project, database: database, method: .get, path: path,
                    resource: doc, requestResource: nil, query: nil, time: env.clock.now(),
                    reader: StateReader(before: data.state, after: data.state, readTime: rt)))
            if let txn { data.transactions.update(txn) { $0.recordRead(path, doc) } }
            guard let doc else {
                throw EmulatorError.notFound("Document \"\(DocumentName.full(project: project, database: database, path: path))\" not found.")
            }
            return ReadResult(value: doc, readTime: rt ?? env.clock.now().truncatedToMicroseconds, transaction: newId)
        }
    }

    /// Reads several documents; each is found or missing, in request order, duplicates elided.
    public func batchGet(
        project: String, database: String, paths: [String], consistency: ReadConsistency = .latest,
        caller: Caller
    ) throws -> ReadResult<[(path: String, document: Document?)]> {
        for p in paths { try DocumentName.validateDocumentPath(p) }
        var seen = Set<UTF8Key>()
        let unique = paths.filter { seen.insert(UTF8Key($0)).inserted }
        return try withDatabase(project, database, keep: consistency.beginsTransaction) { data, env, hooks in
            let (rt, txn, newId) = try Self.resolve(consistency, &data, env, options: options, database: database)
            if let txn { try Self.checkRoomForReads(data, txn: txn, paths: unique, options: options) }
            var out: [(String, Document?)] = []
            for p in unique {
                let doc = data.state.document(p, at: rt)
                try authorize(
                    hooks,
                    StoreAccess(
                        caller: caller, project: project, database: database, method: .get, path: p,
                        resource: doc, requestResource: nil, query: nil, time: env.clock.now(),
                        reader: StateReader(before: data.state, after: data.state, readTime: rt)))
                if let txn { data.transactions.update(txn) { $0.recordRead(p, doc) } }
                out.append((p, doc))
            }
            return ReadResult(value: out, readTime: rt ?? env.clock.now().truncatedToMicroseconds, transaction: newId)
        }
    }

    /// Runs a query under `parent` (database-relative document path; "" = the root).
    public func runQuery(
        project: String, database: String, parent: String, query: StructuredQuery,
        consistency: ReadConsistency = .latest, caller: Caller
    ) throws -> ReadResult<[Document]> {
        if !parent.isEmpty { try DocumentName.validateDocumentPath(parent) }
        return try withDatabase(project, database, keep: consistency.beginsTransaction) { data, env, hooks in
            let (rt, txn, newId) = try Self.resolve(consistency, &data, env, options: options, database: database)
            let group = query.from.id.isEmpty ? "**" : "**/\(query.from.id)"
            let listPath =
                query.from.allDescendants
                ? (parent.isEmpty ? group : "\(parent)/\(group)")
                : (parent.isEmpty ? query.from.id : "\(parent)/\(query.from.id)")
            try authorize(
                hooks,
                StoreAccess(
                    caller: caller, project: project, database: database, method: .list, path: listPath,
                    resource: nil, requestResource: nil, query: query, time: env.clock.now(),
                    reader: StateReader(before: data.state, after: data.state, readTime: rt)))
            try Self.checkRoomForQuery(data, txn: txn, options: options)
            if rt == nil { data.state.prepareEqualityIndexes(for: query, parent: parent) }
            let docs = data.state.run(query, parent: parent, project: project, database: database, at: rt)
            if let txn {
                let mutations = data.state.mutations
                data.transactions.update(txn) { $0.recordQuery(query, parent: parent, results: docs, mutations: mutations) }
            }
            return ReadResult(value: docs, readTime: rt ?? env.clock.now().truncatedToMicroseconds, transaction: newId)
        }
    }

    /// Lists a collection (REST `ListDocuments`): name order unless `orderBy` is given; paging by
    /// an opaque offset token. An empty `collectionId` lists the documents of every collection
    /// directly under `parent`. `showMissing` adds name-only entries for "missing" documents
    /// (they do not exist but have subcollections), in name order among the others, as production
    /// does; it takes no `orderBy` and needs a collection id.
    public func listDocuments(
        project: String, database: String, parent: String, collectionId: String, pageSize: Int?,
        pageToken: String?, orderBy: [StructuredQuery.Order], showMissing: Bool,
        consistency: ReadConsistency = .latest, caller: Caller
    ) throws -> ReadResult<DocumentListing> {
        if !parent.isEmpty { try DocumentName.validateDocumentPath(parent) }
        let collection = parent.isEmpty ? collectionId : parent + "/" + collectionId
        if !collectionId.isEmpty { try DocumentName.validateCollectionPath(collection) }
        if showMissing && !orderBy.isEmpty { throw EmulatorError.invalidArgument("cannot specify an order when show_missing is true") }
        if showMissing && collectionId.isEmpty { throw EmulatorError.invalidArgument("collection id must be set when show_missing is true") }
        // Production's (and Google's emulator's) answer to an end user asking for missing documents.
        if showMissing && !caller.isAdmin { throw EmulatorError.permissionDenied("Metadata operations require admin authentication.") }
        var offset = 0
        if let t = pageToken, !t.isEmpty {
            guard let bytes = Base64.decode(t), let n = Int(String(decoding: bytes, as: UTF8.self).dropFirst(7)),
                String(decoding: bytes, as: UTF8.self).hasPrefix("offset:"), n >= 0
            else {
                throw EmulatorError.invalidArgument("Invalid page token.")
            }
            offset = n
        }
        if let p = pageSize, p < 0 { throw EmulatorError.invalidArgument("page_size is negative") }
        var q = try StructuredQuery(json: ["from": [["collectionId": "x"]]])
        q.from = StructuredQuery.Collection(id: collectionId, allDescendants: false)
        q.explicitOrder = orderBy
        q.order = StructuredQuery.normalise(orderBy, inequalities: [])
        let query = q
        return try withDatabase(project, database, keep: consistency.beginsTransaction) { data, env, hooks in
            let (rt, txn, newId) = try Self.resolve(consistency, &data, env, options: options, database: database)
            let listed =
                collectionId.isEmpty
                ? data.state.collectionIds(under: parent, at: rt).map { parent.isEmpty ? $0 : parent + "/" + $0 }
                : [collection]
            for path in listed {
                try authorize(
                    hooks,
                    StoreAccess(
                        caller: caller, project: project, database: database, method: .list, path: path,
                        resource: nil, requestResource: nil, query: query, time: env.clock.now(),
                        reader: StateReader(before: data.state, after: data.state, readTime: rt)))
            }
            try Self.checkRoomForQuery(data, txn: txn, options: options)
            if rt == nil { data.state.prepareEqualityIndexes(for: query, parent: parent) }
            let all = data.state.run(query, parent: parent, project: project, database: database, at: rt)
            if let txn {
                let mutations = data.state.mutations
                data.transactions.update(txn) { $0.recordQuery(query, parent: parent, results: all, mutations: mutations) }
            }
            var entries = all.map(DocumentListing.Entry.document)
            if showMissing {
                let prefix = collection + "/"
                let present = Set(all.map { UTF8Key($0.path) })
                var parents = Set<UTF8Key>()
                for key in data.state.collections.keys {
                    if let id = DocumentName.child(key, under: prefix) { parents.insert(UTF8Key(prefix + id)) }
                }
                let missing = parents.subtracting(present).map { DocumentListing.Entry.missing($0.string) }
                entries = (entries + missing).sorted { DocumentName.compareNames($0.path, $1.path) < 0 }
            }
            let size = pageSize.map { $0 == 0 ? 300 : $0 } ?? 300
            let page = Array(entries.dropFirst(offset).prefix(size))
            let next = offset + page.count < entries.count ? Base64.encode(Array("offset:\(offset + page.count)".utf8)) : nil
            return ReadResult(
                value: DocumentListing(entries: page, nextPageToken: next),
                readTime: rt ?? env.clock.now().truncatedToMicroseconds, transaction: newId)
        }
    }

    /// Ids of the collections directly under `parent` (admin only, as in the emulator), now or as
    /// of `readTime` (within the kept history).
    public func listCollectionIds(
        project: String, database: String, parent: String, readTime: Timestamp? = nil,
        caller: Caller
    ) throws -> [String] {
        guard caller.isAdmin else { throw EmulatorError.permissionDenied("Metadata operations require admin authentication.") }
        if !parent.isEmpty { try DocumentName.validateDocumentPath(parent) }
        return try withDatabase(project, database, keep: false) { data, _, _ in data.state.collectionIds(under: parent, at: readTime) }
    }
}

/// One page of `listDocuments`: documents, and with `showMissing` the names of missing documents,
/// in the listing's order.
public struct DocumentListing: Sendable {
    /// A listed document, or the name of a missing one (it has subcollections but no fields).
    public enum Entry: Sendable {
        case document(Document)
        case missing(String)

        /// The database-relative path.
        public var path: String {
            switch self {
            case .document(let d): return d.path
            case .missing(let p): return p
            }
        }
    }

    /// The page's entries, in order.
    public var entries: [Entry]
    /// The token of the next page, nil on the last.
    public var nextPageToken: String?
}
