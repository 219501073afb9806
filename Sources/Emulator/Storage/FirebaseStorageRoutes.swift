import EmulatorCore
import EmulatorHTTP
import EmulatorStorage

/// The Firebase Storage API (`/v0`), as the JS, iOS, Android and Flutter SDKs call it: metadata,
/// downloads (`alt=media`, ranges, `token=`), lists, media/multipart/resumable uploads, metadata
/// updates (PATCH, or POST/PUT with `X-HTTP-Method-Override: PATCH`), deletes and download-token
/// management. Client operations pass the Storage authorizer hook (`Bearer owner` and
/// `Firebase owner` skip it); errors use the Google shape the SDKs map to `storage/*` codes.
enum FirebaseStorageRoutes {
    static func register(_ r: inout Router, _ s: EmulatorServices) {
        r.get("/v0/") { _, _ in .json(["emulator": "storage"]) }
        r.get("/v0/b/{bucket}/o") { req, m in try list(req, m, s) }
        r.get("/v0/b/{bucket}/o/{object=**}") { req, m in try get(req, m, s) }
        for method in ["POST", "PUT"] {
            r.add(method, "/v0/b/{bucket}/o") { req, m in try await upload(req, m, s, pathName: nil) }
            r.add(method, "/v0/b/{bucket}/o/{object=**}") { req, m in
                if req.headers["X-HTTP-Method-Override"]?.uppercased() == "PATCH" { return try await update(req, m, s) }
                if req.query("create_token") != nil || req.query("delete_token") != nil { return try tokens(req, m, s) }
                return try await upload(req, m, s, pathName: m["object"])
            }
        }
        r.patch("/v0/b/{bucket}/o/{object=**}") { req, m in try await update(req, m, s) }
        r.delete("/v0/b/{bucket}/o/{object=**}") { req, m in
            let bucket = m["bucket"]
            let caller = try StorageHTTP.firebaseCaller(req, project: s.storage.project(ofBucket: bucket), s)
            try s.storage.delete(bucket: bucket, name: m["object"], caller: caller)
            return StorageHTTP.exposed(HTTPResponse(status: 204))
        }
    }

    static func caller(_ req: HTTPRequest, _ bucket: String, _ s: EmulatorServices) throws -> Caller {
        try StorageHTTP.firebaseCaller(req, project: s.storage.project(ofBucket: bucket), s)
    }

    static func metadataResponse(_ o: StorageObject, status: Int = 200) -> HTTPResponse {
        StorageHTTP.exposed(.json(StorageJSON.firebase(o), status: status))
    }

    /// Metadata (a token is created when the object has none), or the bytes with `alt=media`,
    /// where a valid `token=` stands in for credentials.
    static func get(_ req: HTTPRequest, _ m: RouteMatch, _ s: EmulatorServices) throws -> HTTPResponse {
        let bucket = m["bucket"], name = m["object"]
        if req.query("alt") == "media" {
            let o: StorageObject
            if let token = req.query("token") {
                o = try s.storage.object(bucket: bucket, name: name, downloadToken: token)
            } else {
                o = try s.storage.object(bucket: bucket, name: name, caller: try caller(req, bucket, s))
            }
            return try StorageMedia.response(o, req, firebase: true)
        }
        let o = try s.storage.object(bucket: bucket, name: name, caller: try caller(req, bucket, s))
        return metadataResponse(s.storage.ensureDownloadToken(o))
    }

    /// `{prefixes, items:[{name,bucket}], nextPageToken}`.
    static func list(_ req: HTTPRequest, _ m: RouteMatch, _ s: EmulatorServices) throws -> HTTPResponse {
        let bucket = m["bucket"]
        let page = try s.storage.list(bucket: bucket, query: try StorageHTTP.listQuery(req), caller: try caller(req, bucket, s))
        var out: UTF8Dictionary<JSON> = [
            "prefixes": .array(page.prefixes.map { .string($0) }),
            "items": .array(page.items.map { ["name": .string($0.name), "bucket": .string($0.bucket)] }),
        ]
        if let t = page.nextPageToken { out["nextPageToken"] = .string(t) }
        return StorageHTTP.exposed(.json(.object(out)))
    }

