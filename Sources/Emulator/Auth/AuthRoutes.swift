import EmulatorAuth
import EmulatorCore
import EmulatorHTTP

/// The Auth REST surface: Identity Toolkit v1 under its production host, Secure Token, the
/// legacy v3 relyingparty aliases, key endpoints and the `/emulator/v1` Auth operations.
/// Handlers only decode, call one `AuthService` function and encode.
enum AuthRoutes {
    /// The Identity Toolkit namespace (production host as the first path segment).
    static let itk = "/identitytoolkit.googleapis.com"

    /// An adapter: decoded call in, one service call, JSON out.
    typealias Op = @Sendable (AuthService, AuthCall, HTTPRequest) async throws -> JSON

    /// End-user operations by verb, shared by v1 and the legacy v3 names.
    static let accountOps: [String: Op] = [
        "signUp": { a, c, _ in try await a.signUp(projectId: c.projectId, tenantId: c.tenantId, body: c.body, privileged: c.privileged) },
        "signInWithPassword": { a, c, _ in try await a.signInWithPassword(projectId: c.projectId, tenantId: c.tenantId, body: c.body) },
        "signInWithIdp": { a, c, _ in try await a.signInWithIdp(projectId: c.projectId, tenantId: c.tenantId, body: c.body) },
        "signInWithCustomToken": { a, c, _ in try await a.signInWithCustomToken(projectId: c.projectId, tenantId: c.tenantId, body: c.body) },
        "signInWithEmailLink": { a, c, _ in try await a.signInWithEmailLink(projectId: c.projectId, tenantId: c.tenantId, body: c.body) },
        "signInWithPhoneNumber": { a, c, _ in try await a.signInWithPhoneNumber(projectId: c.projectId, tenantId: c.tenantId, body: c.body) },
        "sendVerificationCode": { a, c, _ in try a.sendVerificationCode(projectId: c.projectId, tenantId: c.tenantId, body: c.body) },
        "sendOobCode": { a, c, r in
            try await a.sendOobCode(
                projectId: c.projectId, tenantId: c.tenantId, body: c.body, privileged: c.privileged, linkBase: AuthCall.origin(r))
        },
        "resetPassword": { a, c, _ in try a.resetPassword(projectId: c.projectId, tenantId: c.tenantId, body: c.body) },
        "update": { a, c, _ in try await a.update(projectId: c.projectId, tenantId: c.tenantId, body: c.body, privileged: c.privileged) },
        "lookup": { a, c, _ in try a.lookup(projectId: c.projectId, tenantId: c.tenantId, body: c.body, privileged: c.privileged) },
        "delete": { a, c, _ in try await a.deleteAccount(projectId: c.projectId, tenantId: c.tenantId, body: c.body, privileged: c.privileged) },
        "createAuthUri": { a, c, _ in try createAuthUri(a, c) },
    ]

    /// Multi-factor operations (`/v2/accounts/…`), API key or Bearer.
    static let mfaOps: [String: Op] = [
        "mfaEnrollment:start": { a, c, _ in try a.mfaEnrollmentStart(projectId: c.projectId, tenantId: c.tenantId, body: c.body) },
        "mfaEnrollment:finalize": { a, c, _ in try a.mfaEnrollmentFinalize(projectId: c.projectId, tenantId: c.tenantId, body: c.body) },
        "mfaEnrollment:withdraw": { a, c, _ in try a.mfaEnrollmentWithdraw(projectId: c.projectId, tenantId: c.tenantId, body: c.body) },
        "mfaSignIn:start": { a, c, _ in try a.mfaSignInStart(projectId: c.projectId, tenantId: c.tenantId, body: c.body) },
        "mfaSignIn:finalize": { a, c, _ in try await a.mfaSignInFinalize(projectId: c.projectId, tenantId: c.tenantId, body: c.body) },
    ]

