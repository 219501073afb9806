import EmulatorCore
import Testing

@testable import EmulatorAuth

@Test func idTokenIsUnsignedByDefaultLikeFirebasesEmulator() async throws {
    let (a, _) = try makeService()
    let r = try await a.signUp(projectId: project, body: ["email": "u@example.com", "password": "secret1"], privileged: false)
    let token = try #require(r["idToken"]?.stringValue)
    let jwt = try #require(JWT.decode(token))
    #expect(jwt.header == ["alg": "none", "typ": "JWT"] && jwt.signature.isEmpty && token.hasSuffix("."))
    #expect(jwt.payload["iss"] == .string("https://securetoken.google.com/\(project)") && jwt.payload["aud"] == .string(project))
    // The strict verifier (what an Admin SDK accepts against Firebase's emulator) takes it.
    #expect(try a.verifyIDTokenStrictly(projectId: project, token: token).uid == r["localId"]?.stringValue)
}

@Test func idTokenIsRS256WithFirebaseClaimsWhenSigning() async throws {
    let (a, _) = try makeService(signingConfig)
    let r = try await a.signUp(projectId: project, body: ["email": "Al@Example.com", "password": "secret1", "displayName": "Al"], privileged: false)
    let jwt = try #require(JWT.decode(r["idToken"]!.stringValue!))
    #expect(jwt.header["alg"] == "RS256")
    #expect(jwt.header["kid"]?.stringValue == (try testKeyring.key().kid))
    let c = jwt.payload
    let uid = r["localId"]!
    #expect(c["iss"] == .string("https://securetoken.google.com/\(project)"))
    #expect(c["aud"] == .string(project))
    #expect(c["sub"] == uid && c["user_id"] == uid)
    #expect(c["iat"] == .int(start.seconds) && c["exp"] == .int(start.seconds + 3600) && c["auth_time"] == .int(start.seconds))
    #expect(c["email"] == "al@example.com" && c["email_verified"] == false && c["name"] == "Al")
    #expect(c["firebase"] == ["identities": ["email": ["al@example.com"]], "sign_in_provider": "password"])
    #expect(r["expiresIn"] == "3600")
}

@Test func anonymousTokenSaysAnonymous() async throws {
    let (a, _) = try makeService()
    let r = try await a.signUp(projectId: project, body: [:], privileged: false)
    let c = try #require(JWT.decode(r["idToken"]!.stringValue!)).payload
    #expect(c["provider_id"] == "anonymous")
    #expect(c["firebase"]?["sign_in_provider"] == "anonymous")
    #expect(c["email"] == nil)
}

