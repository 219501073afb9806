import EmulatorAuth
import EmulatorCore
import EmulatorHTTP

extension AuthRoutes {
    /// Identity Platform tenants (`Bearer owner`): `GET/POST v2/projects/{p}/tenants` and
    /// `GET/PATCH/DELETE v2/projects/{p}/tenants/{t}`. Other tenant resources (IdP configs, IAM)
    /// fall through to the v2 catch-all's 501.
    static func registerTenants(_ r: inout Router, _ s: EmulatorServices) {
        let auth = s.auth
        let base = "\(itk)/v2/projects/{project}/tenants"
        /// The caller rules for a body-less request (GET, DELETE).
        @Sendable func owner(_ req: HTTPRequest, _ m: RouteMatch) throws -> String {
            try AuthCall.make(HTTPRequest(method: req.method, target: req.target, headers: req.headers), s, .owner, pathProject: m["project"])
                .projectId
        }
        r.get(base) { req, m in
            let project = try owner(req, m)
            var size: Int?
            if let raw = req.query("pageSize") {
                guard let n = Int(raw) else { throw EmulatorError.authBadRequest("INVALID_PAGE_SIZE : ((pageSize must be an integer.))") }
                size = n
            }
            return json(try auth.listTenants(projectId: project, pageSize: size, pageToken: req.query("pageToken").flatMap { $0.isEmpty ? nil : $0 }))
        }
        r.post(base) { req, m in
            let c = try AuthCall.make(req, s, .owner, pathProject: m["project"])
            return json(try auth.createTenant(projectId: c.projectId, body: c.body))
        }
        r.get("\(base)/{tenant}") { req, m in json(try auth.getTenant(projectId: try owner(req, m), tenantId: m["tenant"])) }
        r.patch("\(base)/{tenant}") { req, m in
            let c = try AuthCall.make(req, s, .owner, pathProject: m["project"])
            return json(try auth.updateTenant(projectId: c.projectId, tenantId: m["tenant"], patch: c.body, updateMask: req.query("updateMask")))
        }
        r.delete("\(base)/{tenant}") { req, m in
            try auth.deleteTenant(projectId: try owner(req, m), tenantId: m["tenant"])
            return json([:])
        }
    }
}