    /// Legacy v3 name → v1 verb.
    static let legacy: [String: String] = [
        "verifyPassword": "signInWithPassword", "signupNewUser": "signUp", "verifyAssertion": "signInWithIdp",
        "verifyCustomToken": "signInWithCustomToken", "setAccountInfo": "update", "getAccountInfo": "lookup",
        "resetPassword": "resetPassword", "emailLinkSignin": "signInWithEmailLink", "getOobConfirmationCode": "sendOobCode",
        "deleteAccount": "delete", "createAuthUri": "createAuthUri", "sendVerificationCode": "sendVerificationCode",
        "verifyPhoneNumber": "signInWithPhoneNumber",
    ]

    /// Project-scoped (Bearer owner) operations by verb.
    static let projectOps: [String: Op] = [
        "lookup": { a, c, _ in try a.lookup(projectId: c.projectId, tenantId: c.tenantId, body: c.body, privileged: c.privileged) },
        "update": { a, c, _ in try await a.update(projectId: c.projectId, tenantId: c.tenantId, body: c.body, privileged: c.privileged) },
        "delete": { a, c, _ in try await a.deleteAccount(projectId: c.projectId, tenantId: c.tenantId, body: c.body, privileged: c.privileged) },
        "sendOobCode": { a, c, r in
            try await a.sendOobCode(
                projectId: c.projectId, tenantId: c.tenantId, body: c.body, privileged: c.privileged, linkBase: AuthCall.origin(r))
        },
        "batchCreate": { a, c, _ in try a.batchCreate(projectId: c.projectId, tenantId: c.tenantId, body: c.body) },
        "batchDelete": { a, c, _ in try await a.batchDelete(projectId: c.projectId, tenantId: c.tenantId, body: c.body) },
        "query": { a, c, _ in try a.queryAccounts(projectId: c.projectId, tenantId: c.tenantId, body: c.body) },
    ]

    /// Identity Toolkit answers are pretty-printed JSON, as Firebase's emulator sends them.
    static func json(_ v: JSON) -> HTTPResponse { .json(v, pretty: true) }

