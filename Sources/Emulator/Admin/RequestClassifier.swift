import EmulatorHTTP
import EmulatorStorage

/// Works out which project, service and operation a routed HTTP request is, so faults can match
/// it: Auth's and Pub/Sub's routes (Pub/Sub's gRPC methods use the same names, `PubSubGRPCService`). Firestore's
/// documents routes are faulted inside `FirestoreAPI`, functions inside the functions host.
enum RequestClassifier {
    /// The project and fault target of a request, or nil for admin/status routes. Reads the
    /// matched template and the normalized path (the router's view), never the raw path.
    static func classify(
        _ req: HTTPRequest, _ requestPath: RequestPath, _ match: RouteMatch, projects: ProjectRegistry,
        storage: StorageService? = nil
    ) -> (String, FaultTarget)? {
        let template = match.template.description
        let path = "/" + requestPath.decoded.map { $0 ?? "" }.joined(separator: "/")
        if template.hasPrefix("/emulator") || template == "/" || template == "/emulators" { return nil }
        // Firestore's documents API applies faults itself, for every transport (`FirestoreAPI.applyFault`).
        if template.hasPrefix(FirestoreRESTRoutes.prefix) { return nil }
        if let pubsub = pubsubTarget(req, requestPath, match) { return pubsub }
        if template.hasPrefix("/v1/projects/") {
            // Nothing else is routed here today (Pub/Sub's routes are classified above, as `pubsub`);
            // kept as `firestore`, the service these paths belonged to.
            return (
                match.params["project"] ?? "", FaultTarget(service: "firestore", method: match.template.verb ?? req.method.lowercased(), path: "")
            )
        }
        if template.hasPrefix("/identitytoolkit.googleapis.com/") || template.hasPrefix("/securetoken.googleapis.com/")
            || template.hasPrefix("/www.googleapis.com/")
        {
            let method = match.template.verb ?? String(path.split(separator: "/").last ?? "")
            let project =
                match.params["project"] ?? match.params["targetProjectId"]
                ?? projects.projectId(forAPIKey: req.query("key") ?? req.headers["x-goog-api-key"])
            return (project, FaultTarget(service: "auth", method: method, path: path))
        }
        if let storage, let operation = StorageOperation.classify(req, match, isBucket: storage.bucketExists) {
            return (storage.project(ofBucket: operation.bucket), FaultTarget(service: "storage", method: operation.method, path: operation.path))
        }
        // Functions (callables and triggers) are matched inside the functions host, per invocation.
        return nil
    }

    /// Pub/Sub's REST routes: method the verb (`publish`, `pull`, `acknowledge`, ...) or the CRUD
    /// name (PUT create, GET get or list, PATCH update, DELETE delete); path relative to the
    /// project (`topics/orders`, `subscriptions/s`, `topics`), as PubSubGRPCService names them.
    static func pubsubTarget(_ req: HTTPRequest, _ requestPath: RequestPath, _ match: RouteMatch) -> (String, FaultTarget)? {
        let template = match.template.description
        guard
            template.hasPrefix("/v1/projects/{project}/topics") || template.hasPrefix("/v1/projects/{project}/subscriptions")
                || template.hasPrefix("/v1/projects/{project}/snapshots")
        else { return nil }
        var segments = requestPath.decoded.map { $0 ?? "" }.dropFirst(3).map { $0 }
        if match.template.verb != nil, let last = segments.last, let colon = last.lastIndex(of: ":") {
            segments[segments.count - 1] = String(last[..<colon])
        }
        let method: String
        if let verb = match.template.verb {
            method = verb
        } else {
            switch req.method {
            case "GET": method = segments.count % 2 == 0 ? "get" : "list"
            case "PUT": method = "create"
            case "PATCH": method = "update"
            case "DELETE": method = "delete"
            default: method = req.method.lowercased()
            }
        }
        return (match.params["project"] ?? "", FaultTarget(service: "pubsub", method: method, path: segments.joined(separator: "/")))
    }
}
