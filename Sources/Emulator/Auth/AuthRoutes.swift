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
        "signUp": { a, c, _ in try await a.signUp(projectId: c.projectId, body: c.body, privileged: c.privileged) },
        "signInWithPassword": { a, c, _ in try await a.signInWithPassword(projectId: c.projectId, body: c.body) },
        "signInWithIdp": { a, c, _ in try await a.signInWithIdp(projectId: c.projectId, body: c.body) },
        "signInWithCustomToken": { a, c, _ in try await a.signInWithCustomToken(projectId: c.projectId, body: c.body) },
        "signInWithEmailLink": { a, c, _ in try await a.signInWithEmailLink(projectId: c.projectId, body: c.body) },
        "signInWithPhoneNumber": { a, c, _ in try await a.signInWithPhoneNumber(projectId: c.projectId, body: c.body) },
        "sendVerificationCode": { a, c, _ in try a.sendVerificationCode(projectId: c.projectId, body: c.body) },
        "sendOobCode": { a, c, r in try await a.sendOobCode(projectId: c.projectId, body: c.body, privileged: c.privileged, linkBase: AuthCall.origin(r)) },
        "resetPassword": { a, c, _ in try a.resetPassword(projectId: c.projectId, body: c.body) },
        "update": { a, c, _ in try await a.update(projectId: c.projectId, body: c.body, privileged: c.privileged) },
        "lookup": { a, c, _ in try a.lookup(projectId: c.projectId, body: c.body, privileged: c.privileged) },
        "delete": { a, c, _ in try await a.deleteAccount(projectId: c.projectId, body: c.body, privileged: c.privileged) },
        "createAuthUri": { a, c, _ in try createAuthUri(a, c) },
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
        "lookup": { a, c, _ in try a.lookup(projectId: c.projectId, body: c.body, privileged: c.privileged) },
        "update": { a, c, _ in try await a.update(projectId: c.projectId, body: c.body, privileged: c.privileged) },
        "delete": { a, c, _ in try await a.deleteAccount(projectId: c.projectId, body: c.body, privileged: c.privileged) },
        "sendOobCode": { a, c, r in try await a.sendOobCode(projectId: c.projectId, body: c.body, privileged: c.privileged, linkBase: AuthCall.origin(r)) },
        "batchCreate": { a, c, _ in try a.batchCreate(projectId: c.projectId, body: c.body) },
        "batchDelete": { a, c, _ in try await a.batchDelete(projectId: c.projectId, body: c.body) },
        "query": { a, c, _ in try a.queryAccounts(projectId: c.projectId, body: c.body) },
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
        for (verb, op) in projectOps.sorted(by: { $0.key < $1.key }) {
            r.post("\(itk)/v1/projects/{project}/accounts:\(verb)") { req, m in json(try await op(auth, try AuthCall.make(req, s, .owner, pathProject: m["project"]), req)) }
        }
        r.post("\(itk)/v1/projects/{project}:queryAccounts") { req, m in
            json(try auth.queryAccounts(projectId: m["project"], body: try AuthCall.make(req, s, .owner, pathProject: m["project"]).body))
        }
        r.post("\(itk)/v1/projects/{project}/accounts") { req, m in
            let c = try AuthCall.make(req, s, .owner, pathProject: m["project"])
            return json(try await auth.signUp(projectId: c.projectId, body: c.body, privileged: true))
        }
        r.get("\(itk)/v1/projects/{project}/accounts:batchGet") { req, m in
            _ = try AuthCall.make(HTTPRequest(method: "GET", target: req.target, headers: req.headers), s, .owner, pathProject: m["project"])
            guard let max = req.query("maxResults").map({ Int($0) }) ?? Optional(20) else {
                throw EmulatorError.authBadRequest("INVALID_ARGUMENT : maxResults must be an integer")
            }
            return json(try auth.batchGet(projectId: m["project"], maxResults: max, pageToken: req.query("nextPageToken")))
        }
        r.post("\(itk)/v1/projects/{project}:createSessionCookie") { req, m in
            let c = try AuthCall.make(req, s, .owner, pathProject: m["project"])
            return json(try auth.createSessionCookie(projectId: c.projectId, body: c.body))
        }
        r.get("\(itk)/v1/projects") { req, _ in
            _ = try AuthCall.make(req, s, .apiKeyOrBearer)
            return json(["projectId": "12345", "authorizedDomains": ["localhost"]])
        }
        r.get("\(itk)/v1/recaptchaParams") { req, _ in
            _ = try AuthCall.make(req, s, .apiKeyOrBearer)
            return json(["kind": "identitytoolkit#GetRecaptchaParamResponse", "recaptchaStoken": "This-is-a-fake-token__Dont-send-this-to-the-Recaptcha-service__The-Auth-Emulator-does-not-support-Recaptcha",
                         "recaptchaSiteKey": "Fake-key__Do-not-send-this-to-Recaptcha_"])
        }
        r.post("/securetoken.googleapis.com/v1/token") { req, _ in
            let c = try AuthCall.make(req, s, .apiKey)
            let b = c.body
            return json(try auth.refresh(projectId: c.projectId, grantType: b["grantType"]?.stringValue, refreshToken: b["refreshToken"]?.stringValue))
        }
        registerKeys(&r, s)
        registerEmulator(&r, s)
        registerUnimplemented(&r)
    }

    /// `accounts:createAuthUri`: sign-in methods for an identifier (`fetchSignInMethodsForEmail`).
    static func createAuthUri(_ a: AuthService, _ c: AuthCall) throws -> JSON {
        guard let id = c.body["identifier"]?.stringValue ?? c.body["email"]?.stringValue else { throw EmulatorError.authBadRequest("MISSING_IDENTIFIER") }
        if c.body["providerId"] != nil { throw EmulatorError(.unimplemented, "Sign-in with IDP is not yet supported.") }
        let methods = try a.signInMethods(projectId: c.projectId, email: id)
        var o: [String: JSON] = ["kind": "identitytoolkit#CreateAuthUriResponse", "registered": .bool(!methods.isEmpty),
                                 "sessionId": .string("ValueNotUsedByAuthEmulator")]
        if !methods.isEmpty {
            o["allProviders"] = .array(methods.map { .string($0 == "emailLink" ? "password" : $0) })
            o["signinMethods"] = .array(methods.map { .string($0) })
        }
        return .object(o)
    }
}
