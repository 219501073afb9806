import EmulatorCore
import EmulatorHTTP
import EmulatorStorage

/// objects.insert of the JSON API (`/upload/storage/v1/b/{b}/o`, also without the prefix):
/// `uploadType=media`, `multipart` and `resumable`, whose session URL takes chunks with
/// `Content-Range` (`308 Resume Incomplete` and `Range` until the last one), status probes
/// (`bytes */total`), resends (the overlap is skipped) and `DELETE` to cancel.
enum GCSUploadRoutes {
    static func register(_ r: inout Router, _ s: EmulatorServices) {
        for p in ["/upload/storage/v1", "", "/storage/v1"] {
            r.post(p + "/b/{bucket}/o") { req, m in try await StorageHTTP.gcs { try await insert(req, m, s, prefix: p) } }
            r.put(p + "/b/{bucket}/o") { req, m in
                try await StorageHTTP.gcs {
                    guard let id = req.query("upload_id") else {
                        throw EmulatorError.invalidArgument("PUT on the objects collection needs an upload_id (a resumable session).")
                    }
                    return try await chunk(req, id: id, s)
                }
            }
            r.delete(p + "/b/{bucket}/o") { req, _ in
                try await StorageHTTP.gcs {
                    guard let id = req.query("upload_id") else {
                        throw EmulatorError.invalidArgument("DELETE on the objects collection needs an upload_id.")
                    }
                    try s.storage.cancelSession(id)
                    // What Cloud Storage answers a cancelled session.
                    return .json(["error": ["code": 499, "message": "Client Closed Request"]], status: 499)
                }
            }
        }
    }

    /// objects.insert by `uploadType` (a session's `upload_id` continues it instead).
    static func insert(_ req: HTTPRequest, _ m: RouteMatch, _ s: EmulatorServices, prefix: String) async throws -> HTTPResponse {
        if let id = req.query("upload_id") { return try await chunk(req, id: id, s) }
        let bucket = m["bucket"]
        let base = StorageHTTP.base(req, s)
        let conditions = try StorageHTTP.conditions(req)
        let queryName = req.query("name").flatMap { $0.isEmpty ? nil : $0 }
        var type = req.query("uploadType")
        if type == nil { type = req.headers["Content-Type"]?.lowercased().hasPrefix("multipart/") == true ? "multipart" : "media" }
        switch type {
        case "media":
            guard let name = queryName else { throw EmulatorError.invalidArgument("Required: the object 'name' (?name=...).") }
            var metadata = ObjectMetadata(contentType: req.headers["Content-Type"])
            metadata.contentEncoding = req.query("contentEncoding")
            let target = StorageService.UploadTarget(bucket: bucket, name: name, metadata: metadata, conditions: conditions)
            try s.storage.prepare(target)
            try conditions.check(try? s.storage.object(bucket: bucket, name: name, caller: .admin))
            let upload = try s.storage.startUpload()
            try await StorageUploadBody.receive(req, into: upload)
            return .json(StorageJSON.gcs(try s.storage.store(upload, as: target, caller: .admin), base: base))
        case "multipart":
            let part = try await StorageUploadBody.multipart(req, s.storage)
            var (metadata, tokens) = try StorageJSON.uploadMetadata(from: part.metadata)
            if metadata.contentType == nil { metadata.contentType = part.mediaType }
            if metadata.contentEncoding == nil { metadata.contentEncoding = req.query("contentEncoding") }
            guard let name = queryName ?? part.metadata["name"]?.stringValue else {
                throw EmulatorError.invalidArgument("Required: the object 'name'.")
            }
            let o = try s.storage.store(
                part.upload, as: .init(bucket: bucket, name: name, metadata: metadata, downloadTokens: tokens, conditions: conditions), caller: .admin
            )
            return .json(StorageJSON.gcs(o, base: base))
        case "resumable":
            let body = try await StorageHTTP.jsonObject(req)
            var (metadata, tokens) = try StorageJSON.uploadMetadata(from: body)
            if metadata.contentType == nil { metadata.contentType = req.headers["X-Upload-Content-Type"] }
            if metadata.contentEncoding == nil { metadata.contentEncoding = req.query("contentEncoding") }
            guard let name = queryName ?? body["name"]?.stringValue else { throw EmulatorError.invalidArgument("Required: the object 'name'.") }
            let size = try req.headers["X-Upload-Content-Length"].map { v -> Int64 in
                guard let n = UploadProtocolHeaders.number(Substring(v)) else {
                    throw EmulatorError.invalidArgument("X-Upload-Content-Length must be a number.")
                }
                return n
            }
            let target = StorageService.UploadTarget(bucket: bucket, name: name, metadata: metadata, downloadTokens: tokens, conditions: conditions)
            let id = try s.storage.startSession(target, expectedSize: size, caller: .admin)
            let path = prefix == "/storage/v1" ? "/upload/storage/v1" : prefix
            var r = HTTPResponse(status: 200)
            r.headers.set(
                "Location",
                "\(base)\(path)/b/\(PercentEncoding.encode(bucket))/o?uploadType=resumable&name=\(PercentEncoding.encode(name))&upload_id=\(id)")
            r.headers.set("X-GUploader-UploadID", id)
            return StorageHTTP.exposed(r)
        default:
            throw EmulatorError.invalidArgument("Unknown uploadType '\(type ?? "")' (expected media, multipart or resumable).")
        }
    }

