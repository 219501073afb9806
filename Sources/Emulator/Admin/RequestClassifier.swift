import EmulatorHTTP
import EmulatorStorage

/// Works out which project, service and operation a routed HTTP request is, so faults can match
/// it: Auth's routes (and Pub/Sub's `:publish`, matched as `firestore` as before). Firestore's
/// documents routes are faulted inside `FirestoreAPI`, functions inside the functions host.
enum RequestClassifier {
    /// The project and fault target of a request, or nil for admin/status routes. Reads the
    /// matched template and the normalized path (the router's view), never the raw path.
    static func classify(_ req: HTTPRequest, _ requestPath: RequestPath, _ match: RouteMatch, projects: ProjectRegistry,
                         storage: StorageService? = nil) -> (String, FaultTarget)? {
        let template = match.template.description
        let path = "/" + requestPath.decoded.map { $0 ?? "" }.joined(separator: "/")
        if template.hasPrefix("/emulator") || template == "/" || template == "/emulators" { return nil }
        // Firestore's documents API applies faults itself, for every transport (`FirestoreAPI.applyFault`).
        if template.hasPrefix(FirestoreRESTRoutes.prefix) { return nil }
        if template.hasPrefix("/v1/projects/") {
            // Pub/Sub's `:publish`, the one other route here: matched as `firestore` (as before the
            // documents routes moved into `FirestoreAPI`).
            return (match.params["project"] ?? "", FaultTarget(service: "firestore", method: match.template.verb ?? req.method.lowercased(), path: ""))
        }
        if template.hasPrefix("/identitytoolkit.googleapis.com/") || template.hasPrefix("/securetoken.googleapis.com/")
            || template.hasPrefix("/www.googleapis.com/")
        {
            let method = match.template.verb ?? String(path.split(separator: "/").last ?? "")
            let project = match.params["project"] ?? match.params["targetProjectId"]
                ?? projects.projectId(forAPIKey: req.query("key") ?? req.headers["x-goog-api-key"])
            return (project, FaultTarget(service: "auth", method: method, path: path))
        }
        if let storage, let operation = StorageOperation.classify(req, match, isBucket: storage.bucketExists) {
            return (storage.project(ofBucket: operation.bucket), FaultTarget(service: "storage", method: operation.method, path: operation.path))
        }
        // Functions (callables and triggers) are matched inside the functions host, per invocation.
        return nil
    }
}
