import EmulatorCore
import EmulatorHTTP
import EmulatorStorage

/// The Cloud Storage JSON API's objects and buckets, with and without the `/storage/v1` prefix
/// (and `/download/storage/v1` for media): what google-cloud-storage, firebase-admin, gcloud and
/// gcloud-aio-storage call. Administrators only, as in production (IAM, not Security Rules, guards
/// this API), so the Storage authorizer is not asked. Uploads are in `GCSUploadRoutes`; anything
/// left out answers 501 naming the operation.
enum GCSObjectRoutes {
    static func register(_ r: inout Router, _ s: EmulatorServices) {
        for p in ["", "/storage/v1"] {
            r.get(p + "/b") { req, _ in try await StorageHTTP.gcs { try listBuckets(req, s) } }
            r.post(p + "/b") { req, _ in try await StorageHTTP.gcs { try await insertBucket(req, s) } }
            r.get(p + "/b/{bucket}") { req, m in
                try await StorageHTTP.gcs { .json(StorageJSON.bucket(try s.storage.bucket(m["bucket"]), base: StorageHTTP.base(req, s))) }
            }
            r.delete(p + "/b/{bucket}") { req, m in
                try await StorageHTTP.gcs {
                    try s.storage.deleteBucket(m["bucket"], ifMetagenerationMatch: try StorageHTTP.int64(req, "ifMetagenerationMatch"))
                    return HTTPResponse(status: 204)
                }
            }
            r.add("*", p + "/b/{bucket}") { req, _ in
                throw StorageHTTP.notImplemented(
                    req.method == "PATCH" ? "buckets.patch" : req.method == "PUT" ? "buckets.update" : "\(req.method) on a bucket")
            }
            r.get(p + "/b/{bucket}/o") { req, m in try await StorageHTTP.gcs { try listObjects(req, m, s) } }
            r.get(p + "/b/{bucket}/o/{object=**}") { req, m in try await StorageHTTP.gcs { try get(req, m, s) } }
            r.patch(p + "/b/{bucket}/o/{object=**}") { req, m in try await StorageHTTP.gcs { try await update(req, m, s, replace: false) } }
            r.put(p + "/b/{bucket}/o/{object=**}") { req, m in try await StorageHTTP.gcs { try await update(req, m, s, replace: true) } }
            r.delete(p + "/b/{bucket}/o/{object=**}") { req, m in
                try await StorageHTTP.gcs {
                    try s.storage.delete(bucket: m["bucket"], name: m["object"], conditions: try StorageHTTP.conditions(req), caller: .admin)
                    return HTTPResponse(status: 204)
                }
            }
            r.post(p + "/b/{bucket}/o/{rest=**}") { req, m in try await StorageHTTP.gcs { try await objectAction(req, m, s) } }
            r.add("*", p + "/b/{bucket}/{rest=**}") { req, m in
                throw StorageHTTP.notImplemented("\(req.method) /b/{bucket}/\(m.wildcardSegments["rest"]?.first ?? "")")
            }
        }
        r.add("*", "/storage/v1/{rest=**}") { req, _ in throw StorageHTTP.notImplemented("\(req.method) \(req.path)") }
        r.get("/download/storage/v1/b/{bucket}/o/{object=**}") { req, m in try await StorageHTTP.gcs { try get(req, m, s) } }
    }

    /// `storage#buckets` of `?project=` (default: the emulator's project).
    static func listBuckets(_ req: HTTPRequest, _ s: EmulatorServices) throws -> HTTPResponse {
        let project = req.query("project").flatMap { $0.isEmpty ? nil : $0 } ?? s.config.projectId
        var buckets = s.storage.buckets(project: project)
        if let prefix = req.query("prefix") { buckets = buckets.filter { $0.name.hasPrefix(prefix) } }
        let base = StorageHTTP.base(req, s)
        return .json(["kind": "storage#buckets", "items": .array(buckets.map { StorageJSON.bucket($0, base: base) })])
    }

    /// buckets.insert: `{"name", "location"?, "storageClass"?}` for `?project=`.
    static func insertBucket(_ req: HTTPRequest, _ s: EmulatorServices) async throws -> HTTPResponse {
        let body = try await StorageHTTP.jsonObject(req)
        guard let name = body["name"]?.stringValue else { throw EmulatorError.invalidArgument("Required: the bucket 'name'.") }
        let project = req.query("project").flatMap { $0.isEmpty ? nil : $0 } ?? s.config.projectId
        let b = try s.storage.createBucket(
            name, project: project, location: body["location"]?.stringValue, storageClass: body["storageClass"]?.stringValue)
        return .json(StorageJSON.bucket(b, base: StorageHTTP.base(req, s)))
    }

