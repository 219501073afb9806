import EmulatorCore
import Testing

@testable import EmulatorAuth

@Test(arguments: [
    ("apple.com", "a@example.com", true), ("google.com", "a@gmail.com", true), ("google.com", "a@googlemail.com", true),
    ("google.com", "a@example.com", false), ("yahoo.com", "a@yahoo.com", true), ("yahoo.com", "a@example.com", false),
    ("microsoft.com", "a@outlook.com", true), ("microsoft.com", "a@hotmail.com", true), ("microsoft.com", "a@example.com", false),
    ("facebook.com", "a@gmail.com", false), ("twitter.com", "a@gmail.com", false), ("github.com", "a@gmail.com", false),
])
func trustedProviders(provider: String, email: String, trusted: Bool) {
    #expect(TrustPolicy.isTrusted(providerId: provider, email: email) == trusted)
}

@Test func decisionTable() {
    #expect(TrustPolicy.decide(existingTrusted: false, newTrusted: false) == .needConfirmation)
    #expect(TrustPolicy.decide(existingTrusted: true, newTrusted: false) == .needConfirmation)
    #expect(TrustPolicy.decide(existingTrusted: false, newTrusted: true) == .takeOver)
    #expect(TrustPolicy.decide(existingTrusted: true, newTrusted: true) == .link)
}

@Test func row1UntrustedThenUntrustedNeedsConfirmation() async throws {
    let (a, _) = try makeService()
    let fb = try await a.signInWithIdp(projectId: project, body: idp("facebook.com", sub: "fb1", email: "al@example.com"))
    let before = a.snapshot(projectId: project)
    let gh = try await a.signInWithIdp(projectId: project, body: idp("github.com", sub: "gh1", email: "al@example.com"))
    #expect(gh["needConfirmation"] == true)
    #expect(gh["localId"] == fb["localId"])
    #expect(gh["idToken"] == nil)
    #expect(a.snapshot(projectId: project) == before)
}

@Test func row2TrustedThenUntrustedNeedsConfirmation() async throws {
    let (a, _) = try makeService()
    let g = try await a.signInWithIdp(projectId: project, body: idp("google.com", sub: "g1", email: "al@gmail.com"))
    #expect(g["emailVerified"] == true)
    let fb = try await a.signInWithIdp(projectId: project, body: idp("facebook.com", sub: "fb1", email: "al@gmail.com"))
    #expect(fb["needConfirmation"] == true)
    #expect(fb["verifiedProvider"] == ["google.com"])
}

@Test func row3UntrustedThenTrustedTakesOver() async throws {
    let (a, env) = try makeService()
    let fb = try await a.signInWithIdp(projectId: project, body: idp("facebook.com", sub: "fb1", email: "al@gmail.com"))
    let uid = try #require(fb["localId"]?.stringValue)
    try env.clock.advance(seconds: 5)
    let g = try await a.signInWithIdp(projectId: project, body: idp("google.com", sub: "g1", email: "al@gmail.com"))
    #expect(g["localId"]?.stringValue == uid)
    let user = try a.getUser(projectId: project, uid: uid)
    #expect(user.providers.map(\.providerId) == ["google.com"])
    #expect(user.emailVerified)
    // The old refresh token was revoked by the takeover.
    #expect(
        await message { try a.refresh(projectId: project, grantType: "refresh_token", refreshToken: fb["refreshToken"]?.stringValue) }
            == "TOKEN_EXPIRED")
    // Signing in with the removed untrusted provider now needs linking.
    let again = try await a.signInWithIdp(projectId: project, body: idp("facebook.com", sub: "fb1", email: "al@gmail.com"))
    #expect(again["needConfirmation"] == true)
}

@Test func row3UnverifiedPasswordIsRemovedByTrustedProvider() async throws {
    let (a, _) = try makeService()
    let pw = try await signUp(a, "bo@gmail.com")
    let g = try await a.signInWithIdp(projectId: project, body: idp("google.com", sub: "g2", email: "bo@gmail.com"))
    #expect(g["localId"] == pw["localId"])
    #expect(try a.getUser(projectId: project, uid: g["localId"]!.stringValue!).password == nil)
    #expect(
        await message { try await a.signInWithPassword(projectId: project, body: ["email": "bo@gmail.com", "password": "secret1"]) }
            == "INVALID_PASSWORD")
}

@Test func row4TrustedThenTrustedLinksBoth() async throws {
    let (a, _) = try makeService()
    let g = try await a.signInWithIdp(projectId: project, body: idp("google.com", sub: "g1", email: "al@gmail.com"))
    let ap = try await a.signInWithIdp(projectId: project, body: idp("apple.com", sub: "ap1", email: "al@gmail.com"))
    #expect(ap["localId"] == g["localId"])
    #expect(ap["needConfirmation"] == nil)
    let user = try a.getUser(projectId: project, uid: g["localId"]!.stringValue!)
    #expect(Set(user.providers.map(\.providerId)) == ["google.com", "apple.com"])
}

@Test func verifiedEmailThroughOurFlowIsTrusted() async throws {
    let (a, _) = try makeService()
    let pw = try await signUp(a, "cy@example.com")
    _ = try await a.sendOobCode(
        projectId: project, body: ["requestType": "VERIFY_EMAIL", "idToken": pw["idToken"]!], privileged: false, linkBase: "http://h")
    let code = try #require(a.listOobCodes(projectId: project)["oobCodes"]?.arrayValue?.first?["oobCode"]?.stringValue)
    try a.applyOobCode(projectId: project, code: code, newPassword: nil)
    let fb = try await a.signInWithIdp(projectId: project, body: idp("facebook.com", sub: "f", email: "cy@example.com"))
    #expect(fb["needConfirmation"] == true)  // trusted then untrusted
    let apple = try await a.signInWithIdp(projectId: project, body: idp("apple.com", sub: "a", email: "cy@example.com"))
    #expect(apple["localId"] == pw["localId"])  // trusted then trusted: linked, password kept
    #expect(try a.getUser(projectId: project, uid: pw["localId"]!.stringValue!).password != nil)
}

@Test func allowDuplicateEmailsCreatesSeparateAccounts() async throws {
    let (a, _) = try makeService()
    _ = try a.updateConfig(projectId: project, patch: ["signIn": ["allowDuplicateEmails": true]])
    let fb = try await a.signInWithIdp(projectId: project, body: idp("facebook.com", sub: "fb1", email: "al@example.com"))
    let gh = try await a.signInWithIdp(projectId: project, body: idp("github.com", sub: "gh1", email: "al@example.com"))
    #expect(gh["needConfirmation"] == nil)
    #expect(gh["localId"] != fb["localId"])
}
