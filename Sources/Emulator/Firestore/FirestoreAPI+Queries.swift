import EmulatorCore
import EmulatorStore

/// Multi-document reads: BatchGetDocuments, RunQuery, RunAggregationQuery, PartitionQuery,
/// ListCollectionIds. The streaming ones hand each response to `emit` as it is encoded, so a
/// large result is never held in its wire form all at once.
extension FirestoreAPI {
    /// BatchGetDocuments: `{database, documents, mask, transaction | newTransaction | readTime}` →
    /// a stream of `{found | missing, readTime}`, in request order, preceded by `{transaction}` when
    /// the call began one.
    func batchGetDocuments(_ request: JSON, _ context: FirestoreCallContext, emit: Emit) async throws {
        let r = try Self.object(request, "BatchGetDocuments")
        let db = try Self.database(r["database"], field: "database")
        let names = try (r["documents"]?.arrayValue ?? []).map { n -> String in
            guard let s = n.stringValue, let p = DocumentName.parse(s), p.project == db.project, p.database == db.database else {
                throw EmulatorError.invalidArgument("batchGet document \(n) is not a document of projects/\(db.project)/databases/\(db.database).")
            }
            return p.path
        }
        let mask = try FirestoreRequest.mask(r)
        let res = try store.batchGet(
            project: db.project, database: db.database, paths: names,
            consistency: try FirestoreRequest.consistency(r), caller: try caller(context, db))
        let readTime = JSON.string(res.readTime.rfc3339())
        if let t = res.transaction { try await emit(.json(["transaction": .string(Base64.encode(t))])) }
        for (path, doc) in res.value {
            if let doc {
                try await emit(.document(member: "found", DocumentReply(doc, db, mask: mask), rest: ["readTime": readTime]))
            } else {
                try await emit(
                    .json(["missing": .string(DocumentName.full(project: db.project, database: db.database, path: path)), "readTime": readTime]))
            }
        }
    }

    /// RunQuery: `{parent, structuredQuery, transaction | newTransaction | readTime}` → a stream of
    /// `{document, readTime, skippedResults}`; the last one carries `done: true` (or a final
    /// `{readTime, done}` when nothing matched). A begun transaction comes first, alone.
    func runQuery(_ request: JSON, _ context: FirestoreCallContext, emit: Emit) async throws {
        let r = try Self.object(request, "RunQuery")
        let (db, parent) = try Self.parent(r["parent"])
        guard let q = r["structuredQuery"] else { throw EmulatorError.invalidArgument("runQuery needs a structuredQuery.") }
        let query = try StructuredQuery(json: q)
        try services.indexes.check(project: db.project, database: db.database, query: query)
        let res = try store.runQuery(
            project: db.project, database: db.database, parent: parent, query: query,
            consistency: try FirestoreRequest.consistency(r), caller: try caller(context, db))
        let readTime = JSON.string(res.readTime.rfc3339())
        if let t = res.transaction { try await emit(.json(["transaction": .string(Base64.encode(t)), "readTime": readTime])) }
        let docs = res.value
        guard !docs.isEmpty else {
            try await emit(.json(["readTime": readTime, "done": true]))
            return
        }
        // One dictionary, shared by every message that adds nothing to it: a literal per
        // document allocated and hashed its own dictionary.
        var common: UTF8Dictionary<JSON> = ["readTime": readTime]
        let projection = query.select.map(FieldMask.init)  // once per query, not per document
        if query.offset > 0 { common["skippedResults"] = .int(Int64(query.offset)) }
        for (i, d) in docs.enumerated() {
            try Task.checkCancellation()
            var e = common
            if i == docs.count - 1 { e["done"] = true }
            // A projection (`select`) is built for this query; a whole document is the stored
            // version, sent from its cached encoding.
            try await emit(.document(member: "document", DocumentReply(d, db, mask: projection), rest: e))
        }
    }

    /// RunAggregationQuery: `{parent, structuredAggregationQuery, transaction | newTransaction |
    /// readTime}` → one `{result: {aggregateFields}, readTime}` (plus `transaction` when begun).
    func runAggregationQuery(_ request: JSON, _ context: FirestoreCallContext, emit: Emit) async throws {
        let r = try Self.object(request, "RunAggregationQuery")
        let (db, parent) = try Self.parent(r["parent"])
        guard let sa = r["structuredAggregationQuery"], let q = sa["structuredQuery"] else {
            throw EmulatorError.invalidArgument("runAggregationQuery needs structuredAggregationQuery.structuredQuery.")
        }
        let aggregations = try Aggregation.decodeList(sa["aggregations"])
        var query = try StructuredQuery(json: q)
        // Production reads sums and averages through their fields' index, with or without a
        // limit: only documents holding every aggregated field count (for `count` too).
        try Aggregation.checkProjection(aggregations, select: query.select)
        try services.indexes.check(project: db.project, database: db.database, query: query, aggregateFields: aggregations.compactMap(\.field))
        try query.orderImplicitly(by: aggregations.compactMap(\.field))
        let res = try store.runQuery(
            project: db.project, database: db.database, parent: parent, query: query,
            consistency: try FirestoreRequest.consistency(r), caller: try caller(context, db))
        var fields: UTF8Dictionary<JSON> = [:]
        for a in aggregations { fields[a.alias] = a.compute(res.value).json }
        var e: UTF8Dictionary<JSON> = ["result": ["aggregateFields": .object(fields)], "readTime": .string(res.readTime.rfc3339())]
        if let t = res.transaction { e["transaction"] = .string(Base64.encode(t)) }
        try await emit(.json(.object(e)))
    }

