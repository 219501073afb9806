import EmulatorCore
import EmulatorHTTP

/// `POST /emulator/v1/projects/{p}:export` and `:import` with `{"path"}`: adapters over
/// `ControlPlane` (start-up `--import` and `--export-on-exit` call the same functions).
enum ExportRoutes {
    static func register(_ r: inout Router, _ s: EmulatorServices) {
        let control = s.controlPlane
        r.post("/emulator/v1/projects/{project}:export") { req, m in
            let path = try req.jsonObjectBody()["path"]?.stringValue ?? ""
            try control.export(project: m["project"], to: path)
            return .json(["path": .string(path)])
        }
        r.post("/emulator/v1/projects/{project}:import") { req, m in
            let path = try req.jsonObjectBody()["path"]?.stringValue ?? ""
            let imported = try await control.importArchive(from: path, project: m["project"])
            return .json(["path": .string(path), "imported": .array(imported.map { .string($0) })])
        }
    }
}
