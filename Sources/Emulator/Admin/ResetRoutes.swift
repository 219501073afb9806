import EmulatorCore
import EmulatorHTTP

/// Resets and snapshots: `POST /emulator/v1/projects/{p}:reset`, `POST /emulator/v1/reset`,
/// Firestore's `POST /reset`, and `/emulator/v1/projects/{p}/snapshots`. Adapters over
/// `ControlPlane`: decode, call one function, encode.
enum ResetRoutes {
    static func register(_ r: inout Router, _ s: EmulatorServices) {
        let control = s.controlPlane
        r.post("/emulator/v1/projects/{project}:reset") { _, m in
            try control.resetProject(m["project"])
            return .json(["projectId": .string(m["project"]), "reset": true])
        }
        r.post("/emulator/v1/reset") { _, _ in
            try control.resetAll()
            return .json(["reset": true])
        }
        // The Firestore emulator's reset: every project's documents.
        r.post("/reset") { _, _ in
            try control.resetFirestore()
            return .json([:])
        }
        r.post("/emulator/v1/projects/{project}/snapshots") { req, m in
            let name = try req.jsonObjectBody()["name"]?.stringValue ?? ""
            try control.saveSnapshot(name, project: m["project"])
            return .json(["name": .string(name)])
        }
        r.get("/emulator/v1/projects/{project}/snapshots") { _, m in
            .json([
                "snapshots": .array(
                    try control.snapshots(project: m["project"]).map {
                        ["name": .string($0.name), "createTime": .string($0.createdAt.rfc3339())]
                    })
            ])
        }
        r.post("/emulator/v1/projects/{project}/snapshots/{name}:restore") { _, m in
            try control.restoreSnapshot(m["name"], project: m["project"])
            return .json(["name": .string(m["name"]), "restored": true])
        }
        r.delete("/emulator/v1/projects/{project}/snapshots/{name}") { _, m in
            try control.deleteSnapshot(m["name"], project: m["project"])
            return .json(["name": .string(m["name"]), "deleted": true])
        }
    }
}
