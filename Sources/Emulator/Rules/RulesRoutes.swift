import EmulatorCore
import EmulatorHTTP
import EmulatorRules

/// `PUT/GET /emulator/v1/projects/{p}:securityRules`, `GET :ruleCoverage` and
/// `:ruleCoverage.html`, and `POST :evaluateRules` (judge a hypothetical request, no data touched).
enum RulesRoutes {
    static func register(_ r: inout Router, _ s: EmulatorServices) {
        r.put("/emulator/v1/projects/{project}:securityRules") { req, m in
            let body = try req.jsonObjectBody()
            guard case .array(let files)? = body["rules"]?["files"], let first = files.first,
                let content = first["content"]?.stringValue
            else {
                throw EmulatorError.invalidArgument("expected {\"rules\": {\"files\": [{\"name\", \"content\"}]}}")
            }
            let name = first["name"]?.stringValue ?? "firestore.rules"
            let ignoreErrors = body["ignore_errors"]?.boolValue ?? body["ignoreErrors"]?.boolValue ?? false
            try s.projects.register(projectId: m["project"], apiKey: nil)
            switch s.rules.setRules(project: m["project"], fileName: name, source: content) {
            case .success:
                return .json(["issues": []])
            case .failure(let e):
                let issues = JSON.array(e.diagnostics.map(issueJSON))
                if ignoreErrors { return .json(["issues": issues]) }
                throw EmulatorError(.invalidArgument, "Rules do not compile:\n" + e.description, details: issues)
            }
        }
        r.get("/emulator/v1/projects/{project}:securityRules") { _, m in
            guard let rs = s.rules.ruleset(for: m["project"]) else {
                return .json(["rules": ["files": []], "openDefault": true])
            }
            return .json(["rules": ["files": [["name": .string(rs.fileName), "content": .string(rs.source)]]]])
        }
        r.get("/emulator/v1/projects/{project}:ruleCoverage") { _, m in
            guard let rs = s.rules.ruleset(for: m["project"]) else {
                throw EmulatorError.notFound("Project '\(m["project"])' runs the open development default; there is nothing to cover.")
            }
            return .json(rs.coverageJSON())
        }
        r.get("/emulator/v1/projects/{project}:ruleCoverage.html") { _, m in
            guard let rs = s.rules.ruleset(for: m["project"]) else {
                throw EmulatorError.notFound("Project '\(m["project"])' runs the open development default; there is nothing to cover.")
            }
            return .text(rs.coverageHTML(), contentType: "text/html; charset=utf-8")
        }
        r.post("/emulator/v1/projects/{project}:evaluateRules") { req, m in
            let body = try req.jsonObjectBody()
            guard let rs = s.rules.ruleset(for: m["project"]) else {
                return .json(["allowed": true, "explanation": "open development default: no rules are configured"])
            }
            let d = rs.evaluate(try hypothetical(body, project: m["project"], s), data: EmptyDataSource())
            return .json(["allowed": .bool(d.allowed), "explanation": .string(d.explanation), "debug": .array(d.debug.map { .string($0) })])
        }
    }

    static func issueJSON(_ d: Diagnostic) -> JSON {
        [
            "sourcePosition": ["fileName": .string(d.location.file), "line": .int(Int64(d.location.line)), "column": .int(Int64(d.location.column))],
            "description": .string(d.message), "severity": "ERROR",
        ]
    }

    /// `{"method", "path", "auth": {uid, token}|null, "resource": {fields}, "requestResource": {fields}, "time"?}` with plain JSON data.
    static func hypothetical(_ b: UTF8Dictionary<JSON>, project: String, _ s: EmulatorServices) throws -> RulesRequest {
        guard let m = b["method"]?.stringValue, let method = RulesMethod(rawValue: m) else {
            throw EmulatorError.invalidArgument("'method' must be one of get, list, create, update, delete")
        }
        guard let path = b["path"]?.stringValue, !path.isEmpty else {
            throw EmulatorError.invalidArgument("'path' must be a document path such as tasks/t1")
        }
        var auth: AuthContext?
        if case .object(let a)? = b["auth"] {
            guard let uid = a["uid"]?.stringValue else { throw EmulatorError.invalidArgument("'auth.uid' must be a string") }
            var token = a["token"]?.objectValue ?? [:]
            token["sub"] = token["sub"] ?? .string(uid)
            auth = AuthContext(uid: uid, token: token)
        }
        var time = s.projects.environment(for: project).clock.now()
        if let t = b["time"]?.stringValue {
            guard let parsed = Timestamp(rfc3339: t), parsed.isInFirestoreRange else {
                throw EmulatorError.invalidArgument("'time' must be an RFC 3339 timestamp in years 1-9999")
            }
            time = parsed
        }
        func data(_ key: String) throws -> [String: RulesValue]? {
            guard let v = b[key], !v.isNull else { return nil }
            guard case .object(let o) = v else { throw EmulatorError.invalidArgument("'\(key)' must be an object of document fields") }
            return o.mapValues(RulesValue.init(json:)).dictionary
        }
        return RulesRequest(
            method: method, database: b["database"]?.stringValue ?? "(default)",
            path: path.split(separator: "/").map(String.init), auth: auth, time: time,
            resource: try data("resource"), requestResource: try data("requestResource"))
    }
}
