import EmulatorCore
import EmulatorHTTP

/// `/emulator/v1/projects` (register, list), per-project clock and seed.
enum ProjectAdminRoutes {
    static func register(_ r: inout Router, _ s: EmulatorServices) {
        r.post("/emulator/v1/projects") { req, _ in
            let body = try req.jsonObjectBody()
            guard let id = body["projectId"]?.stringValue, !id.isEmpty else {
                throw EmulatorError.invalidArgument("'projectId' must be a non-empty string")
            }
            try ResourceId.project(id)
            var apiKey: String?
            if let k = body["apiKey"], !k.isNull {
                guard let key = k.stringValue, !key.isEmpty else { throw EmulatorError.invalidArgument("'apiKey' must be a non-empty string") }
                apiKey = key
            }
            try s.projects.register(projectId: id, apiKey: apiKey)
            return .json(projectJSON(s, id))
        }
        r.delete("/emulator/v1/projects/{project}") { _, m in
            try s.controlPlane.removeProject(m["project"])
            return .json(["projectId": .string(m["project"]), "removed": true])
        }
        r.get("/emulator/v1/projects") { _, _ in
            .json(["projects": .array(s.projects.projectIds.map { projectJSON(s, $0) })])
        }
        r.get("/emulator/v1/projects/{project}/clock") { _, m in
            try s.projects.requireKnown(m["project"])
            return .json(clockJSON(s.projects.environment(for: m["project"]).clock))
        }
        r.put("/emulator/v1/projects/{project}/clock") { req, m in
            try s.projects.requireKnown(m["project"])
            let clock = s.projects.environment(for: m["project"]).clock
            let body = try req.jsonObjectBody()
            switch body["mode"]?.stringValue {
            case "system":
                clock.useSystemTime()
            case "frozen":
                if let t = body["time"], !t.isNull {
                    guard let text = t.stringValue, let time = Timestamp(rfc3339: text) else {
                        throw EmulatorError.invalidArgument("'time' must be an RFC 3339 timestamp such as 2026-01-01T00:00:00Z")
                    }
                    try clock.freeze(at: time)
                } else {
                    try clock.freeze(at: clock.now())
                }
            default:
                throw EmulatorError.invalidArgument("'mode' must be \"system\" or \"frozen\"")
            }
            return .json(clockJSON(clock))
        }
        r.post("/emulator/v1/projects/{project}/clock:advance") { req, m in
            try s.projects.requireKnown(m["project"])
            let body = try req.jsonObjectBody()
            guard let seconds = body["seconds"]?.doubleValue else { throw EmulatorError.invalidArgument("'seconds' must be a number") }
            let clock = s.projects.environment(for: m["project"]).clock
            try clock.advance(seconds: seconds)
            return .json(clockJSON(clock))
        }
        r.get("/emulator/v1/projects/{project}/seed") { _, m in
            try s.projects.requireKnown(m["project"])
            return .json(["seed": s.projects.seed(of: m["project"]).map { .int(Int64(bitPattern: $0)) } ?? .null])
        }
        r.put("/emulator/v1/projects/{project}/seed") { req, m in
            try s.projects.requireKnown(m["project"])
            let body = try req.jsonObjectBody()
            var seed: UInt64?
            if let v = body["seed"], !v.isNull {
                guard let n = v.intValue, n >= 0 else { throw EmulatorError.invalidArgument("'seed' must be a non-negative integer or null") }
                seed = UInt64(n)
            }
            s.projects.setSeed(seed, for: m["project"])
            s.faults.reseed(seed)
            return .json(["seed": seed.map { .int(Int64($0)) } ?? .null])
        }
    }

    static func projectJSON(_ s: EmulatorServices, _ id: String) -> JSON {
        [
            "projectId": .string(id), "apiKey": s.projects.apiKey(of: id).map { .string($0) } ?? .null,
            "default": .bool(id == s.projects.defaultProjectId),
        ]
    }

    static func clockJSON(_ clock: ProjectClock) -> JSON {
        switch clock.mode {
        case .system(let offset):
            return ["mode": "system", "time": .string(clock.now().rfc3339()), "offsetSeconds": .double(Double(offset) / 1e9)]
        case .frozen(let t):
            return ["mode": "frozen", "time": .string(t.rfc3339())]
        }
    }
}
