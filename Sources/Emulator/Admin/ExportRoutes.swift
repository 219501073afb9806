import EmulatorCore
import EmulatorHTTP

/// `POST /emulator/v1/projects/{p}:export` and `:import` with `{"path"}`.
enum ExportRoutes {
    static func register(_ r: inout Router, _ s: EmulatorServices) {
        r.post("/emulator/v1/projects/{project}:export") { req, m in
            try s.projects.requireKnown(m["project"])
            let path = try req.jsonObjectBody()["path"]?.stringValue
            try ExportArchive.write(to: path ?? "", projects: [m["project"]], participants: s.persistentParticipants,
                                    firebaseAuthProject: m["project"], auth: s.auth)
            return .json(["path": .string(path ?? "")])
        }
        r.post("/emulator/v1/projects/{project}:import") { req, m in
            try ResourceId.project(m["project"])
            let path = try ExportArchive.validate(try req.jsonObjectBody()["path"]?.stringValue)
            try s.projects.register(projectId: m["project"], apiKey: nil)
            var imported = try ExportArchive.read(from: path, project: m["project"], participants: s.persistentParticipants)
            if !imported.contains(m["project"]), try await FirebaseAuthExport.read(from: path, project: m["project"], auth: s.auth, logger: s.logger) {
                imported.append(m["project"])
            }
            s.noteReplaced(project: m["project"])
            return .json(["path": .string(path), "imported": .array(imported.map { .string($0) })])
        }
    }
}