    /// `storage#objects`: `items`, `prefixes`, `nextPageToken`.
    static func listObjects(_ req: HTTPRequest, _ m: RouteMatch, _ s: EmulatorServices) throws -> HTTPResponse {
        let page = try s.storage.list(bucket: m["bucket"], query: try StorageHTTP.listQuery(req), caller: .admin)
        let base = StorageHTTP.base(req, s)
        var out: UTF8Dictionary<JSON> = ["kind": "storage#objects"]
        if !page.items.isEmpty { out["items"] = .array(page.items.map { StorageJSON.gcs($0, base: base) }) }
        if !page.prefixes.isEmpty { out["prefixes"] = .array(page.prefixes.map { .string($0) }) }
        if let t = page.nextPageToken { out["nextPageToken"] = .string(t) }
        return .json(.object(out))
    }

    /// objects.get: metadata, or the bytes with `alt=media`.
    static func get(_ req: HTTPRequest, _ m: RouteMatch, _ s: EmulatorServices) throws -> HTTPResponse {
        let o = try s.storage.object(bucket: m["bucket"], name: m["object"], conditions: try StorageHTTP.conditions(req), caller: .admin)
        if req.query("alt") == "media" || req.path.hasPrefix("/download/") { return try StorageMedia.response(o, req, firebase: false) }
        return .json(StorageJSON.gcs(o, base: StorageHTTP.base(req, s), full: req.query("projection") == "full"))
    }

    /// objects.patch (merge) and objects.update (`replace`: fields not given are cleared).
    static func update(_ req: HTTPRequest, _ m: RouteMatch, _ s: EmulatorServices, replace: Bool) async throws -> HTTPResponse {
        let patch = try StorageJSON.patch(from: try await StorageHTTP.jsonObject(req), replace: replace)
        let o = try s.storage.update(
            bucket: m["bucket"], name: m["object"], patch: patch, conditions: try StorageHTTP.conditions(req), caller: .admin)
        return .json(StorageJSON.gcs(o, base: StorageHTTP.base(req, s), full: req.query("projection") == "full"))
    }

    /// `POST .../o/{object}/copyTo/b/{b}/o/{o}`, `.../rewriteTo/...`, `.../compose`; the rest 501.
    static func objectAction(_ req: HTTPRequest, _ m: RouteMatch, _ s: EmulatorServices) async throws -> HTTPResponse {
        let seg = m.wildcardSegments["rest"] ?? []
        let bucket = m["bucket"]
        let base = StorageHTTP.base(req, s)
        guard seg.count >= 2 else {
            if req.query("uploadType") != nil || req.query("upload_id") != nil { throw StorageHTTP.notImplemented("uploads to an object path") }
            throw StorageHTTP.notImplemented("POST on an object")
        }
        let source = seg[0]
        switch seg[1] {
        case "compose" where seg.count == 2:
            let body = try await StorageHTTP.jsonObject(req)
            guard case .array(let list)? = body["sourceObjects"] else { throw EmulatorError.invalidArgument("Required: 'sourceObjects'.") }
            let sources = try list.map { item -> StorageService.ComposeSource in
                guard let name = item["name"]?.stringValue else { throw EmulatorError.invalidArgument("Each source object needs a 'name'.") }
                return .init(
                    name: name, generation: item["generation"].flatMap(Self.int64),
                    ifGenerationMatch: item["objectPreconditions"]?["ifGenerationMatch"].flatMap(Self.int64))
            }
            let (metadata, tokens) = try StorageJSON.uploadMetadata(from: body["destination"]?.objectValue ?? [:])
            let o = try s.storage.compose(
                sources,
                into: .init(
                    bucket: bucket, name: source, metadata: metadata, downloadTokens: tokens,
                    conditions: try StorageHTTP.conditions(req)), caller: .admin)
            return .json(StorageJSON.gcs(o, base: base))
        case "copyTo" where seg.count == 6 && seg[2] == "b" && seg[4] == "o", "rewriteTo" where seg.count == 6 && seg[2] == "b" && seg[4] == "o":
            let body = try await StorageHTTP.jsonObject(req)
            var patch: ObjectMetadataPatch?
            if !body.isEmpty { patch = try StorageJSON.patch(from: body, replace: true) }
            let o = try s.storage.copy(
                from: bucket, source, sourceConditions: try StorageHTTP.conditions(req, source: true),
                to: .init(bucket: seg[3], name: seg[5], downloadTokens: patch?.downloadTokens, conditions: try StorageHTTP.conditions(req)),
                metadata: patch, caller: .admin)
            if seg[1] == "copyTo" { return .json(StorageJSON.gcs(o, base: base)) }
            // One call does all of it: `done` at once (no rewriteToken round trips).
            return .json([
                "kind": "storage#rewriteResponse", "totalBytesRewritten": .string(String(o.size)), "objectSize": .string(String(o.size)),
                "done": true, "resource": StorageJSON.gcs(o, base: base),
            ])
        case "acl":
            throw StorageHTTP.notImplemented("objectAccessControls.insert (ACLs are kept as metadata, not enforced: set 'acl' with objects.patch)")
        default:
            throw StorageHTTP.notImplemented("POST /b/{bucket}/o/{object}/\(seg[1])")
        }
    }

    /// A generation given as a JSON string or number.
    static func int64(_ v: JSON) -> Int64? { v.intValue ?? v.stringValue.flatMap { Int64($0) } }
}
