import EmulatorCore
import EmulatorTestSupport
import FirebaseEmulatorTesting
import Foundation
import Testing
import XCTest

/// The Swift Testing trait: each test (and each argument) gets its own project.
@Suite(.inProcessProject(configure: { try await $0.setRules(ownerRules) }))
struct TraitTests {
    @Test func theProjectIsReachableFromTheBody() async throws {
        let project = try #require(EmulatorProject.current)
        #expect(try await project.emulator.projectIds().contains(project.id))
        let alice = try await project.createUser()
        await #expect(throws: FirebaseEmulatorError.self) { try await project.firestore.as(alice).set("tasks/t1", ["userId": "someone else"]) }
    }

    @Test(arguments: ["a", "b"]) func eachCaseGetsItsOwnProject(value: String) async throws {
        let project = try #require(EmulatorProject.current)
        #expect(try await project.firestore.get("tasks/shared") == nil)
        try await project.firestore.set("tasks/shared", ["value": .string(value)])
    }
}

/// The trait against the live emulator, and removal afterwards.
@Suite struct LiveTraitTests {
    @Test(.emulatorProject(emulator: { try await Backend.liveEmulator.value })) func liveProject() async throws {
        let project = try #require(EmulatorProject.current)
        #expect(project.emulator.transport.endpoint.hasPrefix("http://"))
        #expect(try await project.firestore.get("tasks/t1") == nil)
        try await project.firestore.set("tasks/t1", ["title": "live"])
    }

    @Test func sharedIsolationResetsAnExistingProject() async throws {
        let emulator = try await Backend.liveEmulator.value
        let shared = try await emulator.createProject(hint: "shared")
        try await shared.firestore.set("tasks/left-over", ["x": 1])
        try await shared.freezeClock(at: try #require(EmulatorProject.parseRFC3339("2031-01-01T00:00:00Z")))
        let trait = EmulatorProjectTrait.emulatorProject(shared: shared.id, emulator: { emulator })
        try await trait.provideScope(for: try #require(Test.current), testCase: Test.Case.current) {
            let p = try #require(EmulatorProject.current)
            #expect(p.id == shared.id)
            #expect(try await p.firestore.get("tasks/left-over") == nil)
            try await p.firestore.set("tasks/inside", ["x": 2])
        }
        #expect(try await shared.firestore.get("tasks/inside") == nil)
        #expect(abs(try await shared.now().timeIntervalSinceNow) < 60)
    }

    @Test func freshIsolationRemovesTheProjectEvenWhenTheTestThrows() async throws {
        let emulator = try await Backend.liveEmulator.value
        struct Boom: Error {}
        let made = Mutex<EmulatorProject?>(nil)
        await #expect(throws: Boom.self) {
            try await EmulatorProjectTrait.emulatorProject(emulator: { emulator }).provideScope(
                for: try #require(Test.current), testCase: Test.Case.current
            ) {
                let p = try #require(EmulatorProject.current)
                try await p.firestore.set("tasks/t1", ["x": 1])
                made.withLock { $0 = p }
                throw Boom()
            }
        }
        let project = try #require(made.withLock { $0 })
        #expect(try await project.firestore.get("tasks/t1") == nil)
        #expect(EmulatorProject.current == nil)
    }
}

/// The XCTest base class, against an in-process emulator.
final class EmulatorTestCaseTests: EmulatorTestCase {
    override func makeEmulator() throws -> FirebaseEmulator { try FirebaseEmulator.inProcess() }

    override func configure(_ project: EmulatorProject) async throws {
        try await project.firestore.set("config/app", ["version": 3])
    }

    func testEachMethodHasAConfiguredProject() async throws {
        let version = try await project.firestore.get("config/app")?["version"]
        XCTAssertEqual(version, 3)
        let user = try await project.createUser(.anonymous)
        XCTAssertEqual(user.provider, "anonymous")
    }

    func testProjectsDiffer() async throws {
        XCTAssertTrue(project.id.hasPrefix("t-"))
        let missing = try await project.firestore.get("tasks/t1")
        XCTAssertNil(missing)
    }
}