@Test func verificationChecksSignatureExpiryAndRevocation() async throws {
    let (a, env) = try makeService(signingConfig)
    let r = try await signUp(a, "v@example.com")
    let token = r["idToken"]!.stringValue!
    #expect(try a.verifyIDToken(projectId: project, token: token).uid == r["localId"]!.stringValue!)
    // Wrong project → audience mismatch.
    #expect(await message { try a.verifyIDToken(projectId: "other", token: token) } == "INVALID_ID_TOKEN")
    // Tampered payload.
    var parts = token.split(separator: ".").map(String.init)
    parts[1] = Base64.urlEncode(Array(#"{"sub":"evil","aud":"demo-auth","iss":"https://securetoken.google.com/demo-auth"}"#.utf8))
    #expect(await message { try a.verifyIDToken(projectId: project, token: parts.joined(separator: ".")) } == "INVALID_ID_TOKEN")
    #expect(await message { try a.verifyIDToken(projectId: project, token: "garbage") } == "INVALID_ID_TOKEN")
    // Expiry follows the project clock.
    try env.clock.advance(seconds: 3601)
    #expect(await message { try a.verifyIDToken(projectId: project, token: token) } == "TOKEN_EXPIRED")
}

@Test func revocationByValidSinceAppliesToIDAndRefreshTokens() async throws {
    let (a, env) = try makeService()
    let r = try await signUp(a, "r@example.com")
    let uid = r["localId"]!.stringValue!
    try env.clock.advance(seconds: 10)
    _ = try await a.update(projectId: project, body: ["localId": .string(uid), "validSince": .string(String(start.seconds + 10))], privileged: true)
    #expect(await message { try a.lookup(projectId: project, body: ["idToken": r["idToken"]!], privileged: false) } == "TOKEN_EXPIRED")
    #expect(
        await message { try a.refresh(projectId: project, grantType: "refresh_token", refreshToken: r["refreshToken"]?.stringValue) }
            == "TOKEN_EXPIRED")
    // Without the revocation check (the store's view) the token is still well-formed and unexpired.
    #expect(try a.verifyIDToken(projectId: project, token: r["idToken"]!.stringValue!).uid == uid)
}

@Test func refreshIssuesNewIDTokenAndChecksInputs() async throws {
    let (a, env) = try makeService()
    let r = try await signUp(a, "f@example.com")
    try env.clock.advance(seconds: 100)
    let t = try a.refresh(projectId: project, grantType: "refresh_token", refreshToken: r["refreshToken"]?.stringValue)
    #expect(t["user_id"] == r["localId"] && t["token_type"] == "Bearer" && t["expires_in"] == "3600")
    let c = try #require(JWT.decode(t["id_token"]!.stringValue!)).payload
    #expect(c["iat"] == .int(start.seconds + 100) && c["auth_time"] == .int(start.seconds))
    #expect(await message { try a.refresh(projectId: project, grantType: nil, refreshToken: "x") } == "MISSING_GRANT_TYPE")
    #expect(await message { try a.refresh(projectId: project, grantType: "password", refreshToken: "x") } == "INVALID_GRANT_TYPE")
    #expect(await message { try a.refresh(projectId: project, grantType: "refresh_token", refreshToken: nil) } == "MISSING_REFRESH_TOKEN")
    #expect(await message { try a.refresh(projectId: project, grantType: "refresh_token", refreshToken: "nope") } == "INVALID_REFRESH_TOKEN")
}

@Test func unsignedTokensOnlyWhenAllowedAndWarnOnce() async throws {
    final class Lines: LogSink, @unchecked Sendable {
        var lines: [String] = []
        func log(_ level: LogLevel, _ component: String, _ message: String) { if level == .warning { lines.append(message) } }
    }
    let lines = Lines()
    let (a, _) = try makeService(signingConfig, logger: lines)
    let r = try await a.signUp(projectId: project, body: [:], privileged: false)
    let uid = r["localId"]!.stringValue!
    let unsigned = try JWT.encode(["sub": .string(uid), "aud": .string(project), "iat": .int(start.seconds)], key: nil)
    #expect(unsigned.hasSuffix("."))
    #expect(try a.verifyIDToken(projectId: project, token: unsigned).uid == uid)
    _ = try a.verifyIDToken(projectId: project, token: unsigned)
    #expect(lines.lines.count == 1)
    #expect(await message { try a.verifyIDToken(projectId: project, token: unsigned, allowUnsigned: false) } == "INVALID_ID_TOKEN")
    var cfg = signingConfig
    cfg.acceptUnsignedTokens = false
    let (strict, _) = try makeService(cfg)
    #expect(await message { try strict.verifyIDToken(projectId: project, token: unsigned) } == "INVALID_ID_TOKEN")
}

@Test func disabledAndDeletedUsersAreRejected() async throws {
    let (a, _) = try makeService()
    let r = try await signUp(a, "d@example.com")
    let uid = r["localId"]!.stringValue!
    _ = try await a.update(projectId: project, body: ["localId": .string(uid), "disableUser": true], privileged: true)
    #expect(await message { try a.lookup(projectId: project, body: ["idToken": r["idToken"]!], privileged: false) } == "USER_DISABLED")
    #expect(
        await message { try await a.signInWithPassword(projectId: project, body: ["email": "d@example.com", "password": "secret1"]) }
            == "USER_DISABLED")
    #expect(await message { try a.refresh(projectId: project, grantType: "refresh_token", refreshToken: r["refreshToken"]?.stringValue) } != nil)
    try await a.deleteUser(projectId: project, uid: uid)
    #expect(await message { try a.lookup(projectId: project, body: ["idToken": r["idToken"]!], privileged: false) } == "USER_NOT_FOUND")
}

