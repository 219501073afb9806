import EmulatorCore
import EmulatorFunctions
import EmulatorHTTP

/// The other ways platform services invoke functions: a scheduled function run on demand, Cloud
/// Tasks task creation (the path
/// firebase-admin calls with `CLOUD_TASKS_EMULATOR_HOST`), and the OAuth token endpoint that the
/// functions' dummy service account points at. (Pub/Sub publishing is `PubSubRESTRoutes` and
/// `PubSubGRPCService`; `PubSubWiring` hands every publish to the functions host.)
enum FunctionsTriggerRoutes {
    static func register(_ r: inout Router, _ s: EmulatorServices) {
        r.post("/emulator/v1/projects/{project}/functions/{name}:run") { req, m in
            let body = try req.jsonObjectBody()
            var when = s.projects.environment(for: m["project"]).clock.now()
            if let t = body["scheduleTime"] {
                guard let text = t.stringValue, let parsed = Timestamp(rfc3339: text) else {
                    throw EmulatorError.invalidArgument("'scheduleTime' must be an RFC 3339 timestamp string")
                }
                when = parsed
            }
            do {
                return .json(["eventId": .string(try s.functions.runScheduled(project: m["project"], name: m["name"], scheduleTime: when))])
            } catch let e as HttpsError {
                throw EmulatorError(e.code, e.message)
            }
        }
        r.post("/projects/{project}/locations/{location}/queues/{queue}/tasks") { req, m in
            let body = try req.jsonObjectBody()
            guard case .object(let task)? = body["task"] else { throw EmulatorError.invalidArgument("'task' must be an object") }
            let http = task["httpRequest"]?.objectValue ?? [:]
            var payload: [UInt8] = []
            if let b = http["body"], !b.isNull {
                guard let text = b.stringValue, let bytes = Base64.decode(text) else {
                    throw EmulatorError.invalidArgument("task.httpRequest.body must be base64")
                }
                payload = bytes
            }
            var headers: [String: String] = [:]
            for (k, v) in http["headers"]?.objectValue ?? [:] { if let sv = v.stringValue { headers[k] = sv } }
            var when: Timestamp?
            if let t = task["scheduleTime"], !t.isNull {
                guard let text = t.stringValue, let parsed = Timestamp(rfc3339: text) else {
                    throw EmulatorError.invalidArgument("task.scheduleTime must be an RFC 3339 timestamp")
                }
                when = parsed
            }
            let taskId = task["name"]?.stringValue.flatMap { $0.split(separator: "/").last.map(String.init) }
            let id: String
            do {
                id = try s.functions.enqueueTask(
                    project: m["project"], queue: m["queue"], taskId: taskId, body: payload, headers: headers, scheduleTime: when)
            } catch let e as HttpsError {
                throw EmulatorError(e.code, e.message)
            }
            // The emulator's answer carries the task name with a leading '/', as firebase-admin expects.
            return .json(["task": ["name": .string("/projects/\(m["project"])/locations/\(m["location"])/queues/\(m["queue"])/tasks/\(id)")]])
        }
        r.post("/oauth2.googleapis.com/token") { req, _ in
            let form = String(decoding: req.body, as: UTF8.self).split(separator: "&").map { $0.split(separator: "=", maxSplits: 1) }
            let grant = form.first { $0.first == "grant_type" }.flatMap { $0.count == 2 ? FormDecoding.component($0[1]) : nil }
            guard let grant, ["urn:ietf:params:oauth:grant-type:jwt-bearer", "refresh_token"].contains(grant) else {
                throw EmulatorError.invalidArgument("grant_type must be urn:ietf:params:oauth:grant-type:jwt-bearer or refresh_token")
            }
            // Only the functions' dummy service account comes here; its tokens are the admin token.
            return .json(["access_token": "owner", "token_type": "Bearer", "expires_in": 3600])
        }
    }
}
