import EmulatorCore
import EmulatorHTTP
import EmulatorStore

/// The Firestore v1 REST surface (`/v1/projects/{p}/databases/{db}/documents...`) and the
/// emulator's document-clearing endpoints. Streaming methods answer with one JSON array, as the
/// Firestore emulator does over REST.
enum StoreRoutes {
    static let prefix = "/v1/projects/{project}/databases/{database}/documents"

    static func register(_ r: inout Router, _ s: EmulatorServices) {
        let store = s.store
        @Sendable func caller(_ req: HTTPRequest, _ m: RouteMatch) throws -> Caller {
            try CallerResolver.resolve(req, projectId: m["project"], services: s)
        }
        r.get(prefix + "/{path=**}") { req, m in
            let path = m["path"], segs = m.wildcardSegments["path"] ?? []
            if segs.count % 2 == 0 {
                let res = try store.getDocument(project: m["project"], database: m["database"], path: path,
                                                consistency: try StoreRequest.consistency(req), caller: try caller(req, m))
                return .json(res.value.json(project: m["project"], database: m["database"], mask: try StoreRequest.mask(req)))
            }
            let pageSize = try req.query("pageSize").map { v -> Int in
                guard let n = Int(v) else { throw EmulatorError.invalidArgument("pageSize must be an integer.") }
                return n
            }
            let res = try store.listDocuments(project: m["project"], database: m["database"], collection: path, pageSize: pageSize,
                                              pageToken: req.query("pageToken"), orderBy: try StoreRequest.orderBy(req.query("orderBy")),
                                              showMissing: req.query("showMissing") == "true",
                                              consistency: try StoreRequest.consistency(req), caller: try caller(req, m))
            let mask = try StoreRequest.mask(req)
            var docs = res.value.documents.map { $0.json(project: m["project"], database: m["database"], mask: mask) }
            docs += res.value.missing.map { ["name": .string(DocumentName.full(project: m["project"], database: m["database"], path: $0))] }
            var out: [String: JSON] = [:]
            if !docs.isEmpty { out["documents"] = .array(docs) }
            if let t = res.value.nextPageToken { out["nextPageToken"] = .string(t) }
            return .json(.object(out))
        }
        r.post(prefix + "/{path=**}") { req, m in
            let body = try req.jsonObjectBody()
            let doc = try store.createDocument(project: m["project"], database: m["database"], collection: m["path"],
                                               documentId: req.query("documentId"), fields: try StoreRequest.fields(body),
                                               caller: try caller(req, m))
            return .json(doc.json(project: m["project"], database: m["database"], mask: try StoreRequest.mask(req)))
        }
        r.patch(prefix + "/{path=**}") { req, m in
            let body = try req.jsonObjectBody()
            let masks = req.queryValues("updateMask.fieldPaths")
            let write = StoreWrite(path: m["path"], operation: .update(try StoreRequest.fields(body)),
                                   updateMask: masks.isEmpty ? nil : try masks.map { try FieldPath(parsing: $0) },
                                   precondition: try StoreRequest.precondition(req))
            try DocumentName.validateDocumentPathPublic(m["path"])
            let res = try store.commit(project: m["project"], database: m["database"], writes: [write], caller: try caller(req, m))
            guard let doc = res.writeResults[0].after else { throw EmulatorError.internal("update produced no document") }
            return .json(doc.json(project: m["project"], database: m["database"], mask: try StoreRequest.mask(req)))
        }
        r.delete(prefix + "/{path=**}") { req, m in
            try DocumentName.validateDocumentPathPublic(m["path"])
            _ = try store.commit(project: m["project"], database: m["database"],
                                 writes: [StoreWrite(path: m["path"], operation: .delete, precondition: try StoreRequest.precondition(req))],
                                 caller: try caller(req, m))
            return .json([:])
        }
        for base in [prefix, prefix + "/{path=**}"] {
            r.post(base + ":runQuery") { req, m in try runQuery(req, m, s) }
            r.post(base + ":runAggregationQuery") { req, m in try runAggregation(req, m, s) }
            r.post(base + ":listCollectionIds") { req, m in
                let body = try req.jsonObjectBody()
                let ids = try store.listCollectionIds(project: m["project"], database: m["database"], parent: m["path"], caller: try caller(req, m))
                // Paging by an opaque offset token, as ListDocuments.
                var offset = 0
                if let t = body["pageToken"]?.stringValue, !t.isEmpty {
                    guard let b = Base64.decode(t), let n = Int(String(decoding: b, as: UTF8.self)), n >= 0 else {
                        throw EmulatorError.invalidArgument("Invalid page token.")
                    }
                    offset = n
                }
                var size = ids.count
                if let p = body["pageSize"], !p.isNull {
                    guard let n = p.intValue, n >= 0 else { throw EmulatorError.invalidArgument("pageSize must be a non-negative integer.") }
                    if n > 0 { size = Int(n) }
                }
                let page = Array(ids.dropFirst(offset).prefix(size))
                var out: [String: JSON] = ["collectionIds": .array(page.map { .string($0) })]
                if offset + page.count < ids.count { out["nextPageToken"] = .string(Base64.encode(Array(String(offset + page.count).utf8))) }
                return .json(.object(out))
            }
            r.post(base + ":partitionQuery") { _, _ in
                throw EmulatorError.unimplemented("partitionQuery is not supported by this emulator yet.")
            }
        }
        for verb in ["listen", "write"] {
            r.post(prefix + ":" + verb) { _, _ in
                throw EmulatorError.unimplemented("documents:\(verb) is a streaming RPC only available over gRPC/WebChannel; this emulator serves the REST API.")
            }
        }
        StoreTransactionRoutes.register(&r, s)
        r.delete("/emulator/v1/projects/{project}/databases/{database}/documents") { _, m in
            try store.deleteAll(project: m["project"], database: m["database"])
            return .json([:])
        }
        r.delete("/emulator/v1/projects/{project}/databases/{database}/documents/{path=**}") { _, m in
            try store.deleteAll(project: m["project"], database: m["database"], path: m["path"])
            return .json([:])
        }
    }

