import EmulatorCore
import EmulatorCrypto
import Testing

@testable import EmulatorAuth

/// One RSA key for the whole test process (generation is the slow part).
let testKeyring = TokenKeyring(key: try! RSASigningKey.generate())

let project = "demo-auth"
let start = Timestamp(seconds: 1_800_000_000)

/// The opt-in production-like mode: RS256-signed ID tokens (`auth.signIdTokens: true`).
let signingConfig: AuthServiceConfig = {
    var c = AuthServiceConfig()
    c.signIdTokens = true
    return c
}()

/// A service on a frozen, seeded project clock.
func makeService(_ config: AuthServiceConfig = AuthServiceConfig(), logger: any LogSink = NullLogSink()) throws -> (AuthService, ProjectEnvironment) {
    let envs = LocalEnvironmentProvider()
    let env = envs.environment(for: project)
    try env.clock.freeze(at: start)
    env.ids.reseed(42)
    return (AuthService(config: config, environments: envs, logger: logger, keyring: testKeyring), env)
}

/// The Identity Toolkit message of a thrown error, or nil when nothing was thrown.
func message(_ body: () async throws -> Any) async -> String? {
    do {
        _ = try await body()
        return nil
    } catch let e as EmulatorError {
        return e.message
    } catch {
        return "unexpected \(error)"
    }
}

/// A fake IdP credential as SDKs send it.
func idp(_ provider: String, sub: String, email: String?, verified: Bool = true, idToken: String? = nil) -> UTF8Dictionary<JSON> {
    var claims: UTF8Dictionary<JSON> = ["sub": .string(sub), "email_verified": .bool(verified)]
    if let email { claims["email"] = .string(email) }
    var b: UTF8Dictionary<JSON> = [
        "requestUri": "http://localhost", "returnSecureToken": true,
        "postBody": .string("providerId=\(provider)&id_token=\(AuthService.percentEncode(JSON.object(claims).serialized()))"),
    ]
    if let idToken { b["idToken"] = .string(idToken) }
    return b
}

func signUp(_ a: AuthService, _ email: String, _ password: String = "secret1") async throws -> JSON {
    try await a.signUp(projectId: project, body: ["email": .string(email), "password": .string(password)], privileged: false)
}

/// Records hook calls and can reject or modify.
final class RecordingHooks: AuthHooks {
    let calls = Mutex<[String]>([])
    let rejectCreate: Bool
    let result: BlockingResult?

    init(rejectCreate: Bool = false, result: BlockingResult? = nil) {
        self.rejectCreate = rejectCreate
        self.result = result
    }

    func beforeCreate(_ event: BlockingEvent) async throws -> BlockingResult? {
        calls.withLock { $0.append("beforeCreate:\(event.signInMethod)") }
        if rejectCreate { throw EmulatorError.authBadRequest("BLOCKING_FUNCTION_ERROR_RESPONSE : ((not allowed))") }
        return nil
    }

    func beforeSignIn(_ event: BlockingEvent) async throws -> BlockingResult? {
        calls.withLock { $0.append("beforeSignIn:\(event.signInMethod)" + (event.secondFactor.map { ":" + $0 } ?? "")) }
        return result
    }

    func userCreated(projectId: String, user: AuthUser) async { calls.withLock { $0.append("created") } }
    func userDeleted(projectId: String, user: AuthUser) async { calls.withLock { $0.append("deleted") } }
}

/// A user with a verified email signed in with a password (MFA-eligible), and its tokens.
func verifiedUser(_ a: AuthService, _ email: String, tenant: String? = nil) async throws -> (uid: String, idToken: String, refreshToken: String) {
    var body: UTF8Dictionary<JSON> = ["email": .string(email), "password": "secret1"]
    if let tenant { body["tenantId"] = .string(tenant) }
    let r = try await a.signUp(projectId: project, body: body, privileged: false)
    let uid = try #require(r["localId"]?.stringValue)
    _ = try await a.update(projectId: project, tenantId: tenant, body: ["localId": .string(uid), "emailVerified": true], privileged: true)
    let s = try await a.signInWithPassword(projectId: project, body: body)
    return (uid, try #require(s["idToken"]?.stringValue), try #require(s["refreshToken"]?.stringValue))
}

/// The claims of a token.
func claims(_ token: JSON?) throws -> UTF8Dictionary<JSON> { try #require(token?.stringValue.flatMap(JWT.decode)).payload }

/// The newest SMS code listed for the pool.
func lastCode(_ a: AuthService, tenant: String? = nil) throws -> (code: String, session: String, phone: String) {
    let c = try #require(a.listVerificationCodes(projectId: project, tenantId: tenant)["verificationCodes"]?.arrayValue?.last)
    return (try #require(c["code"]?.stringValue), try #require(c["sessionInfo"]?.stringValue), try #require(c["phoneNumber"]?.stringValue))
}

/// Enrols `phone` as a second factor through the v2 calls; returns the new tokens and the enrolment id.
func enrollPhone(_ a: AuthService, idToken: String, phone: String, tenant: String? = nil) async throws -> (
    idToken: String, refreshToken: String, enrollmentId: String
) {
    var start: UTF8Dictionary<JSON> = ["idToken": .string(idToken), "phoneEnrollmentInfo": ["phoneNumber": .string(phone)]]
    if let tenant { start["tenantId"] = .string(tenant) }
    let s = try a.mfaEnrollmentStart(projectId: project, body: start)
    let session = try #require(s["phoneSessionInfo"]?["sessionInfo"])
    let code = try lastCode(a, tenant: tenant).code
    var fin: UTF8Dictionary<JSON> = [
        "idToken": .string(idToken), "displayName": "phone", "phoneVerificationInfo": ["sessionInfo": session, "code": .string(code)],
    ]
    if let tenant { fin["tenantId"] = .string(tenant) }
    let f = try a.mfaEnrollmentFinalize(projectId: project, body: fin)
    let t = try #require(f["idToken"]?.stringValue)
    let id = try #require(try claims(.string(t))["firebase"]?["second_factor_identifier"]?.stringValue)
    return (t, try #require(f["refreshToken"]?.stringValue), id)
}
