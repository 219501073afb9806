import EmulatorCore

/// The settings that govern one pool: the project config, plus the tenant's for tenant pools.
/// Project switches (`disabledProviders`, user actions) govern the project's own users; a tenant
/// has its own switches. Duplicate emails and email privacy are inherited from the project.
struct AuthPolicy {
    /// The pool.
    let scope: AuthScope
    /// The project's settings.
    let project: AuthProjectConfig
    /// The tenant's settings (tenant pools only).
    let tenant: TenantConfig?

    /// One account per provider identity instead of per email.
    var allowDuplicateEmails: Bool { project.allowDuplicateEmails }
    /// Email enumeration protection.
    var improvedEmailPrivacy: Bool { project.enableImprovedEmailPrivacy }
    /// Email/password sign-up and sign-in.
    var passwordEnabled: Bool { tenant.map(\.allowPasswordSignup) ?? !project.disabledProviders.contains("password") }
    /// Email-link sign-in.
    var emailLinkEnabled: Bool { tenant.map(\.enableEmailLinkSignin) ?? !project.disabledProviders.contains("emailLink") }
    /// Anonymous sign-up.
    var anonymousEnabled: Bool { tenant.map(\.enableAnonymousUser) ?? !project.disabledProviders.contains("anonymous") }
    /// Phone first-factor sign-in.
    var phoneEnabled: Bool { tenant != nil || !project.disabledProviders.contains("phone") }
    /// An IdP (tenants do not model IdP configs: every provider works there).
    func idpEnabled(_ providerId: String) -> Bool { tenant != nil || !project.disabledProviders.contains(providerId) }
    /// End users may not sign up.
    var disableSignUp: Bool { tenant?.disableSignUp ?? project.disableSignUp }
    /// End users may not delete themselves.
    var disableDeletion: Bool { tenant?.disableDeletion ?? project.disableDeletion }
    /// Multi-factor settings.
    var mfa: MfaConfig { tenant?.mfaConfig ?? project.mfa }
    /// Fixed codes for test numbers.
    var testPhoneNumbers: [String: String] { tenant?.testPhoneNumbers ?? project.testPhoneNumbers }
}

extension AuthService {
    /// The pool a request acts on, from every place a tenant can travel: `tenantId` (the path's,
    /// or the caller's), the body's `tenantId`, and the `firebase.tenant` claim of a body
    /// `idToken` (read unverified here; verification later checks it again). Any two that
    /// disagree: `TENANT_ID_MISMATCH`. An unknown tenant: `TENANT_NOT_FOUND`.
    func scope(_ projectId: String, _ tenantId: String?, _ body: Body) throws -> AuthScope {
        var t = tenantId.flatMap { $0.isEmpty ? nil : $0 }
        for candidate in [body.nonEmpty("tenantId"), body.string("idToken").flatMap(Self.tenantClaim)] {
            guard let c = candidate else { continue }
            if let known = t, known != c { throw EmulatorError.authBadRequest("TENANT_ID_MISMATCH") }
            t = c
        }
        let sc = AuthScope(projectId, tenant: t)
        if let t, readProject(projectId, { $0.tenants[t] == nil }) { throw Self.tenantNotFound(t) }
        return sc
    }

    /// `TENANT_NOT_FOUND` naming the tenant.
    static func tenantNotFound(_ id: String) -> EmulatorError {
        // Ids are short; a hostile one is not echoed whole.
        let shown = id.count > 128 ? String(id.prefix(128)) + "…" : id
        return EmulatorError.authBadRequest("TENANT_NOT_FOUND : ((Tenant \(shown) does not exist.))")
    }

    /// The `firebase.tenant` claim of a token, unverified (nil when absent or not a JWT).
    static func tenantClaim(_ token: String) -> String? { JWT.decode(token)?.payload["firebase"]?["tenant"]?.stringValue }

    /// The settings governing `scope`: `TENANT_NOT_FOUND` for an unknown tenant, and
    /// `PROJECT_DISABLED` for a tenant with `disableAuth` (end users and admins alike).
    func policy(_ scope: AuthScope) throws -> AuthPolicy {
        let (project, tenant) = readProject(scope.projectId) { st in (st.config, scope.tenantId.map { st.tenants[$0]?.config }) }
        if let t = scope.tenantId {
            guard let tc = tenant ?? nil else { throw Self.tenantNotFound(t) }
            if tc.disableAuth { throw EmulatorError.authBadRequest("PROJECT_DISABLED") }
            return AuthPolicy(scope: scope, project: project, tenant: tc)
        }
        return AuthPolicy(scope: scope, project: project, tenant: nil)
    }

    /// A new user in `scope` (stamped with its tenant, so hooks see it before it is stored).
    func newUser(_ scope: AuthScope, uid: String? = nil) -> AuthUser {
        var u = AuthUser(localId: uid ?? env(scope.projectId).ids.uid(), now: now(scope))
        u.tenantId = scope.tenantId
        return u
    }
}
