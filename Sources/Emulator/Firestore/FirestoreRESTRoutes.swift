import EmulatorCore
import EmulatorHTTP
import EmulatorStore

/// The Firestore v1 REST surface (`/v1/projects/{p}/databases/{db}/documents...`), as adapters
/// over `FirestoreAPI.call` (which applies faults): each route turns its URL, query string and body into the RPC's request
/// message (following the google.api.http bindings of the Firestore protos) and encodes the answer.
/// Streaming RPCs answer with one JSON array, as the Firestore emulator does over REST. Also the
/// emulator's document-clearing endpoints.
enum FirestoreRESTRoutes {
    /// The documents root of every REST route.
    static let prefix = "/v1/projects/{project}/databases/{database}/documents"

    /// Registers the REST routes.
    static func register(_ r: inout Router, _ s: EmulatorServices) {
        let api = FirestoreAPI(services: s)
        // A document GET is answered on the event loop when its database is not locked (and no
        // fault rule exists: `EmulatorApp.handleInline`); a collection GET (ListDocuments) is not.
        r.get(prefix + "/{path=**}") { req, m in
            guard isDocument(m) else { return nil }
            var context = context(req)
            context.waitForLock = false
            return .json(bytes: try api.getDocumentReply(try getDocumentRequest(req, m), context).restJSON())
        } _: { req, m in
            if isDocument(m) { return .json(bytes: try await api.getDocumentCall(try getDocumentRequest(req, m), context(req)).restJSON()) }
            var q = try consistency(req)
            q["mask"] = mask(req)
            let path = m["path"]
            q["parent"] = .string(name(m, DocumentName.collection(of: path)))
            q["collectionId"] = .string(DocumentName.lastSegment(path))
            if let v = req.query("pageSize") {
                guard let n = Int32(v) else { throw EmulatorError.invalidArgument("pageSize must be an integer.") }
                q["pageSize"] = .int(Int64(n))
            }
            if let t = req.query("pageToken") { q["pageToken"] = .string(t) }
            if let o = req.query("orderBy") { q["orderBy"] = .string(o) }
            if req.query("showMissing") == "true" { q["showMissing"] = true }
            var page = FirestoreMessage.json([:])
            try await api.call(.listDocuments, .object(q), context(req)) { page = $0 }
            return .json(bytes: page.restJSON())
        }
        r.post(prefix + "/{path=**}") { req, m in
            let body = try req.jsonObjectBody()
            let path = m["path"]
            try DocumentName.validateCollectionPath(path)
            var q: UTF8Dictionary<JSON> = [
                "parent": .string(name(m, DocumentName.collection(of: path))),
                "collectionId": .string(DocumentName.lastSegment(path)), "document": .object(body),
            ]
            if let id = req.query("documentId") { q["documentId"] = .string(id) }
            q["mask"] = mask(req)
            return .json(bytes: try await api.createDocumentCall(.object(q), context(req)).restJSON())
        }
        r.patch(prefix + "/{path=**}") { req, m in
            var document = try req.jsonObjectBody()
            document["name"] = .string(name(m, m["path"]))
            var q: UTF8Dictionary<JSON> = ["document": .object(document)]
            let masks = req.queryValues("updateMask.fieldPaths")
            if !masks.isEmpty { q["updateMask"] = ["fieldPaths": .array(masks.map { .string($0) })] }
            q["mask"] = mask(req)
            q["currentDocument"] = try currentDocument(req)
            return .json(try await api.unary(.updateDocument, .object(q), context(req)))
        }
        r.delete(prefix + "/{path=**}") { req, m in
            var q: UTF8Dictionary<JSON> = ["name": .string(name(m, m["path"]))]
            q["currentDocument"] = try currentDocument(req)
            return .json(try await api.unary(.deleteDocument, .object(q), context(req)))
        }
        for base in [prefix, prefix + "/{path=**}"] {
            r.post(base + ":runQuery") { req, m in try await stream(req, m) { try await api.call(.runQuery, $0, context(req), emit: $1) } }
            r.post(base + ":runAggregationQuery") { req, m in
                try await stream(req, m) { try await api.call(.runAggregationQuery, $0, context(req), emit: $1) }
            }
            r.post(base + ":listCollectionIds") { req, m in .json(try await api.unary(.listCollectionIds, try withParent(req, m), context(req))) }
            r.post(base + ":partitionQuery") { req, m in .json(try await api.unary(.partitionQuery, try withParent(req, m), context(req))) }
        }
        r.post(prefix + ":batchGet") { req, m in
            var out: [FirestoreMessage] = []
            try await api.call(.batchGetDocuments, try withDatabase(req, m), context(req)) { out.append($0) }
            return .json(bytes: restArray(out))
        }
        r.post(prefix + ":beginTransaction") { req, m in .json(try await api.unary(.beginTransaction, try withDatabase(req, m), context(req))) }
        r.post(prefix + ":commit") { req, m in .json(try await api.unary(.commit, try withDatabase(req, m), context(req))) }
        r.post(prefix + ":rollback") { req, m in .json(try await api.unary(.rollback, try withDatabase(req, m), context(req))) }
        r.post(prefix + ":batchWrite") { req, m in .json(try await api.unary(.batchWrite, try withDatabase(req, m), context(req))) }
        for (verb, rpc) in [("listen", FirestoreRPC.listen), ("write", .write)] {
            r.post(prefix + ":" + verb) { _, m in
                // Faulted as the stream's first request would be, then refused.
                try await api.applyFault(rpc, ["database": .string("projects/\(m["project"])/databases/\(m["database"])")])
                throw EmulatorError.unimplemented(
                    "documents:\(verb) is a streaming RPC only available over gRPC/WebChannel; this emulator serves the REST API.")
            }
        }
        let store = s.store
        r.delete("/emulator/v1/projects/{project}/databases/{database}/documents") { _, m in
            try store.deleteAll(project: m["project"], database: m["database"])
            return .json([:])
        }
        r.delete("/emulator/v1/projects/{project}/databases/{database}/documents/{path=**}") { _, m in
            try store.deleteAll(project: m["project"], database: m["database"], path: m["path"])
            return .json([:])
        }
    }

