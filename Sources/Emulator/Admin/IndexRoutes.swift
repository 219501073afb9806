import EmulatorCore
import EmulatorHTTP

/// `GET /emulator/v1/projects/{p}/databases/{db}/indexes:suggested`: the `firestore.indexes.json`
/// the queries seen so far need (the configured indexes plus the missing ones; only the missing
/// ones with `?missingOnly=true`). An adapter over `IndexEnforcement.suggested`.
enum IndexRoutes {
    static func register(_ r: inout Router, _ s: EmulatorServices) {
        r.get("/emulator/v1/projects/{project}/databases/{database}/indexes:suggested") { req, m in
            try s.projects.requireKnown(m["project"])
            let missingOnly: Bool
            switch req.nonEmptyQuery("missingOnly") {
            case nil, "false"?: missingOnly = false
            case "true"?: missingOnly = true
            case let other?: throw EmulatorError.invalidArgument("missingOnly must be true or false, got '\(other.prefix(40))'.")
            }
            return .json(s.indexes.suggested(project: m["project"], database: m["database"], missingOnly: missingOnly))
        }
    }
}
