import EmulatorCore
import EmulatorHTTP
import EmulatorTestSupport
import Testing

@testable import Emulator

/// One app for the suite: the signing key is generated once per `AuthService`.
let authApp: EmulatorApp = {
    var c = EmulatorConfig()
    c.projectId = "demo-http"
    return EmulatorApp(services: try! EmulatorServices(config: c, logger: NullLogSink()))
}()

func call(_ method: String, _ target: String, _ body: JSON? = nil, headers: HTTPHeaders = ["Content-Type": "application/json"]) async -> (Int, JSON) {
    (try? await authApp.call(method, target, body, headers: headers)) ?? (0, .null)  // in process, the transport never fails
}

let v1 = "/identitytoolkit.googleapis.com/v1"

@Test func signUpWithApiKeyAndIdentityToolkitErrorShape() async {
    let (s, r) = await call(
        "POST", "\(v1)/accounts:signUp?key=fake", ["email": "h1@example.com", "password": "secret1", "return_secure_token": true])
    #expect(s == 200 && r["idToken"] != nil && r["kind"] == "identitytoolkit#SignupNewUserResponse")
    let (s2, e) = await call("POST", "\(v1)/accounts:signUp?key=fake", ["email": "h1@example.com", "password": "secret1"])
    #expect(s2 == 400)
    #expect(
        e == ["error": ["code": 400, "message": "EMAIL_EXISTS", "errors": [["message": "EMAIL_EXISTS", "reason": "invalid", "domain": "global"]]]])
}

@Test func callerRules() async {
    let (s1, e1) = await call("POST", "\(v1)/accounts:signUp", [:])
    #expect(s1 == 403 && e1["error"]?["message"] == "The request is missing a valid API key." && e1["error"]?["status"] == "PERMISSION_DENIED")
    var h: HTTPHeaders = ["Authorization": "Bearer nonsense"]
    let (s2, e2) = await call("POST", "\(v1)/accounts:signUp?key=k", [:], headers: h)
    #expect(s2 == 401 && e2["error"]?["status"] == "UNAUTHENTICATED")
    let (s3, e3) = await call("POST", "\(v1)/projects/demo-http/accounts:lookup?key=k", ["localId": ["x"]])
    #expect(s3 == 400 && e3["error"]?["message"] == "INSUFFICIENT_PERMISSION : Only authenticated requests can specify target_project_id.")
    h = ["Authorization": "Bearer owner"]
    let (s4, r4) = await call("POST", "\(v1)/projects/demo-http/accounts", ["localId": "admin-made", "email": "adm@example.com"], headers: h)
    #expect(s4 == 200 && r4["localId"] == "admin-made")
    let (s5, r5) = await call("POST", "\(v1)/projects/demo-http/accounts:lookup", ["local_id": ["admin-made"]], headers: h)
    #expect(s5 == 200 && r5["users"]?.arrayValue?.first?["email"] == "adm@example.com")
    // DELETE-style admin delete with a body, as the Node Admin SDK sends it.
    let (s6, _) = await call("POST", "\(v1)/projects/demo-http/accounts:delete", ["localId": "admin-made"], headers: h)
    #expect(s6 == 200)
}

@Test func integerRequestTypeAndLegacyAlias() async {
    _ = await call("POST", "\(v1)/accounts:signUp?key=k", ["email": "int@example.com", "password": "secret1"])
    let (s, r) = await call(
        "POST", "/www.googleapis.com/identitytoolkit/v3/relyingparty/getOobConfirmationCode?key=k",
        ["requestType": 1, "email": "int@example.com"])
    #expect(s == 200 && r["email"] == "int@example.com")
    let (s2, r2) = await call(
        "POST", "/www.googleapis.com/identitytoolkit/v3/relyingparty/verifyPassword?key=k",
        ["email": "int@example.com", "password": "secret1"])
    #expect(s2 == 200 && r2["registered"] == true)
}

@Test func refreshTakesFormBodies() async {
    let (_, r) = await call("POST", "\(v1)/accounts:signUp?key=k", [:])
    let token = r["refreshToken"]?.stringValue ?? ""
    let req = HTTPRequest(
        method: "POST", target: "/securetoken.googleapis.com/v1/token?key=k",
        headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Array("grant_type=refresh_token&refresh_token=\(token)".utf8))
    let resp = await authApp.handle(req)
    let j = (try? JSON.parse(resp.body)) ?? .null
    #expect(resp.status == 200 && j["user_id"] == r["localId"] && j["id_token"] != nil)
}

