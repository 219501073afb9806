import EmulatorCore
import EmulatorProtobuf
import EmulatorTestSupport
import FirebaseEmulatorTesting
import Foundation
import Testing

/// The Firestore gRPC service through the testing library's in-process backend: real protobuf
/// request bytes go through `GRPCServerCall` and `FirestoreGRPCService` on an in-memory stream,
/// and the answers (messages and `grpc-status`) are checked against what REST does for the same
/// project.
@Suite(.inProcessProject())
struct FirestoreGRPCServiceTests {
    struct Reply {
        var status: Int
        var message: String
        var responses: [JSON]
    }

    var project: EmulatorProject { get throws { try #require(EmulatorProject.current) } }

    func rpc(_ name: String, _ request: JSON, token: String? = "owner") async throws -> Reply {
        let method = try #require(FirestoreSchemas.method(path: "/google.firestore.v1.Firestore/\(name)"))
        let bytes = try ProtoJSON.encode(request, as: method.request)
        let reply = try await project.emulator.grpc(method.path, [Data(bytes)], metadata: token.map { [("authorization", "Bearer \($0)")] } ?? [])
        let responses = try reply.messages.map { try ProtoJSON.decode([UInt8]($0), as: method.response) }
        return Reply(status: reply.status, message: reply.message, responses: responses)
    }

    func name(_ path: String) throws -> String { "\(try project.firestore.root)/\(path)" }

    @Test func commitOverGRPCIsReadOverREST() async throws {
        let r = try await rpc(
            "Commit",
            [
                "database": .string("projects/\(try project.id)/databases/(default)"),
                "writes": [["update": ["name": .string(try name("tasks/t1")), "fields": ["title": ["stringValue": "milk"]]]]],
            ])
        #expect(r.status == 0)
        #expect(r.responses.first?["writeResults"]?.arrayValue?.count == 1)
        #expect(try await project.firestore.get("tasks/t1")?["title"] == "milk")
        let got = try await rpc("GetDocument", ["name": .string(try name("tasks/t1"))])
        #expect(got.status == 0 && got.responses.first?["fields"]?["title"]?["stringValue"] == "milk")
    }

    @Test func errorsCarryTheSameCodeAndMessageAsREST() async throws {
        let grpc = try await rpc("GetDocument", ["name": .string(try name("tasks/nope"))])
        #expect(grpc.status == 5)
        let rest = try await project.emulator.send(
            EmulatorRequest(method: "GET", path: "/v1/\(try name("tasks/nope"))", headers: [("Authorization", "Bearer owner")]))
        #expect(rest.status == 404)
        #expect(try JSONValue.parse(rest.body)["error"]?["message"]?.stringValue == grpc.message)
    }

    @Test func rulesJudgeTheAuthorizationMetadata() async throws {
        try await project.setRules(
            """
            rules_version = '2';
            service cloud.firestore {
              match /databases/{db}/documents {
                match /tasks/{id} { allow read: if request.auth != null && resource.data.userId == request.auth.uid; }
              }
            }
            """)
        let alice = try await project.createUser()
        try await project.firestore.set("tasks/t1", ["userId": .string(alice.uid)])
        #expect(try await rpc("GetDocument", ["name": .string(try name("tasks/t1"))], token: alice.idToken).status == 0)
        let denied = try await rpc("GetDocument", ["name": .string(try name("tasks/t1"))], token: nil)
        #expect(denied.status == 7)
        #expect(denied.message.contains("Missing or insufficient permissions") && denied.message.contains("request.auth != null"))
        #expect(try await project.rulesEvaluations(outcome: "deny").count == 1)
    }

    @Test func faultsApplyToGRPCCallsAsToREST() async throws {
        try await project.addFault(EmulatorFault(service: "firestore", method: "commit", status: "ABORTED", message: "injected", times: 1))
        let commit: JSON = [
            "database": .string("projects/\(try project.id)/databases/(default)"),
            "writes": [["update": ["name": .string(try name("tasks/t1")), "fields": [:]]]],
        ]
        let failed = try await rpc("Commit", commit)
        #expect(failed.status == 10 && failed.message == "injected")
        #expect(try await rpc("Commit", commit).status == 0)
        #expect(try await project.faults().first?["fired"] == 1)
    }

    @Test func runQueryStreamsOneMessagePerDocument() async throws {
        for i in 1...3 { try await project.firestore.set("tasks/t\(i)", ["n": .int(Int64(i))]) }
        let r = try await rpc(
            "RunQuery",
            [
                "parent": .string(try project.firestore.root),
                "structuredQuery": ["from": [["collectionId": "tasks"]], "orderBy": [["field": ["fieldPath": "n"], "direction": "DESCENDING"]]],
            ])
        #expect(r.status == 0)
        let names = r.responses.compactMap { $0["document"]?["name"]?.stringValue }
        #expect(names == [try name("tasks/t3"), try name("tasks/t2"), try name("tasks/t1")])
    }

    @Test func badCallsAnswerStatusesNotCrashes() async throws {
        let unknown = try await project.emulator.grpc("/google.firestore.v1.Firestore/Nope", [Data()])
        #expect(unknown.status == 12)
        let garbage = try await project.emulator.grpc("/google.firestore.v1.Firestore/GetDocument", [Data([0xFF, 0xFF, 0xFF])])
        #expect(garbage.status == 3)
        let empty = try await project.emulator.grpc("/google.firestore.v1.Firestore/GetDocument", [])
        #expect(empty.status == 3 && empty.message.contains("needs a request message"))
    }
}
