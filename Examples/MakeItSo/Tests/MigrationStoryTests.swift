import FirebaseEmulatorTesting
import Foundation
import Testing

/// The MakeItSo story as an app's test suite would tell it, with the testing library against a
/// running emulator serving Examples/MakeItSo (rules, the Swift functions codebase):
///
///     swift build && .build/debug/emulator exec --port 0 --config Examples/MakeItSo/emulator.json -- \
///         swift test --skip-build --filter MakeItSoTests
///
/// The functions live in the example's project (demo-makeitso), so the suite shares that project,
/// reset before and after each test, one test at a time. Without an emulator in the environment
/// the tests are skipped.
@Suite(
    .serialized,
    .enabled(if: FirebaseEmulator.isConfiguredInEnvironment(), "needs a running emulator: emulator exec --config Examples/MakeItSo/emulator.json"),
    .emulatorProject(shared: "demo-makeitso"))
struct MigrationStoryTests {
    static let appleSub = "apple-alice"
    static let appleEmail = "alice@privaterelay.appleid.com"

    /// A device of the story: signs in, adds and lists its user's tasks as the app would.
    struct Device {
        let project: EmulatorProject
        var user: TestUser

        func addTask(_ title: String) async throws(FirebaseEmulatorError) {
            try await project.firestore.as(user).add(to: "tasks", ["title": .string(title), "completed": false, "userId": .string(user.uid)])
        }

        /// Rules are not filters: the query names the caller's uid.
        func tasks() async throws(FirebaseEmulatorError) -> [String] {
            try await project.firestore.as(user).query("tasks", where: "userId", isEqualTo: .string(user.uid))
                .compactMap { $0["title"]?.stringValue }.sorted()
        }
    }

    func anonymousDevice(_ project: EmulatorProject, tasks: [String]) async throws -> Device {
        let device = Device(project: project, user: try await project.createUser(.anonymous))
        for t in tasks { try await device.addTask(t) }
        return device
    }

    @Test func anonymousTasksArePrivate() async throws {
        let project = try #require(EmulatorProject.current)
        let phone = try await anonymousDevice(project, tasks: ["buy milk", "call mum"])
        let stranger = try await anonymousDevice(project, tasks: [])
        #expect(try await phone.tasks() == ["buy milk", "call mum"])
        #expect(try await stranger.tasks().isEmpty)
        // Reading another user's tasks is refused, and the rules log says which condition decided.
        await #expect(throws: FirebaseEmulatorError.self) {
            _ = try await project.firestore.as(stranger.user).query("tasks", where: "userId", isEqualTo: .string(phone.user.uid))
        }
        let denial = try #require(try await project.rulesEvaluations(outcome: "deny").first)
        #expect(denial.uid == stranger.user.uid && denial.method == "list")
        // A task must carry its owner's uid.
        await #expect(throws: FirebaseEmulatorError.self) {
            try await project.firestore.as(stranger.user).add(to: "tasks", ["title": "spoof", "completed": false, "userId": .string(phone.user.uid)])
        }
    }

    @Test func linkingAppleKeepsTheUid() async throws {
        let project = try #require(EmulatorProject.current)
        let phone = try await anonymousDevice(project, tasks: ["buy milk"])
        let linked = try await project.signInWithIdp("apple.com", email: Self.appleEmail, sub: Self.appleSub, linkingTo: phone.user)
        #expect(linked.uid == phone.user.uid)
        #expect(linked.claims["firebase"]?["sign_in_provider"] == "apple.com")
        #expect(try await Device(project: project, user: linked).tasks() == ["buy milk"])
    }

    @Test func theSecondDeviceMigratesItsAnonymousTasks() async throws {
        let project = try #require(EmulatorProject.current)
        let phone = try await anonymousDevice(project, tasks: ["buy milk", "call mum"])
        let alice = try await project.signInWithIdp("apple.com", email: Self.appleEmail, sub: Self.appleSub, linkingTo: phone.user)
        let tablet = try await anonymousDevice(project, tasks: ["water plants"])

        // The Apple credential already belongs to the phone's account: linking it here fails.
        do {
            let caught = await #expect(throws: FirebaseEmulatorError.self) {
                _ = try await project.signInWithIdp("apple.com", email: Self.appleEmail, sub: Self.appleSub, linkingTo: tablet.user)
            }
            guard let error = caught else { return }
            #expect(error.message.hasPrefix("FEDERATED_USER_ID_ALREADY_LINKED"))
        }

        // So the app signs in with Apple (becoming Alice) and asks the function to migrate.
        let signedIn = try await project.signInWithIdp("apple.com", sub: Self.appleSub)
        #expect(signedIn.uid == alice.uid)
        let result = try await project.callFunction("migrateTasks", data: ["idToken": .string(tablet.user.idToken)], as: signedIn)
        #expect(result == ["updatedDocCount": 1, "anonymousUserId": .string(tablet.user.uid), "permanentUserId": .string(alice.uid)])

        try await project.waitIdle(timeout: 20)
        #expect(try await Device(project: project, user: signedIn).tasks() == ["buy milk", "call mum", "water plants"])
        #expect(try await project.firestore.get("users/\(alice.uid)")?["taskCount"] == 3)
        #expect(try await project.invocations().contains { $0.function == "migrateTasks" && $0.outcome == "ok" })

        // The anonymous account is gone: replaying its token fails.
        do {
            let caught = await #expect(throws: FirebaseEmulatorError.self) {
                _ = try await project.callFunction("migrateTasks", data: ["idToken": .string(tablet.user.idToken)], as: signedIn)
            }
            guard let error = caught else { return }
            #expect(error.status == 401)
        }
    }

    @Test func theFunctionRefusesWhatItMustNotTrust() async throws {
        let project = try #require(EmulatorProject.current)
        let tablet = try await anonymousDevice(project, tasks: ["water plants"])
        let alice = try await project.createUser(.apple(email: Self.appleEmail, sub: Self.appleSub))
        let data: JSONValue = ["idToken": .string(tablet.user.idToken)]
        // Not signed in; a uid instead of a token; an anonymous caller.
        await #expect(throws: FirebaseEmulatorError.self) { _ = try await project.callFunction("migrateTasks", data: data) }
        await #expect(throws: FirebaseEmulatorError.self) {
            _ = try await project.callFunction("migrateTasks", data: ["uid": .string(tablet.user.uid)], as: alice)
        }
        await #expect(throws: FirebaseEmulatorError.self) { _ = try await project.callFunction("migrateTasks", data: data, as: tablet.user) }
        // A sign-in older than five minutes on the project clock.
        try await project.advanceClock(by: 6 * 60)
        var stale = alice
        try await project.refresh(&stale)
        do {
            let caught = await #expect(throws: FirebaseEmulatorError.self) {
                _ = try await project.callFunction("migrateTasks", data: data, as: stale)
            }
            guard let error = caught else { return }
            #expect(error.message.contains("recent sign-in"))
        }
        #expect(try await tablet.tasks() == ["water plants"])
    }  // the trait puts the shared project's clock back afterwards
}