@Test func keysEndpoints() async throws {
    let (s, jwks) = await call("GET", "/emulator/v1/jwks.json")
    let kid = try #require(jwks["keys"]?.arrayValue?.first?["kid"]?.stringValue)
    #expect(s == 200)
    let (s2, x509) = await call("GET", "/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com")
    #expect(s2 == 200 && x509[kid]?.stringValue?.hasPrefix("-----BEGIN CERTIFICATE-----") == true)
}

@Test func emulatorEndpointsAndStubs() async {
    let (s, c) = await call("PATCH", "/emulator/v1/projects/demo-other/config", ["signIn": ["allowDuplicateEmails": true]])
    #expect(s == 200 && c["signIn"]?["allowDuplicateEmails"] == true)
    let (_, g) = await call("GET", "/emulator/v1/projects/demo-other/config")
    #expect(g["signIn"]?["allowDuplicateEmails"] == true)
    let (s2, p) = await call("POST", "/emulator/v1/projects/demo-other/accounts:purgeAnonymous", ["olderThanSeconds": 0])
    #expect(s2 == 200 && p["deletedUids"] == [])
    let (s3, e3) = await call("POST", "/emulator/v1/projects/demo-other/accounts:purgeAnonymous", [:])
    #expect(s3 == 400 && e3["error"]?["message"] == "olderThanSeconds is required and must be a non-negative integer.")
    let (s4, e4) = await call("POST", "\(v1)/accounts:signInWithGameCenter?key=k", [:])
    #expect(s4 == 501 && e4["error"]?["message"] == "identitytoolkit.accounts.signInWithGameCenter is not implemented in the Auth Emulator.")
    let (s5, _) = await call("DELETE", "/emulator/v1/projects/demo-other/accounts")
    #expect(s5 == 200)
}

