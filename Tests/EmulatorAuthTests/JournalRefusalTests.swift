import EmulatorCore
import Testing

@testable import EmulatorAuth

/// A write-ahead journal that keeps entries in memory and can be told to refuse (a full disk).
final class MemoryJournal: Sendable {
    let entries = Mutex<[(String, JSON)]>([])
    let refusing = Mutex(false)
    static let refusal = EmulatorError(.unavailable, "disk full")

    func append(_ project: String, _ entry: JSON) throws {
        if refusing.withLock({ $0 }) { throw Self.refusal }
        entries.withLock { $0.append((project, entry)) }
    }
}

/// Every kind of Auth write, refused by the journal, leaves the state exactly as it was (the
/// mutators' first-touch records undo it) and fires no hooks; accepted ones replay to the same state.
@Test func refusedAuthWritesChangeNothingAndFireNoHooks() async throws {
    let (a, _) = try makeService()
    let hooks = RecordingHooks()
    a.setHooks(hooks)
    let journal = MemoryJournal()
    a.setJournal(journal.append)
    let keep = try await signUp(a, "keep@example.com")
    let uid = try #require(keep["localId"]?.stringValue)
    let tenant = try #require(
        try a.createTenant(projectId: project, body: ["displayName": "T", "allowPasswordSignup": true])["name"]?
            .stringValue?.split(separator: "/").last.map(String.init))
    _ = try await a.signUp(
        projectId: project, body: ["email": "t@example.com", "password": "secret1", "tenantId": .string(tenant)], privileged: false)
    _ = try await a.sendOobCode(
        projectId: project, body: ["requestType": "PASSWORD_RESET", "email": "keep@example.com"], privileged: false, linkBase: "http://h")
    _ = try a.sendVerificationCode(projectId: project, body: ["phoneNumber": "+15550000001"])
    let before = a.snapshot(projectId: project)
    let export = a.exportProject(project)
    let calls = hooks.calls.withLock { $0 }

    journal.refusing.withLock { $0 = true }
    func refused(_ what: String, _ op: () async throws -> Void) async {
        do {
            try await op()
            Issue.record("\(what) was not refused")
        } catch let e as EmulatorError {
            #expect(e == MemoryJournal.refusal, "\(what): \(e)")
        } catch {
            Issue.record("\(what): \(error)")
        }
        #expect(a.snapshot(projectId: project) == before, "\(what) left a change behind")
    }
    await refused("sign-up") { _ = try await signUp(a, "new@example.com") }
    await refused("tenant sign-up") {
        _ = try await a.signUp(
            projectId: project, body: ["email": "n@example.com", "password": "secret1", "tenantId": .string(tenant)], privileged: false)
    }
    await refused("sign-in") { _ = try await a.signInWithPassword(projectId: project, body: ["email": "keep@example.com", "password": "secret1"]) }
    await refused("update") {
        _ = try await a.update(
            projectId: project, body: ["localId": .string(uid), "email": "moved@example.com", "displayName": "K"], privileged: true)
    }
    await refused("delete") { try await a.deleteUser(projectId: project, uid: uid) }
    await refused("delete all") { try a.deleteAllAccounts(projectId: project) }
    await refused("oob code") {
        _ = try await a.sendOobCode(
            projectId: project, body: ["requestType": "VERIFY_EMAIL", "email": "keep@example.com"], privileged: true, linkBase: "http://h")
    }
    await refused("sms code") { _ = try a.sendVerificationCode(projectId: project, body: ["phoneNumber": "+15550000002"]) }
    await refused("config") { _ = try a.updateConfig(projectId: project, patch: ["signIn": ["allowDuplicateEmails": true]]) }
    await refused("new tenant") { _ = try a.createTenant(projectId: project, body: ["displayName": "U"]) }
    await refused("delete tenant") { try a.deleteTenant(projectId: project, tenantId: tenant) }
    await refused("reset") { try a.resetProject(project) }
    await refused("import") { try a.importProject(project, ["users": [:]]) }
    // Blocking functions run before a write (as in production); user events only after one.
    #expect(hooks.calls.withLock { $0 }.dropFirst(calls.count).filter { !$0.hasPrefix("before") } == [], "no user event for a refused write")
    #expect(a.exportProject(project) == export)

    journal.refusing.withLock { $0 = false }
    _ = try await signUp(a, "after@example.com")
    let replayed = AuthService(environments: LocalEnvironmentProvider(), keyring: testKeyring)
    for (p, e) in journal.entries.withLock({ $0 }) { try replayed.replay(project: p, entry: e) }
    #expect(replayed.snapshot(projectId: project) == a.snapshot(projectId: project))
}

@Test func authStateNeverExistsUnderAnInvalidProjectId() async throws {
    let (a, _) = try makeService()
    for bad in ["victim.json\u{0}x", "a/b", "UPPER", ""] {
        await #expect(throws: EmulatorError.self) {
            _ = try await a.signUp(projectId: bad, body: ["email": "x@example.com", "password": "secret1"], privileged: false)
        }
        #expect(throws: EmulatorError.self) { try a.importProject(bad, [:]) }
        #expect(throws: EmulatorError.self) { try a.replay(project: bad, entry: ["users": [:]]) }
    }
    #expect(a.projectsWithData.isEmpty)
}

@Test func anImportWithABadSigningKeyIsRefusedBeforeItIsJournaled() async throws {
    let (a, _) = try makeService()
    let journal = MemoryJournal()
    a.setJournal(journal.append)
    _ = try await signUp(a, "keep@example.com")
    let count = journal.entries.withLock { $0.count }
    #expect(throws: EmulatorError.self) { try a.importProject(project, ["users": [:], "signingKey": "not a key"]) }
    #expect(journal.entries.withLock { $0.count } == count, "a record replay could not load was never written")
    #expect(a.snapshot(projectId: project).user(email: "keep@example.com") != nil)
}