    /// A metadata update: fields given replace, `null` removes, others stay.
    static func update(_ req: HTTPRequest, _ m: RouteMatch, _ s: EmulatorServices) async throws -> HTTPResponse {
        let bucket = m["bucket"]
        let patch = try StorageJSON.patch(from: try await StorageHTTP.jsonObject(req))
        let o = try s.storage.update(bucket: bucket, name: m["object"], patch: patch, caller: try caller(req, bucket, s))
        return metadataResponse(o)
    }

    /// `create_token=true` / `delete_token=T` (administrators only).
    static func tokens(_ req: HTTPRequest, _ m: RouteMatch, _ s: EmulatorServices) throws -> HTTPResponse {
        let bucket = m["bucket"], name = m["object"]
        let who = try caller(req, bucket, s)
        if let token = req.query("delete_token") {
            return metadataResponse(try s.storage.deleteDownloadToken(bucket: bucket, name: name, token: token, caller: who))
        }
        return metadataResponse(try s.storage.createDownloadToken(bucket: bucket, name: name, caller: who))
    }

    /// Uploads: `X-Goog-Upload-Protocol` multipart, resumable (or a session's `upload_id`), or
    /// none (the body is the media, typed by Content-Type).
    static func upload(_ req: HTTPRequest, _ m: RouteMatch, _ s: EmulatorServices, pathName: String?) async throws -> HTTPResponse {
        let bucket = m["bucket"]
        if let id = req.query("upload_id") { return try await resumable(req, id: id, bucket: bucket, s) }
        let who = try caller(req, bucket, s)
        let queryName = req.query("name").flatMap { $0.isEmpty ? nil : $0 } ?? pathName
        switch req.headers["X-Goog-Upload-Protocol"]?.lowercased() {
        case "resumable"?:
            let commands = try commandsOf(req)
            guard commands == .start else { throw EmulatorError.invalidArgument("A resumable upload starts with X-Goog-Upload-Command: start.") }
            let body = try await StorageHTTP.jsonObject(req)
            var (metadata, tokens) = try StorageJSON.uploadMetadata(from: body)
            if metadata.contentType == nil { metadata.contentType = req.headers["X-Goog-Upload-Header-Content-Type"] }
            guard let name = queryName ?? body["name"]?.stringValue ?? body["fullPath"]?.stringValue else { throw missingName() }
            let size = try req.headers["X-Goog-Upload-Header-Content-Length"].map { v -> Int64 in
                guard let n = UploadProtocolHeaders.number(Substring(v)) else {
                    throw EmulatorError.invalidArgument("X-Goog-Upload-Header-Content-Length must be a number.")
                }
                return n
            }
            let target = StorageService.UploadTarget(bucket: bucket, name: name, metadata: metadata, downloadTokens: tokens, firebase: true)
            let id = try s.storage.startSession(target, expectedSize: size, caller: who)
            let url =
                StorageHTTP.base(req, s)
                + "/v0/b/\(PercentEncoding.encode(bucket))/o?name=\(PercentEncoding.encode(name))&upload_id=\(id)&upload_protocol=resumable"
            var r = HTTPResponse(status: 200)
            r.headers.set("X-Goog-Upload-Status", "active")
            r.headers.set("X-Goog-Upload-URL", url)
            r.headers.set("X-Goog-Upload-Control-URL", url)
            r.headers.set("X-GUploader-UploadID", id)
            r.headers.set("X-Goog-Upload-Chunk-Granularity", "262144")
            return StorageHTTP.exposed(r)
        case "multipart"?:
            let part = try await StorageUploadBody.multipart(req, s.storage)
            var (metadata, tokens) = try StorageJSON.uploadMetadata(from: part.metadata)
            if metadata.contentType == nil { metadata.contentType = part.mediaType }
            guard let name = queryName ?? part.metadata["name"]?.stringValue ?? part.metadata["fullPath"]?.stringValue else { throw missingName() }
            let o = try s.storage.store(
                part.upload, as: .init(bucket: bucket, name: name, metadata: metadata, downloadTokens: tokens, firebase: true), caller: who)
            return metadataResponse(o)
        case nil, "raw"?, "media"?:
            guard let name = queryName else { throw missingName() }
            let target = StorageService.UploadTarget(
                bucket: bucket, name: name, metadata: ObjectMetadata(contentType: req.headers["Content-Type"]), firebase: true)
            try s.storage.prepare(target)
            let upload = try s.storage.startUpload()
            try await StorageUploadBody.receive(req, into: upload)
            return metadataResponse(try s.storage.store(upload, as: target, caller: who))
        case let other?:
            throw EmulatorError.invalidArgument("Unknown X-Goog-Upload-Protocol '\(other)' (expected multipart or resumable).")
        }
    }

