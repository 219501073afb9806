import Emulator
import EmulatorCore
import EmulatorFunctions
import EmulatorTestSupport
import FirebaseEmulatorTesting
import Foundation
import Testing

/// Rules, the rules log, clock, faults, snapshots, seed, idle wait and invocations.
@Suite struct ControlTests {
    @Test(arguments: Backend.allCases) func rulesJudgeUsersAndTheLogExplains(backend: Backend) async throws {
        let project = try await backend.emulator().createProject(hint: "rules")
        try await project.setRules(ownerRules)
        let alice = try await project.createUser()
        let bob = try await project.createUser()
        try await project.firestore.as(alice).set("tasks/t1", ["userId": .string(alice.uid), "title": "milk"])
        #expect(try await project.firestore.as(alice).get("tasks/t1")?["title"] == "milk")
        do {
            let caught = await #expect(throws: FirebaseEmulatorError.self) { _ = try await project.firestore.as(bob).get("tasks/t1") }
            guard let error = caught else { return }
            #expect(error.status == 403)
            guard case .http(_, let code, let message, _) = error else { return }
            #expect(code == "PERMISSION_DENIED" && message.contains("resource.data.userId"))
        }
        await #expect(throws: FirebaseEmulatorError.self) { _ = try await project.firestore.unauthenticated.get("tasks/t1") }
        let denials = try await project.rulesEvaluations(outcome: "deny")
        #expect(denials.count == 2 && denials.contains { $0.uid == bob.uid && $0.path == "tasks/t1" && $0.method == "get" })
        let verdict = try await project.evaluateRules(method: "get", path: "tasks/t1", uid: "carol", resource: ["userId": "carol"])
        #expect(verdict["allowed"] == true)
        await #expect(throws: FirebaseEmulatorError.self) { try await project.setRules("service cloud.firestore { match") }
        try await project.emulator.removeProject(project)
    }

    @Test(arguments: Backend.allCases) func clockFreezesAdvancesAndExpiresTokens(backend: Backend) async throws {
        let project = try await backend.emulator().createProject(hint: "clock")
        try await project.setRules(ownerRules)
        let start = try #require(EmulatorProject.parseRFC3339("2030-01-01T00:00:00Z"))
        #expect(try await project.freezeClock(at: start) == start)
        let alice = try await project.createUser()
        try await project.firestore.as(alice).set("tasks/t1", ["userId": .string(alice.uid)])
        #expect(try await project.advanceClock(by: 7200) == start.addingTimeInterval(7200))
        #expect(try await project.now() == start.addingTimeInterval(7200))
        await #expect(throws: FirebaseEmulatorError.self) { _ = try await project.firestore.as(alice).get("tasks/t1") }
        try await project.useSystemClock()
        #expect(abs(try await project.now().timeIntervalSinceNow) < 60)
        try await project.emulator.removeProject(project)
    }

    @Test(arguments: Backend.allCases) func faultsFailChosenCalls(backend: Backend) async throws {
        let project = try await backend.emulator().createProject(hint: "faults")
        let id = try await project.addFault(EmulatorFault(service: "firestore", method: "get", path: "tasks/*", status: "UNAVAILABLE", times: 1))
        #expect(!id.isEmpty)
        do {
            let caught = await #expect(throws: FirebaseEmulatorError.self) { _ = try await project.firestore.get("tasks/t1") }
            guard let error = caught else { return }
            guard case .http(let status, let code, _, _) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(status == 503 && code == "UNAVAILABLE")
        }
        #expect(try await project.firestore.get("tasks/t1") == nil)
        #expect(try await project.faults().first?["fired"] == 1)
        try await project.clearFaults()
        #expect(try await project.faults().isEmpty)
        try await project.emulator.removeProject(project)
    }

    @Test(arguments: Backend.allCases) func snapshotsSeedAndReset(backend: Backend) async throws {
        let project = try await backend.emulator().createProject(hint: "snapshots")
        try await project.setSeed(7)
        let first = try await project.firestore.add(to: "tasks", ["n": 1]).id
        try await project.saveSnapshot("one-task")
        try await project.firestore.set("tasks/extra", ["n": 2])
        try await project.restoreSnapshot("one-task")
        #expect(try await project.firestore.query("tasks").map(\.id) == [first])
        #expect(try await project.snapshots() == ["one-task"])
        try await project.reset()
        #expect(try await project.firestore.query("tasks").isEmpty)
        #expect(try await project.firestore.add(to: "tasks", ["n": 1]).id == first)  // the seeded sequence restarts
        try await project.deleteSnapshot("one-task")
        #expect(try await project.snapshots().isEmpty)
        try await project.waitIdle(timeout: 1)
        try await project.emulator.removeProject(project)
    }

    @Test func invocationsAndIdleWaitSeeFunctions() async throws {
        let emulator = try FirebaseEmulator.inProcess()
        let project = try await emulator.createProject(hint: "functions")
        let functions = try #require(emulator.inProcessApp).services.functions
        functions.register(project: project.id, FunctionDefinition(name: "echo", trigger: .callable), .callable { req, _ in req.data })
        functions.register(
            project: project.id, FunctionDefinition(name: "onTask", trigger: .document(pattern: "tasks/{id}", event: .created)),
            .event { _, _ in
                try await Task.sleep(nanoseconds: 50_000_000)
            })
        let user = try await project.createUser()
        #expect(try await project.callFunction("echo", data: ["x": 1], as: user) == ["x": 1])
        try await project.firestore.set("tasks/t1", ["title": "milk"])
        try await project.waitIdle()
        let invocations = try await project.invocations()
        #expect(Set(invocations.map(\.function)) == ["echo", "onTask"])
        #expect(invocations.allSatisfy { $0.outcome == "ok" })
    }
}
