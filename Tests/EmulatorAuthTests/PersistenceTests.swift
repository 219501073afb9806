import EmulatorCore
import Testing

@testable import EmulatorAuth

@Test func exportImportKeepsUsersHashesTokensAndKey() async throws {
    let (a, _) = try makeService()
    let r = try await signUp(a, "keep@example.com")
    _ = try a.batchCreate(
        projectId: project,
        body: [
            "hashAlgorithm": "HMAC_SHA256", "signerKey": "a2V5",
            "users": [["localId": "imp", "email": "imp@example.com", "salt": "AQID", "passwordHash": "AAAA"]],
        ])
    _ = try await a.sendOobCode(
        projectId: project, body: ["requestType": "EMAIL_SIGNIN", "email": "x@example.com"], privileged: false, linkBase: "http://h")
    _ = try a.updateConfig(projectId: project, patch: ["signIn": ["allowDuplicateEmails": true]])
    let export = a.exportProject(project)
    #expect(a.projectsWithData == [project])

    // A fresh service (new key) adopts the exported key and state.
    let envs = LocalEnvironmentProvider()
    try envs.environment(for: project).clock.freeze(at: start)
    let b = AuthService(environments: envs, keyring: TokenKeyring(key: try .generate()))
    try b.importProject(project, export)
    #expect(b.snapshot(projectId: project) == a.snapshot(projectId: project))
    #expect(try b.keyring.key().kid == testKeyring.key().kid)
    #expect(try b.verifyIDToken(projectId: project, token: r["idToken"]!.stringValue!, checkRevoked: true).uid == r["localId"]!.stringValue!)
    #expect(try b.refresh(projectId: project, grantType: "refresh_token", refreshToken: r["refreshToken"]?.stringValue)["user_id"] == r["localId"])
    #expect(try await b.signInWithPassword(projectId: project, body: ["email": "keep@example.com", "password": "secret1"])["idToken"] != nil)
    #expect(throws: EmulatorError.self) { try b.importProject(project, ["users": ["u": ["localId": "u"]]]) }
}

@Test func journalEntriesReplayToTheSameState() async throws {
    let (a, env) = try makeService()
    let entries = Mutex<[JSON]>([])
    a.setJournal { p, e in if p == project { entries.withLock { $0.append(e) } } }
    let r = try await signUp(a, "j@example.com")
    let anon = try await a.signUp(projectId: project, body: [:], privileged: false)
    _ = try a.sendVerificationCode(projectId: project, body: ["phoneNumber": "+15550000"])
    _ = try await a.update(projectId: project, body: ["localId": r["localId"]!, "displayName": "J"], privileged: true)
    try env.clock.advance(seconds: 60)
    _ = try await a.purgeAnonymous(projectId: project, olderThanSeconds: 1)
    _ = try a.updateConfig(projectId: project, patch: ["emailPrivacyConfig": ["enableImprovedEmailPrivacy": true]])
    try a.deleteAllAccounts(projectId: project)
    _ = try await signUp(a, "after@example.com")
    #expect(a.snapshot(projectId: project).user(anon["localId"]!.stringValue!) == nil)

    let envs = LocalEnvironmentProvider()
    let b = AuthService(environments: envs, keyring: testKeyring)
    for e in entries.withLock({ $0 }) { try b.replay(project: project, entry: e) }
    #expect(b.snapshot(projectId: project) == a.snapshot(projectId: project))
    #expect(b.snapshot(projectId: project).user(email: "after@example.com") != nil)
}