    /// A request on a resumable session: a chunk, the last chunk, or a status probe.
    static func chunk(_ req: HTTPRequest, id: String, _ s: EmulatorServices) async throws -> HTTPResponse {
        let base = StorageHTTP.base(req, s)
        let range: UploadProtocolHeaders.ContentRange?
        do throws(UploadHeaderError) {
            if let text = req.headers["Content-Range"] { range = try UploadProtocolHeaders.contentRange(text) } else { range = nil }
        } catch {
            throw EmulatorError.invalidArgument(error.description)
        }
        let status = try s.storage.sessionStatus(id)
        if let o = status.object { return .json(StorageJSON.gcs(o, base: base)) }  // finished: the same answer again
        if status.cancelled { return .json(["error": ["code": 499, "message": "Client Closed Request"]], status: 499) }
        if let failure = status.failure { throw failure }
        func incomplete(_ received: Int64) -> HTTPResponse {
            var r = HTTPResponse(status: 308)
            if received > 0 { r.headers.set("Range", "bytes=0-\(received - 1)") }
            r.headers.set("X-GUploader-UploadID", id)
            return StorageHTTP.exposed(r)
        }
        func finish(_ upload: StorageUpload?) throws -> HTTPResponse {
            .json(StorageJSON.gcs(try s.storage.finalizeSession(id, upload, caller: .admin), base: base))
        }
        switch range {
        case .probe(let total)?:
            // `bytes */N` with everything received finalizes; otherwise it reports the progress.
            if let total, total == status.received { return try finish(nil) }
            return incomplete(status.received)
        case .bytes(let first, _, _)? where first > status.received:
            // A gap: the client learns what arrived and resends from there.
            return incomplete(status.received)
        default:
            break
        }
        let (upload, current) = try s.storage.checkOutSession(id)
        var skip: Int64 = 0
        var total: Int64?
        if case .bytes(let first, _, let t)? = range {
            skip = current.received - first
            total = t
        } else {
            // No Content-Range: the body is the whole object.
            guard current.received == 0 else {
                s.storage.checkInSession(id, upload)
                throw EmulatorError.invalidArgument("A chunk of a started upload needs Content-Range.")
            }
        }
        do {
            try await StorageUploadBody.receive(req, into: upload, skip: skip)
        } catch {
            s.storage.checkInSession(id, upload)  // what arrived is kept: the client probes and resumes
            throw error
        }
        if range == nil || (total.map { upload.size >= $0 } ?? false) {
            if let total, upload.size != total {
                s.storage.checkInSession(id, upload)
                throw EmulatorError.invalidArgument("The upload has \(upload.size) bytes but Content-Range announced \(total).")
            }
            return try finish(upload)
        }
        s.storage.checkInSession(id, upload)
        return incomplete(upload.size)
    }
}
