import EmulatorHTTP

/// Names the Storage operation of a routed request, for fault injection (`match.service:
/// "storage"`, `match.method`, `match.path` = `bucket/object`): `get`, `download`, `list`,
/// `upload`, `update`, `delete`, `copy`, `rewrite`, `compose`, `createToken`, `deleteToken`,
/// `getBucket`, `listBuckets`, `createBucket`, `deleteBucket`.
struct StorageOperation {
    /// The operation name.
    var method: String
    /// The bucket.
    var bucket: String
    /// `bucket/object` (or `bucket`).
    var path: String

    /// The operation of `req`, or nil when the route is not a Storage one (an XML-style path is
    /// Storage's only when `isBucket` says its first segment is a bucket).
    static func classify(_ req: HTTPRequest, _ match: RouteMatch, isBucket: (String) -> Bool) -> StorageOperation? {
        let t = match.template.description
        let bucket = match.params["bucket"] ?? ""
        let object = match.params["object"] ?? match.wildcardSegments["rest"]?.first
        let path = object.map { "\(bucket)/\($0)" } ?? bucket
        func op(_ m: String) -> StorageOperation { StorageOperation(method: m, bucket: bucket, path: path) }
        let firebase = t.hasPrefix("/v0/")
        let gcs = t.hasPrefix("/b") || t.hasPrefix("/storage/v1/b") || t.hasPrefix("/upload/storage/v1/b") || t.hasPrefix("/download/storage/v1/b")
        let xml = t == "/{bucket}/{object=**}" || t == "/{bucket}"
        guard firebase || gcs || (xml && isBucket(bucket)) else { return nil }
        if t.hasSuffix("/b") { return op(req.method == "POST" ? "createBucket" : "listBuckets") }
        if t.hasSuffix("/b/{bucket}") { return op(req.method == "DELETE" ? "deleteBucket" : "getBucket") }
        if t.hasSuffix("{rest=**}"), let action = match.wildcardSegments["rest"]?.dropFirst().first {
            return op(action == "copyTo" ? "copy" : action == "rewriteTo" ? "rewrite" : action)
        }
        let media = req.query("alt") == "media" || t.hasPrefix("/download/") || xml
        switch req.method {
        case "GET", "HEAD":
            return op(object == nil && !xml ? "list" : media ? "download" : "get")
        case "PATCH":
            return op("update")
        case "DELETE":
            return op(req.query("upload_id") != nil ? "upload" : "delete")
        default:
            if req.headers["X-HTTP-Method-Override"]?.uppercased() == "PATCH" { return op("update") }
            if req.query("create_token") != nil { return op("createToken") }
            if req.query("delete_token") != nil { return op("deleteToken") }
            if t.hasPrefix("/b/{bucket}/o") || t.hasPrefix("/storage/v1/b/{bucket}/o"), req.method == "PUT", object != nil { return op("update") }
            return op("upload")
        }
    }
}