    static func missingName() -> EmulatorError { .invalidArgument("The upload needs an object name (?name=...).") }

    static func commandsOf(_ req: HTTPRequest) throws -> UploadProtocolHeaders.UploadCommands {
        guard let text = req.headers["X-Goog-Upload-Command"] else { throw EmulatorError.invalidArgument("X-Goog-Upload-Command is missing.") }
        do { return try UploadProtocolHeaders.uploadCommands(text) } catch { throw EmulatorError.invalidArgument(error.description) }
    }

    /// A command on a session: `upload[, finalize]` (at `X-Goog-Upload-Offset`), `finalize`,
    /// `query` or `cancel`.
    static func resumable(_ req: HTTPRequest, id: String, bucket: String, _ s: EmulatorServices) async throws -> HTTPResponse {
        let commands = try commandsOf(req)
        func answer(_ status: String, received: Int64, object: StorageObject? = nil) -> HTTPResponse {
            var r = object.map { HTTPResponse.json(StorageJSON.firebase($0)) } ?? HTTPResponse(status: 200)
            r.headers.set("X-Goog-Upload-Status", status)
            r.headers.set("X-Goog-Upload-Size-Received", String(received))
            return StorageHTTP.exposed(r)
        }
        if commands == .query {
            let st = try s.storage.sessionStatus(id)
            return answer(st.object != nil ? "final" : st.cancelled ? "cancelled" : "active", received: st.received)
        }
        if commands == .cancel {
            try s.storage.cancelSession(id)
            return answer("cancelled", received: try s.storage.sessionStatus(id).received)
        }
        let who = try caller(req, bucket, s)
        if commands == .finalize {
            let o = try s.storage.finalizeSession(id, nil, caller: who)
            return answer("final", received: o.size, object: s.storage.ensureDownloadToken(o))
        }
        guard commands.contains(.upload) else { throw EmulatorError.invalidArgument("A session takes upload, finalize, query or cancel.") }
        if case .some = try s.storage.sessionStatus(id).object, commands.contains(.finalize) {
            // Finalized already: the same answer again, whatever the body.
            let o = try s.storage.finalizeSession(id, nil, caller: who)
            return answer("final", received: o.size, object: o)
        }
        let (upload, status) = try s.storage.checkOutSession(id)
        var skip: Int64 = 0
        if let v = req.headers["X-Goog-Upload-Offset"] {
            guard let offset = UploadProtocolHeaders.number(Substring(v)), offset <= status.received else {
                s.storage.checkInSession(id, upload)
                throw EmulatorError.invalidArgument("X-Goog-Upload-Offset '\(v)' is not the bytes received so far (\(status.received)).")
            }
            skip = status.received - offset
        }
        do {
            try await StorageUploadBody.receive(req, into: upload, skip: skip)
        } catch {
            s.storage.checkInSession(id, upload)  // what arrived is kept: the client queries and resumes
            throw error
        }
        if commands.contains(.finalize) {
            let o = try s.storage.finalizeSession(id, upload, caller: who)
            return answer("final", received: o.size, object: o)
        }
        s.storage.checkInSession(id, upload)
        return answer("active", received: upload.size)
    }
}