@Test func customTokensUnsignedAndWithClaims() async throws {
    let (a, _) = try makeService()
    let aud = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"
    let t = try JWT.encode(["aud": .string(aud), "uid": "u1", "claims": ["admin": true]], key: nil)
    let r = try await a.signInWithCustomToken(projectId: project, body: ["token": .string(t)])
    #expect(r["isNewUser"] == true)
    let c = try #require(JWT.decode(r["idToken"]!.stringValue!)).payload
    #expect(c["sub"] == "u1" && c["admin"] == true && c["firebase"]?["sign_in_provider"] == "custom")
    // Claims carry over to refreshed tokens.
    let refreshed = try a.refresh(projectId: project, grantType: "refresh_token", refreshToken: r["refreshToken"]?.stringValue)
    #expect(JWT.decode(refreshed["id_token"]!.stringValue!)?.payload["admin"] == true)
    // RS256 with our key works too; a broken signature does not.
    let signed = try JWT.encode(["aud": .string(aud), "uid": "u1"], key: testKeyring.key())
    #expect(try await a.signInWithCustomToken(projectId: project, body: ["token": .string(signed)])["isNewUser"] == false)
    #expect(
        await message { try await a.signInWithCustomToken(projectId: project, body: ["token": .string(signed.dropLast(4) + "AAAA")]) }
            == "INVALID_CUSTOM_TOKEN : ((Invalid signature.))")
    #expect(await message { try await a.signInWithCustomToken(projectId: project, body: [:]) } == "MISSING_CUSTOM_TOKEN")
    #expect(
        await message {
            try await a.signInWithCustomToken(projectId: project, body: ["token": .string(try JWT.encode(["aud": .string(aud)], key: nil))])
        } == "MISSING_IDENTIFIER")
    #expect(
        await message {
            try await a.signInWithCustomToken(projectId: project, body: ["token": .string(try JWT.encode(["aud": "x", "uid": "u"], key: nil))])
        }?.hasPrefix("INVALID_CUSTOM_TOKEN : ((Invalid aud") == true)
    #expect(
        await message {
            try await a.signInWithCustomToken(
                projectId: project, body: ["token": .string(try JWT.encode(["aud": .string(aud), "uid": "u", "claims": ["sub": "x"]], key: nil))])
        } == "FORBIDDEN_CLAIM : sub")
}

@Test func customClaimsValidation() async throws {
    let (a, _) = try makeService()
    let r = try await signUp(a, "c@example.com")
    let uid = r["localId"]!.stringValue!
    try a.setCustomClaims(projectId: project, uid: uid, claims: ["role": "admin"])
    let t = try await a.signInWithPassword(projectId: project, body: ["email": "c@example.com", "password": "secret1"])
    #expect(JWT.decode(t["idToken"]!.stringValue!)?.payload["role"] == "admin")
    #expect(await message { try a.setCustomClaims(projectId: project, uid: uid, claims: ["firebase": 1]) } == "FORBIDDEN_CLAIM : firebase")
    #expect(
        await message { try a.setCustomClaims(projectId: project, uid: uid, claims: ["big": .string(String(repeating: "x", count: 1000))]) }
            == "CLAIMS_TOO_LARGE")
    #expect(
        await message { try await a.update(projectId: project, body: ["localId": .string(uid), "customAttributes": "[1]"], privileged: true) }
            == "INVALID_CLAIMS")
    #expect(
        await message { try await a.update(projectId: project, body: ["idToken": r["idToken"]!, "customAttributes": "{}"], privileged: false) }
            == "INSUFFICIENT_PERMISSION")
}

