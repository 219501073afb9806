import EmulatorCore
import EmulatorHTTP
import EmulatorStorage

/// The XML-style paths that V4 signed URLs and POST policies use: `GET`/`HEAD`/`PUT`/`DELETE
/// /{bucket}/{object...}` and `POST /{bucket}` (multipart/form-data). Signatures are checked only
/// with `storage.signedUrls: "verify"` (`SignedRequest`). Errors are XML, as the XML API's are.
///
/// Paths of three or more segments are also the functions' (`/{project}/{region}/{name}`): the
/// functions route hands a request here when no function matches and the first segment names a
/// bucket (`FunctionsRoutes.invoke`).
enum StorageXMLRoutes {
    static func register(_ r: inout Router, _ s: EmulatorServices) {
        // One route for every method (listing GET, PUT and DELETE separately would add them to
        // the `Allow` of every other path's 405); paths whose first segment is not a bucket get the
        // router's own 404.
        r.add("*", "/{bucket}/{object=**}") { req, m in
            guard claims(req, bucket: m["bucket"], s), ["GET", "HEAD", "PUT", "DELETE"].contains(req.method) else { throw noRoute(req) }
            return try await serve(req, bucket: m["bucket"], object: m["object"], s)
        }
        r.post("/{bucket}") { req, m in
            guard claims(req, bucket: m["bucket"], s) else { throw noRoute(req) }
            return try await xml { try await postPolicy(req, bucket: m["bucket"], s) }
        }
    }

    /// The answer for paths that are not Storage's (as the router gives it).
    static func noRoute(_ req: HTTPRequest) -> EmulatorError { .notFound("No route for \(req.method) \(req.path).") }

    /// Whether a request on an XML-style path is Storage's: its first segment is a bucket.
    static func claims(_ req: HTTPRequest, bucket: String, _ s: EmulatorServices) -> Bool {
        s.storage.bucketExists(bucket)
    }

    /// Runs a handler, giving its errors the XML API's shape.
    static func xml(_ body: () async throws -> HTTPResponse) async throws -> HTTPResponse {
        do { return try await body() } catch { throw StorageHTTP.xmlError(error) }
    }

    /// One object request on the XML path.
    static func serve(_ req: HTTPRequest, bucket: String, object: String, _ s: EmulatorServices) async throws -> HTTPResponse {
        try await xml {
            if s.storage.options.verifySignedURLs {
                try SignedRequest.verifyURL(
                    req, bucket: bucket, object: object, signers: s.auth.customTokenSigners,
                    now: s.projects.environment(for: s.storage.project(ofBucket: bucket)).clock.now())
            }
            let conditions = StorageConditions(
                ifGenerationMatch: try header(req, "x-goog-if-generation-match"),
                ifMetagenerationMatch: try header(req, "x-goog-if-metageneration-match"),
                generation: try StorageHTTP.int64(req, "generation"))
            switch req.method {
            case "PUT":
                var metadata = ObjectMetadata(
                    contentType: req.headers["Content-Type"], contentEncoding: req.headers["Content-Encoding"],
                    contentDisposition: req.headers["Content-Disposition"], contentLanguage: req.headers["Content-Language"],
                    cacheControl: req.headers["Cache-Control"])
                for (name, value) in req.headers where name.lowercased().hasPrefix("x-goog-meta-") {
                    metadata.custom[String(name.dropFirst(12)).lowercased()] = value
                }
                let target = StorageService.UploadTarget(bucket: bucket, name: object, metadata: metadata, conditions: conditions)
                try s.storage.prepare(target)
                let upload = try s.storage.startUpload()
                try await StorageUploadBody.receive(req, into: upload)
                let o = try s.storage.store(upload, as: target, caller: .admin)
                var r = HTTPResponse(status: 200)
                r.headers.set("ETag", "\"\(SignedRequest.hex(o.blob.md5))\"")
                r.headers.set("X-Goog-Generation", String(o.generation))
                r.headers.set("X-Goog-Metageneration", String(o.metageneration))
                r.headers.set("X-Goog-Hash", "crc32c=\(o.crc32cBase64),md5=\(o.md5Base64)")
                return r
            case "DELETE":
                try s.storage.delete(bucket: bucket, name: object, conditions: conditions, caller: .admin)
                return HTTPResponse(status: 204)
            default:
                let o = try s.storage.object(bucket: bucket, name: object, conditions: conditions, caller: .admin)
                var r = try StorageMedia.response(o, req, firebase: false)
                r.headers.set("ETag", "\"\(SignedRequest.hex(o.blob.md5))\"")
                for (k, v) in o.metadata.custom { r.headers.set("x-goog-meta-" + k, v) }
                return r
            }
        }
    }

    static func header(_ req: HTTPRequest, _ name: String) throws -> Int64? {
        guard let v = req.headers[name] else { return nil }
        guard let n = Int64(v) else { throw EmulatorError.invalidArgument("\(name) must be an integer.") }
        return n
    }

