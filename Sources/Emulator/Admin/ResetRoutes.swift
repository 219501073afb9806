import EmulatorCore
import EmulatorHTTP

/// Resets and snapshots: `POST /emulator/v1/projects/{p}:reset`, `POST /emulator/v1/reset`,
/// Firestore's `POST /reset`, and `/emulator/v1/projects/{p}/snapshots`.
enum ResetRoutes {
    static func register(_ r: inout Router, _ s: EmulatorServices) {
        r.post("/emulator/v1/projects/{project}:reset") { _, m in
            let p = m["project"]
            try s.projects.requireKnown(p)
            try resetProject(p, s)
            return .json(["projectId": .string(p), "reset": true])
        }
        r.post("/emulator/v1/reset") { _, _ in
            let touched = s.persistentParticipants.flatMap(\.projectsWithData)
            for participant in s.participants { try participant.resetAll() }
            for p in Set(touched) { s.noteReplaced(project: p) }
            s.faults.clearAll()
            s.faults.reseed(nil)
            for p in s.projects.projectIds {
                s.projects.setSeed(nil, for: p)
                s.projects.environment(for: p).clock.useSystemTime()
            }
            return .json(["reset": true])
        }
        // The Firestore emulator's reset: every project's documents.
        r.post("/reset") { _, _ in
            let touched = s.store.projectsWithData
            for participant in s.participants where participant.participantName == "firestore" { try participant.resetAll() }
            for p in touched { s.noteReplaced(project: p) }
            return .json([:])
        }
        r.post("/emulator/v1/projects/{project}/snapshots") { req, m in
            let p = m["project"]
            try s.projects.requireKnown(p)
            let name = try snapshotName(try req.jsonObjectBody()["name"])
            s.snapshots.save(name: name, projectId: p, participants: s.participants,
                             at: s.projects.environment(for: p).clock.now(), seed: s.projects.seed(of: p))
            return .json(["name": .string(name)])
        }
        r.get("/emulator/v1/projects/{project}/snapshots") { _, m in
            try s.projects.requireKnown(m["project"])
            return .json(["snapshots": .array(s.snapshots.list(projectId: m["project"]).map {
                ["name": .string($0.name), "createTime": .string($0.createdAt.rfc3339())]
            })])
        }
        r.post("/emulator/v1/projects/{project}/snapshots/{name}:restore") { _, m in
            try s.projects.requireKnown(m["project"])
            try s.snapshots.restore(name: try snapshotName(.string(m["name"])), projectId: m["project"], participants: s.participants)
            s.noteReplaced(project: m["project"])
            return .json(["name": .string(m["name"]), "restored": true])
        }
        r.delete("/emulator/v1/projects/{project}/snapshots/{name}") { _, m in
            try s.projects.requireKnown(m["project"])
            guard s.snapshots.delete(name: m["name"], projectId: m["project"]) else {
                throw EmulatorError.notFound("No snapshot '\(m["name"])' in project '\(m["project"])'.")
            }
            return .json(["name": .string(m["name"]), "deleted": true])
        }
    }

    /// Clears one project's data everywhere, keeping rules, config, clock, seed and faults;
    /// the id sequence restarts from the seed so a seeded suite replays identically.
    static func resetProject(_ p: String, _ s: EmulatorServices) throws {
        for participant in s.participants { try participant.resetProject(p) }
        s.noteReplaced(project: p)
        s.projects.restartSequence(of: p)
    }

    /// A snapshot name: 1-100 ASCII letters, digits, `.`, `_`, `-`, and not `.` or `..` (a URL
    /// path cannot address those: they are dot segments, refused by `RequestPath`).
    static func snapshotName(_ v: JSON?) throws -> String {
        guard let name = v?.stringValue, !name.isEmpty, name.utf8.count <= 100, name != ".", name != "..",
              name.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0) })
        else { throw EmulatorError.invalidArgument("snapshot 'name' must be 1-100 characters of letters, digits, '.', '_' or '-', and not '.' or '..'") }
        return name
    }
}