@Test func sessionCookieUsesSessionIssuer() async throws {
    let (a, _) = try makeService()
    let r = try await signUp(a, "s@example.com")
    let c = try a.createSessionCookie(projectId: project, body: ["idToken": r["idToken"]!, "validDuration": "600"])
    let p = try #require(JWT.decode(c["sessionCookie"]!.stringValue!)).payload
    #expect(p["iss"] == .string("https://session.firebase.google.com/\(project)") && p["exp"] == .int(start.seconds + 600))
    #expect(
        await message { try a.createSessionCookie(projectId: project, body: ["idToken": r["idToken"]!, "validDuration": 10]) } == "INVALID_DURATION")
}

/// The signature cache saves the RSA check for a repeated token, but every check that can change
/// (audience, expiry on the project clock, revocation, disabled users) still runs on a hit, and an
/// altered copy of a cached token is not a hit.
@Test func verifiedSignatureCacheNeverSkipsChangingChecks() async throws {
    let (a, env) = try makeService(signingConfig)
    let r = try await signUp(a, "cache@example.com")
    let token = r["idToken"]!.stringValue!, uid = r["localId"]!.stringValue!
    #expect(a.verifiedTokens.count == 0)
    #expect(try a.verifyIDToken(projectId: project, token: token).uid == uid)
    #expect(try a.verifyIDToken(projectId: project, token: token).uid == uid)
    #expect(a.verifiedTokens.count == 1)
    // A cached token under another project's audience, or with its signature altered, fails.
    #expect(await message { try a.verifyIDToken(projectId: "other", token: token) } == "INVALID_ID_TOKEN")
    var sig = Array(token.split(separator: ".")[2].utf8)
    sig[sig.count / 2] = sig[sig.count / 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
    let altered = token.split(separator: ".")[0...1].joined(separator: ".") + "." + String(decoding: sig, as: UTF8.self)
    #expect(await message { try a.verifyIDToken(projectId: project, token: altered) } == "INVALID_ID_TOKEN")
    #expect(a.verifiedTokens.count == 1)
    // Disabled users and revocation are checked on a hit.
    _ = try await a.update(projectId: project, body: ["localId": .string(uid), "disableUser": true], privileged: true)
    #expect(await message { try a.verifyIDToken(projectId: project, token: token, checkRevoked: true) } == "USER_DISABLED")
    // Expiry follows the project clock on a hit.
    try env.clock.advance(seconds: 3601)
    #expect(await message { try a.verifyIDToken(projectId: project, token: token) } == "TOKEN_EXPIRED")
}

@Test func verifiedTokenCacheIsBoundedAndKeyedByKid() throws {
    let cache = VerifiedTokenCache(capacity: 2)
    let jwt = JWT(header: [:], payload: [:], signingInput: [], signature: [])
    cache.insert("a", kid: "k1", jwt: jwt)
    cache.insert("b", kid: "k1", jwt: jwt)
    #expect(cache.count == 2)
    #expect(cache.lookup("a", kid: "k2") == nil)
    #expect(cache.lookup("a", kid: "k1") != nil)
    cache.insert("c", kid: "k1", jwt: jwt)
    #expect(cache.count == 1)
    #expect(cache.lookup("a", kid: "k1") == nil)
}

/// Unsigned mode (the default) makes no signing key until something needs one (published keys,
/// RS256 custom tokens), so no key generation is left running when a short-lived process exits,
/// and exports carry no key that was never used.
@Test func unsignedModeMakesNoKeyUntilOneIsNeeded() async throws {
    let a = AuthService(environments: LocalEnvironmentProvider())
    let r = try await a.signUp(projectId: project, body: [:], privileged: false)
    #expect(try a.verifyIDTokenStrictly(projectId: project, token: r["idToken"]!.stringValue!).uid == r["localId"]!.stringValue!)
    #expect(a.keyring.existingKey == nil && a.exportProject(project)["signingKey"] == nil)
    // An RS256 token cannot be ours before a key exists.
    let foreign = try JWT.encode(
        ["sub": "x", "aud": .string(project), "iss": .string("https://securetoken.google.com/\(project)")], key: testKeyring.key())
    #expect(await message { try a.verifyIDToken(projectId: project, token: foreign) } == "INVALID_ID_TOKEN")
    _ = try a.keyring.jwks()
    #expect(a.keyring.existingKey != nil && a.exportProject(project)["signingKey"] != nil)
}
