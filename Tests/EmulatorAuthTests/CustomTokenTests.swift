import EmulatorCore
import EmulatorCrypto
import Testing

@testable import EmulatorAuth

/// Custom tokens when unsigned tokens are refused (issue 22, item 10): only RS256 tokens signed by
/// a key the emulator knows are exchanged for ID tokens. The socket-level proof, with a
/// service-account file named in the config, is Tests/python/security/test_custom_tokens.py.

private let aud = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"
private let strictConfig: AuthServiceConfig = {
    var c = AuthServiceConfig()
    c.signIdTokens = true
    c.acceptUnsignedTokens = false
    return c
}()
private let foreignKey = try! RSASigningKey.generate()

private func claims(uid: String, iss: String = "svc@demo.iam.gserviceaccount.com") -> UTF8Dictionary<JSON> {
    ["aud": .string(aud), "uid": .string(uid), "iss": .string(iss), "sub": .string(iss)]
}

@Test func strictModeRefusesUnsignedJSONAndForeignCustomTokens() async throws {
    let (a, _) = try makeService(strictConfig)
    for token in [try JWT.encode(claims(uid: "victim"), key: nil), "{\"uid\":\"victim\"}", try JWT.encode(claims(uid: "victim"), key: foreignKey)] {
        let m = await message { try await a.signInWithCustomToken(projectId: project, body: ["token": .string(token)]) }
        #expect(m?.hasPrefix("INVALID_CUSTOM_TOKEN") == true, "\(token.prefix(20)): \(m ?? "accepted")")
    }
    #expect(a.read(AuthScope(project, tenant: nil)) { $0.user("victim") } == nil)
}

@Test func strictModeAcceptsTrustedServiceAccountsAndTheEmulatorsOwnTokens() async throws {
    let (a, _) = try makeService(strictConfig)
    a.customTokenSigners.trust(keyId: foreignKey.kid, email: "svc@demo.iam.gserviceaccount.com", key: foreignKey)
    let r = try await a.signInWithCustomToken(projectId: project, body: ["token": .string(try JWT.encode(claims(uid: "alice"), key: foreignKey))])
    #expect(try claims(r["idToken"])["user_id"] == "alice")
    // The key is trusted for its own service account only.
    let other = try JWT.encode(claims(uid: "alice", iss: "someone@else.test"), key: foreignKey)
    #expect(await message { try await a.signInWithCustomToken(projectId: project, body: ["token": .string(other)]) }?.contains("iss must be") == true)
    // Minted by the control plane.
    let minted = try #require(
        try a.mintCustomToken(projectId: project, tenantId: nil, body: ["uid": "bob", "claims": ["role": "admin"]])["token"]?.stringValue)
    let b = try await a.signInWithCustomToken(projectId: project, body: ["token": .string(minted)])
    #expect(try claims(b["idToken"])["role"] == "admin")
    #expect(await message { try a.mintCustomToken(projectId: project, tenantId: nil, body: ["claims": [:]]) } == "uid is required.")
}

@Test func defaultModeStillTakesUnsignedCustomTokensAsAdminSDKsMintThem() async throws {
    let (a, _) = try makeService()
    _ = try await a.signInWithCustomToken(projectId: project, body: ["token": .string(try JWT.encode(claims(uid: "u1"), key: nil))])
    _ = try await a.signInWithCustomToken(projectId: project, body: ["token": .string(try JWT.encode(claims(uid: "u2"), key: foreignKey))])
}
