import EmulatorCore
import EmulatorHTTP
import EmulatorStorage

/// What every Storage route needs from a request: the caller, links, preconditions, query
/// numbers, bodies; and the two APIs' error shapes.
enum StorageHTTP {
    /// The most bytes a JSON body (metadata, compose, bucket) may have.
    static let maxJSONBody = 1 << 20

    /// Response headers browsers may read (the SDKs read the upload protocol's).
    static let exposedHeaders =
        "X-Goog-Upload-Status, X-Goog-Upload-URL, X-Goog-Upload-Size-Received, X-Goog-Upload-Chunk-Granularity, "
        + "X-Goog-Upload-Control-URL, X-GUploader-UploadID, X-Goog-Hash, X-Goog-Generation, X-Goog-Metageneration, Content-Range, "
        + "Content-Length, Content-Disposition, ETag, Location, Range"

    /// `http://host:port` as the client addressed us (links in metadata and upload URLs).
    static func base(_ req: HTTPRequest, _ s: EmulatorServices) -> String {
        if let host = req.headers["Host"], !host.isEmpty, !host.contains("/"), !host.contains(" ") { return "http://" + host }
        if let a = s.directory.addresses["storage"] { return "http://\(a.host):\(a.port)" }
        return "http://127.0.0.1"
    }

    /// The caller of a Firebase API request: `Authorization: Firebase <token>` (what the SDKs
    /// send) or `Bearer <token>`; `owner` is an administrator; otherwise an ID token of the
    /// bucket's project, verified by Auth.
    static func firebaseCaller(_ req: HTTPRequest, project: String, _ s: EmulatorServices) throws -> Caller {
        try CallerResolver.resolve(bearerToken: credential(req), projectId: project, services: s)
    }

    /// The token of `Authorization: Firebase <t>` or `Bearer <t>`.
    static func credential(_ req: HTTPRequest) -> String? {
        guard let value = req.headers["Authorization"] else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, ["bearer", "firebase"].contains(parts[0].lowercased()) else { return nil }
        return String(parts[1]).trimming(" \t")
    }

    /// An integer query parameter (`ifGenerationMatch=...`), 400 when it is not one.
    static func int64(_ req: HTTPRequest, _ name: String) throws -> Int64? {
        guard let v = req.query(name), !v.isEmpty else { return nil }
        guard let n = Int64(v) else { throw EmulatorError.invalidArgument("Invalid value for \(name): '\(v)' is not an integer.") }
        return n
    }

    /// The generation preconditions of the query (`prefix` "" or "Source" for copy sources).
    static func conditions(_ req: HTTPRequest, source: Bool = false) throws -> StorageConditions {
        let p = source ? "ifSource" : "if"
        return StorageConditions(
            ifGenerationMatch: try int64(req, p + "GenerationMatch"), ifGenerationNotMatch: try int64(req, p + "GenerationNotMatch"),
            ifMetagenerationMatch: try int64(req, p + "MetagenerationMatch"), ifMetagenerationNotMatch: try int64(req, p + "MetagenerationNotMatch"),
            generation: try int64(req, source ? "sourceGeneration" : "generation"))
    }

    /// A JSON object body (streamed bodies are collected up to `maxJSONBody`); empty is `{}`.
    static func jsonObject(_ req: HTTPRequest) async throws -> UTF8Dictionary<JSON> {
        var r = req
        r.body = try await req.collectBody(limit: maxJSONBody)
        r.bodyStream = nil
        return try r.jsonObjectBody()
    }

    /// The list query of both APIs (`prefix`, `delimiter`, `pageToken`, `maxResults`, offsets).
    static func listQuery(_ req: HTTPRequest) throws -> StorageListQuery {
        var q = StorageListQuery()
        q.prefix = req.query("prefix") ?? ""
        q.delimiter = req.query("delimiter").flatMap { $0.isEmpty ? nil : $0 }
        q.pageToken = req.query("pageToken").flatMap { $0.isEmpty ? nil : $0 }
        if let m = try int64(req, "maxResults") {
            guard m > 0 else { throw EmulatorError.invalidArgument("maxResults must be positive.") }
            q.maxResults = Int(min(m, 1000))
        }
        q.startOffset = req.query("startOffset").flatMap { $0.isEmpty ? nil : $0 }
        q.endOffset = req.query("endOffset").flatMap { $0.isEmpty ? nil : $0 }
        q.includeTrailingDelimiter = req.query("includeTrailingDelimiter") == "true"
        return q
    }

    /// An error in the JSON API's shape: `{"error":{"code","message","errors":[{message,domain,reason}]}}`.
    static func gcsError(_ error: any Error) -> any Error {
        restyle(error) { status in
            switch status {
            case 304: return "notModified"
            case 400: return "invalid"
            case 401: return "required"
            case 403: return "forbidden"
            case 404: return "notFound"
            case 409: return "conflict"
            case 412: return "conditionNotMet"
            case 413: return "uploadTooLarge"
            case 429: return "rateLimitExceeded"
            case 501: return "notImplemented"
            default: return status >= 500 ? "backendError" : "invalid"
            }
        }.map { EmulatorError.Style.identityToolkit(reason: $0, omitStatus: true) }
    }

    /// An error in the XML API's shape (`<Error><Code>NoSuchKey</Code>...`).
    static func xmlError(_ error: any Error) -> any Error {
        restyle(error) { status in
            switch status {
            case 304: return "NotModified"
            case 400: return "InvalidArgument"
            case 401, 403: return "AccessDenied"
            case 404: return "NoSuchKey"
            case 409: return "Conflict"
            case 412: return "PreconditionFailed"
            case 413: return "EntityTooLarge"
            case 416: return "InvalidRange"
            case 501: return "NotImplemented"
            default: return status >= 500 ? "InternalError" : "InvalidArgument"
            }
        }.map { EmulatorError.Style.xml(code: $0) }
    }

    /// Gives canonical errors (service errors, failed streamed bodies) a style chosen by status.
    private static func restyle(_ error: any Error, _ name: (Int) -> String) -> StyledError {
        guard error is EmulatorError || error is HTTPBodyError else { return StyledError(error: error, apply: nil) }
        let e = ErrorResponder.canonical(error, logger: NullLogSink())
        if case .xml = e.style { return StyledError(error: e, apply: nil) }  // already specific (SignatureDoesNotMatch)
        return StyledError(error: e, apply: name(e.status))
    }

    /// An error and the style name it is to get.
    private struct StyledError {
        var error: any Error
        var apply: String?
        func map(_ style: (String) -> EmulatorError.Style) -> any Error {
            guard let apply, var e = error as? EmulatorError else { return error }
            e.style = style(apply)
            return e
        }
    }

    /// Runs a JSON API handler, giving its errors the JSON API's shape.
    static func gcs(_ body: () async throws -> HTTPResponse) async throws -> HTTPResponse {
        do { return try await body() } catch { throw gcsError(error) }
    }

    /// A 501 naming an operation this emulator leaves out.
    static func notImplemented(_ operation: String) -> EmulatorError {
        EmulatorError(
            .unimplemented, "\(operation) is not implemented by this Cloud Storage emulator.",
            style: .identityToolkit(reason: "notImplemented", omitStatus: true))
    }

    /// Adds the CORS exposure of the upload protocol's headers.
    static func exposed(_ r: HTTPResponse) -> HTTPResponse {
        var r = r
        r.headers.set("Access-Control-Expose-Headers", exposedHeaders)
        return r
    }
}