    /// ListCollectionIds: `{parent, pageSize, pageToken, readTime}` → `{collectionIds, nextPageToken}`
    /// (administrators only, as in the Firestore emulator).
    func listCollectionIds(_ request: JSON, _ context: FirestoreCallContext) throws -> JSON {
        let r = try Self.object(request, "ListCollectionIds")
        let (db, parent) = try Self.parent(r["parent"])
        let readTime = try FirestoreRequest.timestamp(r["readTime"], "readTime")
        let ids = try store.listCollectionIds(
            project: db.project, database: db.database, parent: parent, readTime: readTime,
            caller: try caller(context, db))
        let (offset, size) = try Self.page(r, count: ids.count)
        let page = Array(ids.dropFirst(offset).prefix(size))
        var out: UTF8Dictionary<JSON> = ["collectionIds": .array(page.map { .string($0) })]
        if offset + page.count < ids.count { out["nextPageToken"] = .string(Self.pageToken(offset + page.count)) }
        return .object(out)
    }

    /// PartitionQuery: `{parent, structuredQuery, partitionCount, pageToken, pageSize, readTime}` →
    /// `{partitions, nextPageToken}`: up to `partitionCount - 1` split points (document references,
    /// in name order) that cut a collection-group query's results into parts of equal size.
    func partitionQuery(_ request: JSON, _ context: FirestoreCallContext) throws -> JSON {
        let r = try Self.object(request, "PartitionQuery")
        let (db, parent) = try Self.parent(r["parent"])
        guard let q = r["structuredQuery"] else { throw EmulatorError.invalidArgument("partitionQuery needs a structuredQuery.") }
        let query = try StructuredQuery(json: q)
        guard query.from.allDescendants else {
            throw EmulatorError.invalidArgument("partitionQuery needs a collection group query (allDescendants: true).")
        }
        guard query.filter == nil, query.startAt == nil, query.endAt == nil, query.limit == nil, query.offset == 0,
            query.explicitOrder.allSatisfy({ $0.field.isName && !$0.descending })
        else {
            throw EmulatorError.invalidArgument(
                "partitionQuery supports only queries without filters, cursors, limit or offset, ordered by __name__ ascending.")
        }
        let countValue = r["partitionCount"]
        guard let count = countValue?.intValue ?? countValue?.stringValue.flatMap({ Int64($0) }), count >= 1 else {
            throw EmulatorError.invalidArgument("partitionCount must be a positive integer.")
        }
        var consistency = ReadConsistency.latest
        if let t = try FirestoreRequest.timestamp(r["readTime"], "readTime") { consistency = .readTime(t) }
        let res = try store.runQuery(
            project: db.project, database: db.database, parent: parent, query: query,
            consistency: consistency, caller: try caller(context, db))
        let docs = res.value
        var cuts: [JSON] = []
        let parts = Int(min(count, Int64(max(docs.count, 1))))
        if parts > 1 {
            for k in 1..<parts {
                let d = docs[k * docs.count / parts]
                cuts.append(["values": [["referenceValue": .string(DocumentName.full(project: db.project, database: db.database, path: d.path))]]])
            }
        }
        let (offset, size) = try Self.page(r, count: cuts.count)
        let page = Array(cuts.dropFirst(offset).prefix(size))
        var out: UTF8Dictionary<JSON> = [:]
        if !page.isEmpty { out["partitions"] = .array(page) }
        if offset + page.count < cuts.count { out["nextPageToken"] = .string(Self.pageToken(offset + page.count)) }
        return .object(out)
    }

    /// Offset and size of a page from `pageToken` (an opaque offset) and `pageSize` (0 or absent = all).
    static func page(_ r: UTF8Dictionary<JSON>, count: Int) throws -> (offset: Int, size: Int) {
        var offset = 0
        if let t = r["pageToken"]?.stringValue, !t.isEmpty {
            guard let b = Base64.decode(t), let n = Int(String(decoding: b, as: UTF8.self)), n >= 0 else {
                throw EmulatorError.invalidArgument("Invalid page token.")
            }
            offset = n
        }
        var size = count
        if let p = r["pageSize"], !p.isNull {
            guard let n = p.intValue ?? p.stringValue.flatMap({ Int64($0) }), n >= 0 else {
                throw EmulatorError.invalidArgument("pageSize must be a non-negative integer.")
            }
            if n > 0 { size = Int(n) }
        }
        return (offset, size)
    }

    /// The opaque token of the page that starts at `offset`.
    static func pageToken(_ offset: Int) -> String { Base64.encode(Array(String(offset).utf8)) }
}