@Test func actionLinkVerifiesEmail() async throws {
    let (_, r) = await call("POST", "\(v1)/accounts:signUp?key=k", ["email": "act@example.com", "password": "secret1"])
    _ = await call("POST", "\(v1)/accounts:sendOobCode?key=k", ["requestType": "VERIFY_EMAIL", "idToken": r["idToken"] ?? .null])
    let (_, codes) = await call("GET", "/emulator/v1/projects/demo-http/oobCodes")
    // Other tests share the app and run in parallel: pick this test's code.
    let mine = codes["oobCodes"]?.arrayValue?.first { $0["email"] == "act@example.com" && $0["requestType"] == "VERIFY_EMAIL" }
    let link = try #require(mine?["oobLink"]?.stringValue)
    let path = String(link[try #require(link.range(of: "/emulator/action"))!.lowerBound...])
    let (s, body) = await call("GET", path)
    #expect(s == 200 && body["authEmulator"]?["email"] == "act@example.com")
    let (_, look) = await call("POST", "\(v1)/accounts:lookup?key=k", ["idToken": r["idToken"] ?? .null])
    #expect(look["users"]?.arrayValue?.first?["emailVerified"] == true)
}

@Test func callerResolutionVerifiesOurTokens() async throws {
    let (_, r) = await call("POST", "\(v1)/accounts:signUp?key=k", [:])
    let token = try #require(r["idToken"]?.stringValue)
    let req = HTTPRequest(method: "GET", target: "/", headers: ["Authorization": "Bearer \(token)"])
    let caller = try CallerResolver.resolve(req, projectId: "demo-http", services: authApp.services)
    #expect(caller.auth?.uid == r["localId"]?.stringValue)
    let bad = HTTPRequest(method: "GET", target: "/", headers: ["Authorization": "Bearer a.b.c"])
    #expect(throws: EmulatorError.self) { try CallerResolver.resolve(bad, projectId: "demo-http", services: authApp.services) }
}

@Test func malformedJSONIsAnInvalidArgument() async {
    let req = HTTPRequest(
        method: "POST", target: "\(v1)/accounts:signUp?key=k", headers: ["Content-Type": "application/json"], body: Array("{nope".utf8))
    let r = await authApp.handle(req)
    let j = (try? JSON.parse(r.body)) ?? .null
    #expect(r.status == 400 && j["error"]?["status"] == "INVALID_ARGUMENT")
    #expect(j["error"]?["message"]?.stringValue?.hasPrefix("Invalid JSON payload received.") == true)
    let (s, p) = await call("GET", "\(v1)/projects?key=k")
    #expect(s == 200 && p == ["projectId": "12345", "authorizedDomains": ["localhost"]])
}

@Test func actionLinkFindsCodesOfOtherProjects() async throws {
    let h: HTTPHeaders = ["Authorization": "Bearer owner"]
    _ = await call("POST", "\(v1)/projects/demo-second/accounts", ["localId": "p2", "email": "p2@example.com"], headers: h)
    let (_, r) = await call(
        "POST", "\(v1)/projects/demo-second/accounts:sendOobCode",
        ["requestType": "VERIFY_EMAIL", "email": "p2@example.com", "returnOobLink": true], headers: h)
    let link = try #require(r["oobLink"]?.stringValue)
    let path = String(link[try #require(link.range(of: "/emulator/action"))!.lowerBound...])
    let (s, _) = await call("GET", path)
    #expect(s == 200)
    let (_, look) = await call("POST", "\(v1)/projects/demo-second/accounts:lookup", ["localId": ["p2"]], headers: h)
    #expect(look["users"]?.arrayValue?.first?["emailVerified"] == true)
}

@Test func v2ProjectConfigNeedsOwner() async {
    let path = "/identitytoolkit.googleapis.com/v2/projects/demo-v2/config"
    let (s1, _) = await call("PATCH", path + "?key=k", ["signIn": ["allowDuplicateEmails": true]])
    #expect(s1 == 400)
    let (s2, r2) = await call(
        "PATCH", path + "?updateMask=signIn.allowDuplicateEmails", ["signIn": ["allowDuplicateEmails": true]],
        headers: ["Authorization": "Bearer owner", "Content-Type": "application/json"])
    #expect(s2 == 200 && r2["signIn"]?["allowDuplicateEmails"] == true && r2["name"] == "projects/demo-v2/config")
    let (s3, r3) = await call("GET", path, headers: ["Authorization": "Bearer owner"])
    #expect(s3 == 200 && r3["signIn"]?["allowDuplicateEmails"] == true)
    let (s4, r4) = await call("GET", "/identitytoolkit.googleapis.com/v2/projects/demo-v2/tenants", headers: ["Authorization": "Bearer owner"])
    #expect(s4 == 200 && r4["tenants"] == [])
    let (s5, e5) = await call("POST", "\(v1)/projects/demo-v2/tenants/t1/accounts:lookup", [:], headers: ["Authorization": "Bearer owner"])
    #expect(s5 == 400 && e5["error"]?["message"]?.stringValue?.hasPrefix("TENANT_NOT_FOUND") == true)
    // Tenant resources that are not modelled still say so.
    let (s6, e6) = await call(
        "GET", "/identitytoolkit.googleapis.com/v2/projects/demo-v2/tenants/t1/oauthIdpConfigs", headers: ["Authorization": "Bearer owner"])
    #expect(s6 == 501 && e6["error"]?["status"] == "UNIMPLEMENTED")
}

@Test func phoneFlowAndCreateAuthUriOverHTTP() async throws {
    let phone = "+1555\(UInt32.random(in: 1_000_000...9_999_999))"
    let (s1, sent) = await call("POST", "\(v1)/accounts:sendVerificationCode?key=k", ["phone_number": .string(phone)])
    #expect(s1 == 200)
    let (_, codes) = await call("GET", "/emulator/v1/projects/demo-http/verificationCodes")
    let mine = try #require(codes["verificationCodes"]?.arrayValue?.first { $0["sessionInfo"] == sent["sessionInfo"] })
    let (s2, signedIn) = await call(
        "POST", "\(v1)/accounts:signInWithPhoneNumber?key=k", ["sessionInfo": sent["sessionInfo"] ?? .null, "code": mine["code"] ?? .null])
    #expect(s2 == 200 && signedIn["phoneNumber"] == .string(phone) && signedIn["isNewUser"] == true)
    _ = await call("POST", "\(v1)/accounts:signUp?key=k", ["email": "uri@example.com", "password": "secret1"])
    let (s3, uri) = await call("POST", "\(v1)/accounts:createAuthUri?key=k", ["identifier": "uri@example.com", "continueUri": "http://localhost"])
    #expect(s3 == 200 && uri["registered"] == true && uri["signinMethods"] == ["password"])
    let (s4, e4) = await call("POST", "\(v1)/accounts:createAuthUri?key=k", [:])
    #expect(s4 == 400 && e4["error"]?["message"] == "MISSING_IDENTIFIER")
}
