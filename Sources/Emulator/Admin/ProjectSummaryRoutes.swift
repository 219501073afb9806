import EmulatorCore
import EmulatorHTTP

/// `GET /emulator/v1/projects/{p}/summary`: the counts the UI's overview shows, each O(1) or one
/// pass over the users (no document is read).
enum ProjectSummaryRoutes {
    static func register(_ r: inout Router, _ s: EmulatorServices) {
        r.get("/emulator/v1/projects/{project}/summary") { _, m in
            let p = m["project"]
            try s.projects.requireKnown(p)
            let users = s.auth.userCounts(projectId: p)
            var rules: UTF8Dictionary<JSON> = ["mode": "open"]
            if let rs = s.rules.ruleset(for: p) {
                rules = ["mode": .string(s.rules.hasProjectRules(p) ? "project" : "file"), "fileName": .string(rs.fileName)]
            }
            return .json([
                "projectId": .string(p),
                "documents": .int(Int64(s.store.documentCount(project: p))),
                "databases": .array(s.store.databaseIds(project: p).map { .string($0) }),
                "users": ["total": .int(Int64(users.total)), "anonymous": .int(Int64(users.anonymous)), "disabled": .int(Int64(users.disabled))],
                "functions": .int(Int64(s.functions.functions(project: p).count)),
                "invocations": .int(Int64(s.functions.logs(project: p).count)),
                "rulesEvaluations": .int(Int64(s.rulesLog.count(project: p))),
                "rules": .object(rules),
                "snapshots": .int(Int64(s.snapshots.list(projectId: p).count)),
                "faults": .int(Int64(s.faults.list(projectId: p).count)),
                "clock": ProjectAdminRoutes.clockJSON(s.projects.environment(for: p).clock),
                "revision": .int(s.revisions.revision(of: p)),
            ])
        }
    }
}