    /// A POST policy upload: form fields (`key`, `Content-Type`, `x-goog-meta-*`,
    /// `success_action_status`, the policy and its signature), then the `file` part, streamed.
    static func postPolicy(_ req: HTTPRequest, bucket: String, _ s: EmulatorServices) async throws -> HTTPResponse {
        guard let type = req.headers["Content-Type"], type.lowercased().hasPrefix("multipart/form-data"),
            let boundary = MultipartStreamParser.boundary(fromContentType: type)
        else {
            throw EmulatorError.invalidArgument("A POST policy upload needs Content-Type: multipart/form-data; boundary=...")
        }
        var parser: MultipartStreamParser
        do { parser = try MultipartStreamParser(boundary: boundary, maxParts: 64) } catch { throw EmulatorError.invalidArgument(error.description) }
        var fields: [String: String] = [:]
        var current: (name: String, filename: String?)?
        var value: [UInt8] = []
        var fileName: String?
        var fileType: String?
        var upload: StorageUpload?
        var fileDone = false
        func handle(_ events: [MultipartStreamParser.Event]) throws {
            for e in events {
                switch e {
                case .partStart(let headers):
                    let d = disposition(headers.value("Content-Disposition") ?? "")
                    current = d
                    value = []
                    if d.name == "file" && !fileDone {
                        fileName = d.filename
                        fileType = headers.value("Content-Type")
                        upload = try s.storage.startUpload()
                    }
                case .content(let bytes):
                    if current?.name == "file", !fileDone, let upload {
                        try upload.append(bytes)
                    } else {
                        guard value.count + bytes.count <= 64 * 1024 else { throw EmulatorError.invalidArgument("A form field exceeds 64 KiB.") }
                        value += bytes
                    }
                case .partEnd:
                    if let c = current {
                        if c.name == "file" {
                            fileDone = true
                        } else if !fileDone {
                            fields[c.name.lowercased()] = String(decoding: value, as: UTF8.self)
                        }
                    }
                    current = nil
                case .end: break
                }
            }
        }
        do {
            if let reader = req.bodyStream {
                while let chunk = try await reader.read() { try handle(try parser.feed(chunk)) }
            } else {
                try handle(try parser.feed(req.body))
            }
            try parser.finish()
        } catch let e as MultipartError {
            throw EmulatorError.invalidArgument("Invalid form upload body: \(e.description).")
        }
        guard let upload, fileDone else { throw EmulatorError.invalidArgument("The form has no 'file' field.") }
        guard var key = fields["key"], !key.isEmpty else { throw EmulatorError.invalidArgument("The form has no 'key' field.") }
        key = key.replacing("${filename}", with: fileName ?? "")
        if s.storage.options.verifySignedURLs {
            try SignedRequest.verifyPolicy(
                fields, bucket: bucket, key: key, size: upload.size, signers: s.auth.customTokenSigners,
                now: s.projects.environment(for: s.storage.project(ofBucket: bucket)).clock.now())
        }
        var metadata = ObjectMetadata(
            contentType: fields["content-type"] ?? fileType, contentEncoding: fields["content-encoding"],
            contentDisposition: fields["content-disposition"], cacheControl: fields["cache-control"])
        for (k, v) in fields where k.hasPrefix("x-goog-meta-") { metadata.custom[String(k.dropFirst(12))] = v }
        let o = try s.storage.store(upload, as: .init(bucket: bucket, name: key, metadata: metadata), caller: .admin)
        let etag = "\"\(SignedRequest.hex(o.blob.md5))\""
        switch fields["success_action_status"] {
        case "201"?:
            let location = StorageHTTP.base(req, s) + "/\(PercentEncoding.encode(bucket))/\(PercentEncoding.encode(key))"
            func x(_ t: String) -> String { t.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing(">", with: "&gt;") }
            var r = HTTPResponse.text(
                "<?xml version='1.0' encoding='UTF-8'?><PostResponse><Location>\(x(location))</Location><Bucket>\(x(bucket))</Bucket>"
                    + "<Key>\(x(key))</Key><ETag>\(x(etag))</ETag></PostResponse>", status: 201, contentType: "application/xml; charset=UTF-8")
            r.headers.set("ETag", etag)
            return r
        case "200"?:
            var r = HTTPResponse(status: 200)
            r.headers.set("ETag", etag)
            return r
        default:
            var r = HTTPResponse(status: 204)
            r.headers.set("ETag", etag)
            return r
        }
    }

    /// `form-data; name="x"; filename="y"` → (x, y).
    static func disposition(_ value: String) -> (name: String, filename: String?) {
        var name = "", filename: String?
        for param in value.split(separator: ";").dropFirst() {
            let kv = param.split(separator: "=", maxSplits: 1)
            guard kv.count == 2 else { continue }
            var v = kv[1].trimming(" \t")
            if v.count >= 2, v.hasPrefix("\""), v.hasSuffix("\"") { v = String(v.dropFirst().dropLast()) }
            switch kv[0].trimming(" \t").lowercased() {
            case "name": name = v
            case "filename": filename = v
            default: break
            }
        }
        return (name, filename)
    }
}
