import EmulatorCore
import EmulatorHTTP

/// The request log: `GET /emulator/v1/projects/{p}/rulesEvaluations` (newest first; filters
/// `outcome`, `method`, `path`, `caller`; `pageSize`, `pageToken`), `GET .../rulesEvaluations/{id}`
/// (with the ruleset that judged it) and `DELETE .../rulesEvaluations`.
enum RulesEvaluationRoutes {
    static let outcomes: Set<String> = ["allow", "deny", "error", "admin"]
    static let methods: Set<String> = ["get", "list", "create", "update", "delete"]

    static func register(_ r: inout Router, _ s: EmulatorServices) {
        let path = "/emulator/v1/projects/{project}/rulesEvaluations"
        r.get(path) { req, m in
            try s.projects.requireKnown(m["project"])
            let outcome = req.nonEmptyQuery("outcome"), method = req.nonEmptyQuery("method")
            if let outcome, !outcomes.contains(outcome) {
                throw EmulatorError.invalidArgument("outcome must be one of \(outcomes.sorted().joined(separator: ", ")).")
            }
            if let method, !methods.contains(method) {
                throw EmulatorError.invalidArgument("method must be one of \(methods.sorted().joined(separator: ", ")).")
            }
            var before: Int64?
            if let t = req.nonEmptyQuery("pageToken") {
                guard let n = Int64(t), n > 0 else { throw EmulatorError.invalidArgument("Invalid page token.") }
                before = n
            }
            let filter = RulesEvaluationFilter(outcome: outcome, method: method, path: req.nonEmptyQuery("path"), caller: req.nonEmptyQuery("caller"))
            let page = s.rulesLog.page(
                project: m["project"], filter: filter, before: before,
                pageSize: try req.intQuery("pageSize", in: 1...1000, default: 100))
            var o: UTF8Dictionary<JSON> = [
                "evaluations": .array(page.items.map { $0.json(detail: false) }), "kept": .int(Int64(page.kept)),
                "capacity": .int(Int64(s.rulesLog.capacity)),
            ]
            if let next = page.next { o["nextPageToken"] = .string(String(next)) }
            return .json(.object(o))
        }
        r.get(path + "/{id}") { _, m in
            try s.projects.requireKnown(m["project"])
            guard let id = Int64(m["id"]), let e = s.rulesLog.evaluation(project: m["project"], id: id) else {
                throw EmulatorError.notFound(
                    "No rules evaluation '\(m["id"].prefix(40))' in project '\(m["project"])' (the log keeps the last \(s.rulesLog.capacity)).")
            }
            return .json(e.json(detail: true))
        }
        r.delete(path) { _, m in
            try s.projects.requireKnown(m["project"])
            s.rulesLog.clear(project: m["project"])
            return .json([:])
        }
    }
}
