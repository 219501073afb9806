import EmulatorCore
import EmulatorHTTP
import EmulatorStorage

/// Every Storage route (the Firebase API, the JSON API, the XML paths, the control plane's
/// per-bucket clear) and the streaming policy that lets uploads bypass the server's body limit.
enum StorageRoutes {
    static func register(_ r: inout Router, _ s: EmulatorServices) {
        FirebaseStorageRoutes.register(&r, s)
        GCSObjectRoutes.register(&r, s)
        GCSUploadRoutes.register(&r, s)
        StorageAdminRoutes.register(&r, s)
        StorageXMLRoutes.register(&r, s)
    }

    /// Picks the requests whose body streams to the handler (uploads), with the object size
    /// limit plus room for multipart framing and metadata; every other request keeps the
    /// server's limit. Runs on the event loop for each POST/PUT head: a prefix test, and for the
    /// XML paths a bucket lookup.
    static func streamingPolicy(_ storage: StorageService) -> HTTPBodyStreamingPolicy {
        let limit = Int(clamping: storage.options.maxObjectBytes) &+ (2 << 20)
        return { req in
            guard req.method == "POST" || req.method == "PUT" else { return nil }
            let p = req.path
            if p.hasPrefix("/v0/b/") || p.hasPrefix("/upload/storage/v1/b/") { return limit }
            if p.hasPrefix("/b/") || p.hasPrefix("/storage/v1/b/") {
                return req.query("uploadType") != nil || req.query("upload_id") != nil ? limit : nil
            }
            // XML paths: `PUT /{bucket}/{object...}` and `POST /{bucket}` of a known bucket.
            // Only the first segment and whether more follow: every Firestore REST write passes
            // here, so the path is not split whole.
            guard let (first, more) = firstSegment(p), let bucket = PercentEncoding.decode(first), storage.bucketExists(bucket) else {
                return nil
            }
            return (req.method == "PUT" && more) || (req.method == "POST" && !more) ? limit : nil
        }
    }

    /// The path's segment after its first `/` (up to the next `/`), and whether another `/`
    /// follows it; nil when the path has no `/`.
    static func firstSegment(_ path: String) -> (String, Bool)? {
        let u = path.utf8
        guard let slash = u.firstIndex(of: UInt8(ascii: "/")) else { return nil }
        let start = u.index(after: slash)
        let end = u[start...].firstIndex(of: UInt8(ascii: "/"))
        return (String(decoding: u[start..<(end ?? u.endIndex)], as: UTF8.self), end != nil)
    }
}

/// The control plane's Storage routes: the project's buckets with their sizes, and clearing one
/// bucket (`DELETE .../storage/buckets/{bucket}/objects`, no triggers). `POST
/// /emulator/v1/projects/{p}:reset` clears Storage with everything else (it is a
/// `ProjectStateParticipant`).
enum StorageAdminRoutes {
    static func register(_ r: inout Router, _ s: EmulatorServices) {
        let base = "/emulator/v1/projects/{project}/storage/buckets"
        r.get(base) { _, m in
            let p = m["project"]
            try s.projects.requireKnown(p)
            return .json([
                "buckets": .array(
                    s.storage.bucketSummaries(project: p).map { b in
                        ["name": .string(b.name), "objects": .int(Int64(b.objects)), "bytes": .int(b.bytes)]
                    })
            ])
        }
        r.delete(base + "/{bucket}/objects") { _, m in
            let bucket = m["bucket"]
            let n = try s.controlPlane.clearStorageBucket(bucket, project: m["project"])
            return .json(["bucket": .string(bucket), "deleted": .int(Int64(n))])
        }
    }
}
