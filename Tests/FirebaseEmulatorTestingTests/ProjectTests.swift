import FirebaseEmulatorTesting
import Foundation
import Testing

/// Projects, documents, isolation and the typed errors, through both backends.
@Suite struct ProjectTests {
    @Test(arguments: Backend.allCases) func projectsAreIsolatedNamespaces(backend: Backend) async throws {
        let emulator = try await backend.emulator()
        let a = try await emulator.createProject(hint: "isolation a")
        let b = try await emulator.createProject(hint: "isolation b")
        #expect(a.id != b.id && a.id.hasPrefix("t-isolation-a-"))
        #expect(try await emulator.projectIds().contains(a.id))
        try await a.firestore.set("tasks/t1", ["title": "from a", "count": 3, "ratio": 0.5, "tags": ["x"], "meta": ["ok": true, "none": nil]])
        try await b.firestore.set("tasks/t1", ["title": "from b"])
        let doc = try #require(try await a.firestore.get("tasks/t1"))
        #expect(doc.data == ["title": "from a", "count": 3, "ratio": 0.5, "tags": ["x"], "meta": ["ok": true, "none": nil]])
        #expect(doc.id == "t1" && doc.path == "tasks/t1")
        #expect(try await b.firestore.get("tasks/t1")?["title"] == "from b")
        try await emulator.removeProject(a)
        #expect(try await a.firestore.get("tasks/t1") == nil)
        #expect(try await b.firestore.get("tasks/t1") != nil)
    }

    @Test(arguments: Backend.allCases) func documentsAddQueryAndDelete(backend: Backend) async throws {
        let project = try await backend.emulator().createProject()
        let added = try await project.firestore.add(to: "tasks", ["userId": "u1", "title": "milk"])
        #expect(added.id.count == 20)
        try await project.firestore.set("tasks/x", ["userId": "u2", "title": "bread"])
        #expect(try await project.firestore.query("tasks", where: "userId", isEqualTo: "u2").map(\.id) == ["x"])
        #expect(try await project.firestore.query("tasks").count == 2)
        try await project.firestore.delete("tasks/x")
        #expect(try await project.firestore.get("tasks/x") == nil)
        try await project.emulator.removeProject(project)
    }

    @Test(arguments: Backend.allCases) func errorsAreTyped(backend: Backend) async throws {
        let emulator = try await backend.emulator()
        do {
            let caught = await #expect(throws: FirebaseEmulatorError.self) { _ = try await emulator.project("never-registered").now() }
            guard let error = caught else { return }
            guard case .http(let status, let code, let message, _) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(status == 404 && code == "NOT_FOUND" && message.contains("never-registered"))
        }
        let project = try await emulator.createProject()
        await #expect(throws: FirebaseEmulatorError.self) { try await project.saveSnapshot("bad name!") }
        if backend == .live {
            do {
                let caught = await #expect(throws: FirebaseEmulatorError.self) {
                    _ = try await emulator.grpc("/google.firestore.v1.Firestore/Commit", [])
                }
                guard let error = caught else { return }
                guard case .unavailable = error else {
                    Issue.record("\(error)")
                    return
                }
            }
        }
    }

    @Test func unreachableEmulatorIsATransportError() async throws {
        let emulator = try FirebaseEmulator(host: "127.0.0.1:1")
        do {
            let caught = await #expect(throws: FirebaseEmulatorError.self) { _ = try await emulator.status() }
            guard let error = caught else { return }
            guard case .transport = error else {
                Issue.record("\(error)")
                return
            }
        }
    }

    @Test func environmentNamesTheEmulator() throws {
        let e = try FirebaseEmulator.fromEnvironment(["FIRESTORE_EMULATOR_HOST": "127.0.0.1:8080", "FIREBASE_EMULATOR_HUB": "127.0.0.1:4401"])
        #expect(e.transport.endpoint == "http://127.0.0.1:4401")
        #expect(try FirebaseEmulator.fromEnvironment([:]).transport.endpoint == "http://127.0.0.1:4400")
        #expect(!FirebaseEmulator.isConfiguredInEnvironment(["FIREBASE_EMULATOR_HUB": ""]))
        #expect(throws: FirebaseEmulatorError.self) { try FirebaseEmulator(host: "not a host") }
    }

    @Test func projectIdsAreUniqueAndValid() {
        let ids = (0..<100).map { _ in FirebaseEmulator.uniqueProjectId(hint: "Tasks are PRIVATE (#1)") }
        #expect(Set(ids).count == 100)
        #expect(ids.allSatisfy { $0.hasPrefix("t-tasks-are-private-1-") && $0.count <= 60 })
        #expect(FirebaseEmulator.uniqueProjectId().hasPrefix("t-"))
    }
}