    static func parent(_ m: RouteMatch) -> String { m.params["path"] ?? "" }

    static func runQuery(_ req: HTTPRequest, _ m: RouteMatch, _ s: EmulatorServices) throws -> HTTPResponse {
        let body = try req.jsonObjectBody()
        guard let q = body["structuredQuery"] else { throw EmulatorError.invalidArgument("runQuery needs a structuredQuery.") }
        let query = try StructuredQuery(json: q)
        let res = try s.store.runQuery(project: m["project"], database: m["database"], parent: parent(m), query: query,
                                       consistency: try StoreRequest.consistency(body),
                                       caller: try CallerResolver.resolve(req, projectId: m["project"], services: s))
        let readTime = JSON.string(res.readTime.rfc3339())
        var out: [JSON] = []
        if let t = res.transaction { out.append(["transaction": .string(Base64.encode(t)), "readTime": readTime]) }
        for d in res.value {
            var e: [String: JSON] = ["document": d.json(project: m["project"], database: m["database"], mask: query.select), "readTime": readTime]
            if query.offset > 0 { e["skippedResults"] = .int(Int64(query.offset)) }
            out.append(.object(e))
        }
        if case .object(var last)? = out.last, last["document"] != nil {
            last["done"] = true
            out[out.count - 1] = .object(last)
        } else {
            out.append(["readTime": readTime, "done": true])
        }
        return .json(.array(out))
    }

    static func runAggregation(_ req: HTTPRequest, _ m: RouteMatch, _ s: EmulatorServices) throws -> HTTPResponse {
        let body = try req.jsonObjectBody()
        guard let sa = body["structuredAggregationQuery"], let q = sa["structuredQuery"] else {
            throw EmulatorError.invalidArgument("runAggregationQuery needs structuredAggregationQuery.structuredQuery.")
        }
        let aggregations = try Aggregation.decodeList(sa["aggregations"])
        let res = try s.store.runQuery(project: m["project"], database: m["database"], parent: parent(m), query: try StructuredQuery(json: q),
                                       consistency: try StoreRequest.consistency(body),
                                       caller: try CallerResolver.resolve(req, projectId: m["project"], services: s))
        var fields: [String: JSON] = [:]
        for a in aggregations { fields[a.alias] = a.compute(res.value).json }
        var e: [String: JSON] = ["result": ["aggregateFields": .object(fields)], "readTime": .string(res.readTime.rfc3339()), "done": true]
        if let t = res.transaction { e["transaction"] = .string(Base64.encode(t)) }
        return .json([.object(e)])
    }
}