    /// The caller's credential: the `Authorization` header's bearer token.
    static func context(_ req: HTTPRequest) -> FirestoreCallContext { FirestoreCallContext(bearerToken: req.bearerToken) }

    /// Whether a `…/documents/{path=**}` match names a document (an even number of segments)
    /// rather than a collection.
    static func isDocument(_ m: RouteMatch) -> Bool { (m.wildcardSegments["path"]?.count ?? 0) % 2 == 0 }

    /// The GetDocument request of a document GET: its name, `mask.fieldPaths`, and
    /// `transaction` or `readTime`.
    static func getDocumentRequest(_ req: HTTPRequest, _ m: RouteMatch) throws -> JSON {
        var q = try consistency(req)
        q["mask"] = mask(req)
        q["name"] = .string(name(m, m["path"]))
        return .object(q)
    }

    /// The full name of a database-relative path of the route's database.
    static func name(_ m: RouteMatch, _ path: String) -> String {
        DocumentName.full(project: m["project"], database: m["database"], path: path)
    }

    /// The body with `parent` from the URL (`…/documents` or `…/documents/{path}`).
    static func withParent(_ req: HTTPRequest, _ m: RouteMatch) throws -> JSON {
        var body = try req.jsonObjectBody()
        body["parent"] = .string(name(m, m.params["path"] ?? ""))
        return .object(body)
    }

    /// The body with `database` from the URL.
    static func withDatabase(_ req: HTTPRequest, _ m: RouteMatch) throws -> JSON {
        var body = try req.jsonObjectBody()
        body["database"] = .string("projects/\(m["project"])/databases/\(m["database"])")
        return .object(body)
    }

    /// Runs a streaming RPC and answers with the JSON array of its responses.
    static func stream(
        _ req: HTTPRequest, _ m: RouteMatch,
        _ call: (JSON, FirestoreAPI.Emit) async throws -> Void
    ) async throws -> HTTPResponse {
        var out: [FirestoreMessage] = []
        try await call(try withParent(req, m)) { out.append($0) }
        return .json(bytes: restArray(out))
    }

    /// The JSON array of a streaming RPC's messages, as `JSON.array(…).serializedBytes()` writes it,
    /// with stored documents from their cached encodings.
    static func restArray(_ messages: [FirestoreMessage]) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "[")]
        for (i, message) in messages.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            message.restJSON(into: &out)
        }
        out.append(UInt8(ascii: "]"))
        return out
    }

    /// `mask.fieldPaths` query parameters as a `DocumentMask`.
    static func mask(_ req: HTTPRequest) -> JSON? {
        let paths = req.queryValues("mask.fieldPaths")
        return paths.isEmpty ? nil : ["fieldPaths": .array(paths.map { .string($0) })]
    }

    /// `transaction` / `readTime` query parameters.
    static func consistency(_ req: HTTPRequest) throws -> UTF8Dictionary<JSON> {
        if let t = req.query("transaction") { return ["transaction": .string(t)] }
        if let r = req.query("readTime") { return ["readTime": .string(r)] }
        return [:]
    }

    /// `currentDocument.exists` / `currentDocument.updateTime` query parameters as a `Precondition`.
    static func currentDocument(_ req: HTTPRequest) throws -> JSON? {
        if let e = req.query("currentDocument.exists") {
            guard let b = Bool(e) else { throw EmulatorError.invalidArgument("currentDocument.exists must be true or false.") }
            return ["exists": .bool(b)]
        }
        if let u = req.query("currentDocument.updateTime") {
            guard Timestamp(rfc3339: u) != nil else {
                throw EmulatorError.invalidArgument("'currentDocument.updateTime' must be an RFC 3339 timestamp.")
            }
            return ["updateTime": .string(u)]
        }
        return nil
    }
}
