import EmulatorCore
import EmulatorFunctions
import EmulatorHTTP

/// Callable and HTTP functions at `/{project}/{region}/{name}[/...]`, and the functions admin
/// endpoints: logs, idle wait, the function list, strict token verification for workers.
enum FunctionsRoutes {
    static func register(_ r: inout Router, _ s: EmulatorServices) {
        let handler: RouteHandler = { req, m in try await invoke(req, m, s) }
        r.add("*", "/{project}/{region}/{name}", handler)
        r.add("*", "/{project}/{region}/{name}/{rest=**}", handler)
        r.get("/emulator/v1/projects/{project}/functions/logs") { _, m in
            .json(["invocations": .array(s.functions.logs(project: m["project"]).map(\.json))])
        }
        r.get("/emulator/v1/projects/{project}/functions") { _, m in
            .json([
                "functions": .array(
                    s.functions.functions(project: m["project"]).map { d in
                        [
                            "name": .string(d.name), "region": .string(d.region), "regions": .array(d.regions.map { .string($0) }),
                            "trigger": .string(d.trigger.summary), "retry": .bool(d.retry), "timeoutSeconds": .double(d.timeoutSeconds),
                        ]
                    }), "codebases": .array(s.functions.codebaseStatuses(project: m["project"])),
            ])
        }
        r.get("/emulator/v1/projects/{project}:idle") { req, m in
            var timeoutMs = 10_000
            if let t = req.query("timeoutMs") {
                guard let n = Int(t), (0...600_000).contains(n) else {
                    throw EmulatorError.invalidArgument("timeoutMs must be an integer between 0 and 600000")
                }
                timeoutMs = n
            }
            if let pending = await s.functions.idle(project: m["project"], timeout: Double(timeoutMs) / 1000) {
                throw EmulatorError(
                    .deadlineExceeded, "Still busy after \(timeoutMs) ms: \(pending.joined(separator: "; "))",
                    details: .array(pending.map { .string($0) }), httpStatus: 408)
            }
            return .json(["idle": true])
        }
        r.post("/emulator/v1/projects/{project}/functions:verifyIdToken") { req, m in
            guard let token = try req.jsonObjectBody()["idToken"]?.stringValue else {
                throw EmulatorError.invalidArgument("'idToken' must be a string")
            }
            do {
                let a = try s.auth.verifyIDTokenStrictly(projectId: m["project"], token: token)
                return .json(["uid": .string(a.uid), "token": .object(a.token)])
            } catch let e as EmulatorError {
                throw EmulatorError.unauthenticated(e.message)
            }
        }
    }

    static func invoke(_ req: HTTPRequest, _ m: RouteMatch, _ s: EmulatorServices) async throws -> HTTPResponse {
        let project = m["project"], name = m["name"]
        guard let def = s.functions.resolve(project: project, region: m["region"], name: name) else {
            // Signed Storage URLs share the shape `/{bucket}/{object...}` (StorageXMLRoutes).
            if StorageXMLRoutes.claims(req, bucket: project, s) {
                let object = ([m["region"], name] + (m.wildcardSegments["rest"] ?? [])).joined(separator: "/")
                return try await StorageXMLRoutes.serve(req, bucket: project, object: object, s)
            }
            throw EmulatorError.notFound("Function \(m["region"])/\(name) does not exist in project \(project).")
        }
        if def.trigger == .http {
            var path = "/" + (m.params["rest"] ?? "")
            if !req.rawQuery.isEmpty { path += "?" + req.rawQuery }
            let r = await s.functions.http(
                project: project, name: name,
                request: FunctionHTTPRequest(
                    method: req.method, path: path, headers: req.headers.fields.map { ($0.name, $0.value) }, body: req.body))
            var h = HTTPHeaders()
            for (n, v) in r.headers { h.add(n, v) }
            return HTTPResponse(status: r.status, headers: h, body: r.body)
        }
        guard def.trigger == .callable, m.params["rest"] == nil else {
            throw EmulatorError.notFound("Function \(name) is not callable over HTTP.")
        }
        let auth: Result<AuthContext?, HttpsError>
        if let h = req.headers["Authorization"] {
            if let token = req.bearerToken {
                do { auth = .success(try s.auth.verifyIDToken(projectId: project, token: token)) } catch let e as EmulatorError {
                    auth = .failure(HttpsError(.unauthenticated, "Unauthenticated: \(e.message)"))
                }
            } else {
                auth = .failure(HttpsError(.unauthenticated, "Unauthenticated: Authorization header '\(h.prefix(10))...' is not a Bearer token."))
            }
        } else {
            auth = .success(nil)
        }
        let (status, body) = await s.functions.call(
            project: project, name: name, method: req.method, contentType: req.headers["Content-Type"],
            body: req.body, auth: auth, rawToken: req.bearerToken,
            appCheck: req.headers["X-Firebase-AppCheck"],
            headers: req.headers.fields.map { ($0.name, $0.value) })
        return .json(body, status: status)
    }
}
