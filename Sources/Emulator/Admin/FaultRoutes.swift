import EmulatorCore
import EmulatorHTTP

/// `POST/GET/DELETE /emulator/v1/projects/{p}/faults`.
enum FaultRoutes {
    static func register(_ r: inout Router, _ s: EmulatorServices) {
        r.post("/emulator/v1/projects/{project}/faults") { req, m in
            try s.projects.requireKnown(m["project"])
            let rule = try s.faults.add(projectId: m["project"], body: try req.jsonObjectBody())
            return .json(rule.json)
        }
        r.get("/emulator/v1/projects/{project}/faults") { _, m in
            try s.projects.requireKnown(m["project"])
            return .json(["faults": .array(s.faults.list(projectId: m["project"]).map(\.json))])
        }
        r.delete("/emulator/v1/projects/{project}/faults") { _, m in
            try s.projects.requireKnown(m["project"])
            return .json(["removed": .int(Int64(s.faults.clear(projectId: m["project"])))])
        }
        r.delete("/emulator/v1/projects/{project}/faults/{id}") { _, m in
            try s.projects.requireKnown(m["project"])
            guard s.faults.clear(projectId: m["project"], id: m["id"]) == 1 else {
                throw EmulatorError.notFound("No fault '\(m["id"])' in project '\(m["project"])'.")
            }
            return .json(["removed": 1])
        }
    }
}
