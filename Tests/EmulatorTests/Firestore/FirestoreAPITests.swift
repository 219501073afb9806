import EmulatorTestSupport
import FirebaseEmulatorTesting
import Foundation
import Testing

/// The Firestore REST API through the testing library's in-process backend: each test has its
/// own project in its own in-process emulator, reached through `EmulatorApp.handle` (no sockets).
@Suite(.inProcessProject())
struct FirestoreAPITests {
    var project: EmulatorProject { get throws { try #require(EmulatorProject.current) } }
    var documents: String { get throws { "/v1/projects/\(try project.id)/databases/(default)/documents" } }

    @Test func createGetAndTypedValuesRoundTrip() async throws {
        let doc = try await project.firestore.add(
            to: "tasks", ["title": "milk", "n": 3, "ratio": 0.25, "done": false, "tags": ["a"], "meta": ["k": nil]])
        #expect(doc.id.count == 20)
        let read = try #require(try await project.firestore.get("tasks/\(doc.id)"))
        #expect(read.data == ["title": "milk", "n": 3, "ratio": 0.25, "done": false, "tags": ["a"], "meta": ["k": nil]])
        #expect(read.raw["createTime"]?.stringValue != nil && read.raw["updateTime"] == read.raw["createTime"])
    }

    @Test func missingDocumentsAndDuplicateIdsAnswerCanonicalErrors() async throws {
        let missing = try await project.emulator.send(
            EmulatorRequest(method: "GET", path: "\(try documents)/tasks/nope", headers: [("Authorization", "Bearer owner")]))
        #expect(missing.status == 404)
        let error = try JSONValue.parse(missing.body)["error"]
        #expect(error?["status"] == "NOT_FOUND" && error?["message"]?.stringValue?.contains("tasks/nope") == true)
        try await project.firestore.set("tasks/t1", ["x": 1])
        do {
            let caught = await #expect(throws: FirebaseEmulatorError.self) {
                try await project.emulator.json(
                    "POST", "\(try documents)/tasks?documentId=t1", ["fields": [:]], headers: [("Authorization", "Bearer owner")])
            }
            guard let error = caught else { return }
            #expect(error.status == 409)
            guard case .http(_, let code, _, _) = error else { return }
            #expect(code == "ALREADY_EXISTS")
        }
    }

    @Test func updateMaskKeepsOtherFields() async throws {
        try await project.firestore.set("tasks/t1", ["title": "milk", "done": false])
        try await project.emulator.json(
            "PATCH", "\(try documents)/tasks/t1?updateMask.fieldPaths=done",
            ["fields": FirestoreValue.encode(["done": true, "title": "ignored"])], headers: [("Authorization", "Bearer owner")])
        #expect(try await project.firestore.get("tasks/t1")?.data == ["title": "milk", "done": true])
    }

    @Test func transactionsCommitAtomically() async throws {
        let owner = [("Authorization", "Bearer owner")]
        let begun = try await project.emulator.json("POST", "\(try documents):beginTransaction", .object([:]), headers: owner)
        let tx = try #require(begun["transaction"]?.stringValue)
        let root = try project.firestore.root
        try await project.emulator.json(
            "POST", "\(try documents):commit",
            [
                "transaction": .string(tx),
                "writes": [
                    ["update": ["name": .string("\(root)/tasks/a"), "fields": FirestoreValue.encode(["n": 1])]],
                    ["update": ["name": .string("\(root)/tasks/b"), "fields": FirestoreValue.encode(["n": 2])]],
                ],
            ], headers: owner)
        #expect(try await project.firestore.query("tasks").map(\.id) == ["a", "b"])
        // A used transaction cannot commit again.
        await #expect(throws: FirebaseEmulatorError.self) {
            try await project.emulator.json("POST", "\(try documents):commit", ["transaction": .string(tx), "writes": []], headers: owner)
        }
    }

    @Test func rulesAreNotFilters() async throws {
        try await project.setRules(
            """
            rules_version = '2';
            service cloud.firestore {
              match /databases/{db}/documents {
                match /tasks/{id} {
                  allow read: if request.auth != null && resource.data.userId == request.auth.uid;
                }
              }
            }
            """)
        let alice = try await project.createUser()
        try await project.firestore.set("tasks/mine", ["userId": .string(alice.uid)])
        try await project.firestore.set("tasks/other", ["userId": "bob"])
        #expect(try await project.firestore.as(alice).query("tasks", where: "userId", isEqualTo: .string(alice.uid)).map(\.id) == ["mine"])
        do {
            let caught = await #expect(throws: FirebaseEmulatorError.self) { _ = try await project.firestore.as(alice).query("tasks") }
            guard let error = caught else { return }
            #expect(error.status == 403)
        }
        let evaluations = try await project.rulesEvaluations()
        // A denial in which a condition failed with an error: the unconstrained field.
        #expect(evaluations.first?.outcome == "error" && evaluations.first?.method == "list")
        #expect(evaluations.first?.explanation.contains("rules are not filters") == true)
        #expect(evaluations.dropFirst().first?.outcome == "allow")
    }

    @Test func batchGetReportsFoundAndMissing() async throws {
        try await project.firestore.set("tasks/a", ["n": 1])
        let root = try project.firestore.root
        let r = try await project.emulator.json(
            "POST", "\(try documents):batchGet", ["documents": [.string("\(root)/tasks/a"), .string("\(root)/tasks/zz")]],
            headers: [("Authorization", "Bearer owner")])
        let entries = try #require(r.arrayValue)
        #expect(entries.count == 2)
        #expect(entries.contains { $0["found"]?["name"]?.stringValue == "\(root)/tasks/a" })
        #expect(entries.contains { $0["missing"]?.stringValue == "\(root)/tasks/zz" })
    }
}