    /// Adds every Auth route to `r`.
    static func register(_ r: inout Router, _ s: EmulatorServices) {
        let auth = s.auth
        // Sorted: dictionary order changes from run to run, and `GET /emulator/v1/routes` lists
        // routes in registration order.
        for (verb, op) in accountOps.sorted(by: { $0.key < $1.key }) {
            r.post("\(itk)/v1/accounts:\(verb)") { req, _ in
                json(try await op(auth, try AuthCall.make(req, s, .apiKeyOrBearer), req))
            }
        }
        for (name, verb) in legacy.sorted(by: { $0.key < $1.key }) {
            guard let op = accountOps[verb] else { continue }
            r.post("/www.googleapis.com/identitytoolkit/v3/relyingparty/\(name)") { req, _ in
                json(try await op(auth, try AuthCall.make(req, s, .apiKeyOrBearer), req))
            }
        }
        for (verb, op) in mfaOps.sorted(by: { $0.key < $1.key }) {
            r.post("\(itk)/v2/accounts/\(verb)") { req, _ in
                json(try await op(auth, try AuthCall.make(req, s, .apiKeyOrBearer), req))
            }
        }
        // Admin routes, for the project's own users and (under /tenants/{tenant}) a tenant's.
        for base in ["\(itk)/v1/projects/{project}", "\(itk)/v1/projects/{project}/tenants/{tenant}"] {
            @Sendable func call(_ req: HTTPRequest, _ m: RouteMatch) throws -> AuthCall {
                try AuthCall.make(req, s, .owner, pathProject: m["project"], pathTenant: m.params["tenant"])
            }
            for (verb, op) in projectOps.sorted(by: { $0.key < $1.key }) {
                r.post("\(base)/accounts:\(verb)") { req, m in json(try await op(auth, try call(req, m), req)) }
            }
            r.post("\(base):queryAccounts") { req, m in
                let c = try call(req, m)
                return json(try auth.queryAccounts(projectId: c.projectId, tenantId: c.tenantId, body: c.body))
            }
            r.post("\(base)/accounts") { req, m in
                let c = try call(req, m)
                return json(try await auth.signUp(projectId: c.projectId, tenantId: c.tenantId, body: c.body, privileged: true))
            }
            r.get("\(base)/accounts:batchGet") { req, m in
                _ = try AuthCall.make(HTTPRequest(method: "GET", target: req.target, headers: req.headers), s, .owner, pathProject: m["project"])
                guard let max = req.query("maxResults").map({ Int($0) }) ?? Optional(20) else {
                    throw EmulatorError.authBadRequest("INVALID_ARGUMENT : maxResults must be an integer")
                }
                // firebase-tools also takes the tenant as a query parameter (its exporter sends it).
                let tenant = try reconcile(m.params["tenant"], req.query("tenantId"))
                return json(try auth.batchGet(projectId: m["project"], tenantId: tenant, maxResults: max, pageToken: req.query("nextPageToken")))
            }
            r.post("\(base):createSessionCookie") { req, m in
                let c = try call(req, m)
                return json(try auth.createSessionCookie(projectId: c.projectId, tenantId: c.tenantId, body: c.body))
            }
        }
        r.get("\(itk)/v1/projects") { req, _ in
            _ = try AuthCall.make(req, s, .apiKeyOrBearer)
            return json(["projectId": "12345", "authorizedDomains": ["localhost"]])
        }
        r.get("\(itk)/v1/recaptchaParams") { req, _ in
            _ = try AuthCall.make(req, s, .apiKeyOrBearer)
            return json([
                "kind": "identitytoolkit#GetRecaptchaParamResponse",
                "recaptchaStoken": "This-is-a-fake-token__Dont-send-this-to-the-Recaptcha-service__The-Auth-Emulator-does-not-support-Recaptcha",
                "recaptchaSiteKey": "Fake-key__Do-not-send-this-to-Recaptcha_",
            ])
        }
        r.post("/securetoken.googleapis.com/v1/token") { req, _ in
            let c = try AuthCall.make(req, s, .apiKey)
            let b = c.body
            return json(
                try auth.refresh(
                    projectId: c.projectId, grantType: b["grantType"]?.stringValue, refreshToken: b["refreshToken"]?.stringValue,
                    tenantId: b["tenantId"]?.stringValue))
        }
        registerKeys(&r, s)
        registerEmulator(&r, s)
        registerTenants(&r, s)
        registerUnimplemented(&r)
    }

    /// The path's and the query's tenant, which must agree (`TENANT_ID_MISMATCH`).
    static func reconcile(_ path: String?, _ query: String?) throws -> String? {
        let q = query.flatMap { $0.isEmpty ? nil : $0 }
        if let path, let q, path != q { throw EmulatorError.authBadRequest("TENANT_ID_MISMATCH") }
        return path ?? q
    }

    /// `accounts:createAuthUri`: sign-in methods for an identifier (`fetchSignInMethodsForEmail`).
    static func createAuthUri(_ a: AuthService, _ c: AuthCall) throws -> JSON {
        guard let id = c.body["identifier"]?.stringValue ?? c.body["email"]?.stringValue else {
            throw EmulatorError.authBadRequest("MISSING_IDENTIFIER")
        }
        if c.body["providerId"] != nil { throw EmulatorError(.unimplemented, "Sign-in with IDP is not yet supported.") }
        let methods = try a.signInMethods(projectId: c.projectId, tenantId: try reconcile(c.tenantId, c.body["tenantId"]?.stringValue), email: id)
        var o: UTF8Dictionary<JSON> = [
            "kind": "identitytoolkit#CreateAuthUriResponse", "registered": .bool(!methods.isEmpty),
            "sessionId": .string("ValueNotUsedByAuthEmulator"),
        ]
        if !methods.isEmpty {
            o["allProviders"] = .array(methods.map { .string($0 == "emailLink" ? "password" : $0) })
            o["signinMethods"] = .array(methods.map { .string($0) })
        }
        return .object(o)
    }
}
