import EmulatorCore
import EmulatorHTTP
import EmulatorProtobuf
import EmulatorTestSupport
import FirebaseEmulatorTesting
import Foundation
import Testing

@testable import Emulator

/// Fault rules are applied by `FirestoreAPI`, once for every transport: one rule answers REST,
/// gRPC and WebChannel calls with the same code and message, and counts each of them.
@Suite struct FirestoreFaultTests {
    static let db = "projects/demo-project/databases/(default)"

    let app: EmulatorApp
    let emulator: FirebaseEmulator

    init() throws {
        app = EmulatorApp(services: try EmulatorServices(config: EmulatorConfig(), logger: NullLogSink()))
        emulator = FirebaseEmulator.inProcess(app: app)
    }

    func addRule(_ body: JSON) async throws {
        let r = await app.handle(
            HTTPRequest(method: "POST", target: "/emulator/v1/projects/demo-project/faults", body: Array(body.serialized().utf8)))
        #expect(r.status == 200)
    }

    func rest(_ method: String, _ target: String, _ body: JSON? = nil) async throws -> (Int, JSON) {
        var h = HTTPHeaders()
        h.add("Authorization", "Bearer owner")
        let r = await app.handle(HTTPRequest(method: method, target: target, headers: h, body: body.map { Array($0.serialized().utf8) } ?? []))
        return (r.status, try JSON.parse(r.body))
    }

    func grpc(_ name: String, _ request: JSON) async throws -> GRPCReply {
        let method = try #require(FirestoreSchemas.method(path: "/google.firestore.v1.Firestore/\(name)"))
        return try await emulator.grpc(
            method.path, [Data(try ProtoJSON.encode(request, as: method.request))], metadata: [("authorization", "Bearer owner")])
    }

    /// Opens a WebChannel Write session with the handshake and returns what its backchannel says.
    func webChannelWrite() async throws -> [JSON] {
        let path = "/google.firestore.v1.Firestore/Write/channel"
        let form =
            "headers=" + PercentEncoding.encode("Authorization:Bearer owner\r\n") + "&count=1&ofs=0&req0___data__="
            + PercentEncoding.encode((["database": .string(Self.db)] as JSON).serialized())
        let open = await app.handle(HTTPRequest(method: "POST", target: path + "?VER=8&RID=1&CVER=22", body: Array(form.utf8)))
        #expect(open.status == 200)
        let sid = try FirestoreWebChannelTests.sid(open)
        let poll = await app.handle(HTTPRequest(method: "GET", target: path + "?VER=8&RID=rpc&SID=\(sid)&AID=0&CI=1&TYPE=xmlhttp"))
        let w = FirestoreWebChannelTests.Collector()
        await poll.stream?(w)
        return try w.messages()
    }

    @Test func oneRuleAnswersRESTGRPCAndWebChannelAlike() async throws {
        try await addRule(["match": ["service": "firestore"], "error": ["status": "ABORTED", "message": "injected"], "times": 3])
        let commit: JSON = ["database": .string(Self.db), "writes": [["update": ["name": .string(Self.db + "/documents/c/a"), "fields": [:]]]]]

        let (status, body) = try await rest("POST", "/v1/\(Self.db)/documents:commit", ["writes": commit["writes"] ?? []])
        #expect(status == 409)
        #expect(body["error"] == ["code": 409, "message": "injected", "status": "ABORTED"])

        let reply = try await grpc("Commit", commit)
        #expect(reply.status == 10 && reply.message == "injected")

        let messages = try await webChannelWrite()
        #expect(messages.last == ["error": ["code": 10, "message": "injected", "status": "ABORTED"]])

        let listed = app.services.faults.list(projectId: "demo-project")
        #expect(listed.first?.fired == 3 && listed.first?.remaining == 0)
        #expect(try await grpc("Commit", commit).status == 0)
        #expect(try await rest("POST", "/v1/\(Self.db)/documents:commit", ["writes": commit["writes"] ?? []]).0 == 200)
        #expect(try await webChannelWrite().first?["streamId"] != nil)
    }

    @Test func theAPIScopesARuleByOperationAndPathOnEveryTransport() async throws {
        try await addRule(["match": ["service": "firestore", "method": "get", "path": "c/*"], "error": ["status": "NOT_FOUND", "message": "gone"]])
        let (status, body) = try await rest("GET", "/v1/\(Self.db)/documents/c/a")
        #expect(status == 404 && body["error"]?["message"] == "gone")
        let reply = try await grpc("GetDocument", ["name": .string(Self.db + "/documents/c/a")])
        #expect(reply.status == 5 && reply.message == "gone")
        // Another path, another operation (listing `c` is `list`), and a commit are not matched.
        #expect(try await grpc("GetDocument", ["name": .string(Self.db + "/documents/d/a")]).message != "gone")
        #expect(try await rest("GET", "/v1/\(Self.db)/documents/c").0 == 200)
        #expect(app.services.faults.list(projectId: "demo-project").first?.fired == 2)
    }

    @Test func aCommitRuleDoesNotEndWriteStreamsWhoseBatchesCommit() async throws {
        // The Write stream commits through `FirestoreAPI.commit`, the RPC body: it is faulted as
        // `write`, never as `commit`, on both stream transports.
        try await addRule(["match": ["service": "firestore", "method": "commit"], "error": ["status": "ABORTED", "message": "injected"]])
        #expect(try await webChannelWrite().first?["streamId"] != nil)
        #expect(app.services.faults.list(projectId: "demo-project").first?.fired == 0)
    }
}
