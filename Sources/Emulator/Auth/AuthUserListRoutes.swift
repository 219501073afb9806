import EmulatorAuth
import EmulatorCore
import EmulatorHTTP

/// `GET /emulator/v1/projects/{p}/users`: the UI's paged, searchable user list (newest first),
/// with `search`, `kind`, `tenantId`, `pageSize` (1-1000, default 50) and `pageToken`.
enum AuthUserListRoutes {
    static func register(_ r: inout Router, _ s: EmulatorServices) {
        r.get("/emulator/v1/projects/{project}/users") { req, m in
            try s.projects.requireKnown(m["project"])
            let page = try s.auth.listUsers(
                projectId: m["project"], search: req.nonEmptyQuery("search"), kind: req.nonEmptyQuery("kind"),
                tenantId: req.nonEmptyQuery("tenantId"), pageSize: try req.intQuery("pageSize", in: 1...1000, default: 50),
                pageToken: req.nonEmptyQuery("pageToken"))
            var o: UTF8Dictionary<JSON> = [
                "users": .array(page.users.map(\.json)), "total": .int(Int64(page.total)), "matched": .int(Int64(page.matched)),
            ]
            if let t = page.nextPageToken { o["nextPageToken"] = .string(t) }
            return .json(.object(o))
        }
    }
}
