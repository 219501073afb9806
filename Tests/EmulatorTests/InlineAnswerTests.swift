import EmulatorCore
import EmulatorProtobuf
import Testing

@testable import Emulator
@testable import EmulatorHTTP
@testable import EmulatorStore

/// `EmulatorApp.handleInline`, the answers an event loop gives on its own thread: byte for byte
/// what `handle` gives for the same request, through the same gate, and nothing for what might
/// wait (another method, a route without an inline answer, a collection GET, a status that waits
/// for functions, any fault rule, a database another thread holds).
@Suite struct InlineAnswerTests {
    static let docPath = "/v1/projects/demo-project/databases/(default)/documents/tasks/t1"

    static func app(_ edit: (inout EmulatorConfig) -> Void = { _ in }) async throws -> EmulatorApp {
        var c = EmulatorConfig()
        edit(&c)
        let app = EmulatorApp(services: try EmulatorServices(config: c, logger: NullLogSink()))
        var h = HTTPHeaders()
        h.add("Content-Type", "application/json")
        let created = await app.handle(
            HTTPRequest(
                method: "PATCH", target: docPath, headers: h, body: Array(#"{"fields":{"title":{"stringValue":"write"}}}"#.utf8)))
        #expect(created.status == 200)
        return app
    }

    static func get(_ target: String, _ headers: [(String, String)] = [("Host", "127.0.0.1:8080")], method: String = "GET") -> HTTPRequest {
        var h = HTTPHeaders()
        for (k, v) in headers { h.add(k, v) }
        return HTTPRequest(method: method, target: target, headers: h)
    }

    /// Both entries' answers, as they go on the wire.
    static func both(_ app: EmulatorApp, _ request: HTTPRequest) async -> (inline: [UInt8]?, pool: [UInt8]) {
        let inline = app.handleInline(request)?.wireBytes(head: request.method == "HEAD", close: false)
        let pool = await app.handle(request).wireBytes(head: request.method == "HEAD", close: false)
        return (inline, pool)
    }

    @Test func aDocumentGetIsAnsweredInlineExactlyAsOnThePool() async throws {
        let app = try await Self.app()
        for target in [Self.docPath, Self.docPath + "?mask.fieldPaths=title", Self.docPath.replacing("/t1", with: "/missing")] {
            let (inline, pool) = await Self.both(app, Self.get(target))
            #expect(inline != nil, "\(target)")
            #expect(inline == pool, "\(target)")
        }
        let (head, headPool) = await Self.both(app, Self.get(Self.docPath, method: "HEAD"))
        #expect(head != nil && head == headPool)
        // Refusals of the gate come out the same too: a foreign Host, a bad path.
        for request in [Self.get(Self.docPath, [("Host", "evil.example")]), Self.get("/v1/projects/demo-project/../x")] {
            let (inline, pool) = await Self.both(app, request)
            #expect(inline != nil && inline == pool, "\(request.target)")
        }
    }

    @Test func theStatusRouteIsAnsweredInlineThroughTheSameGate() async throws {
        let app = try await Self.app { $0.adminToken = "t0ken" }
        let open = app.handleInline(Self.get("/emulator/v1/status", [("Authorization", "Bearer t0ken")]))
        #expect(open?.status == 200)
        #expect(try open.map { try JSON.parse($0.body)["project"] } == "demo-project")
        // The control plane's admin token is checked before the inline answer, as before any other.
        let (refused, pool) = await Self.both(app, Self.get("/emulator/v1/status"))
        #expect(refused != nil && refused == pool)
        #expect(app.handleInline(Self.get("/emulator/v1/status"))?.status == 401)
    }

    @Test func whatMightWaitIsLeftToThePool() async throws {
        let app = try await Self.app()
        #expect(app.handleInline(Self.get("/v1/projects/demo-project/databases/(default)/documents/tasks")) == nil)  // ListDocuments
        #expect(app.handleInline(Self.get("/emulator/v1/status?wait=functions")) == nil)
        #expect(app.handleInline(Self.get("/nope")) == nil)  // 404 and 405 come from `handle`
        #expect(app.handleInline(Self.get(Self.docPath, method: "DELETE")) == nil)
        #expect(app.handleInline(Self.get("/emulator/v1/projects")) == nil)  // a route without an inline answer
        // A target longer than an inline answer takes (its work grows with the path).
        let long = Self.docPath + String(repeating: "/c/d", count: EmulatorApp.longestInlineTarget / 4)
        #expect(app.handleInline(Self.get(long)) == nil)
        #expect(await app.handle(Self.get(long)).status == 404)
        // A database another thread holds (here: this one, which the lock does not know apart).
        let held = app.services.store.box("demo-project", "(default)").data.withLock { _ in app.handleInline(Self.get(Self.docPath)) }
        #expect(held == nil)
        #expect(app.handleInline(Self.get(Self.docPath))?.status == 200)
        // Any fault rule, whatever it matches: a fault may delay, and delays are for the pool.
        _ = try app.services.faults.add(projectId: "demo-project", body: ["match": ["service": "auth"], "error": ["status": "UNAVAILABLE"]])
        #expect(app.handleInline(Self.get(Self.docPath)) == nil)
        #expect(app.handleInline(Self.get("/emulator/v1/status")) == nil)
    }

    /// A GetDocument over gRPC answered on the event loop: the message REST's GET gives (as
    /// protobuf), errors with REST's code and message, and nothing for what might wait.
    @Test func aGetDocumentCallIsAnsweredInlineAsByItsHandler() async throws {
        let app = try await Self.app()
        let inline = GRPCServices(services: app.services).inline
        let path = "/google.firestore.v1.Firestore/GetDocument"
        #expect(inline.methods == [path])
        let schema = try #require(FirestoreSchemas.method(path: path))
        func ask(_ name: String, method: String = path) throws -> GRPCInline.Answer? {
            let request = try ProtoJSON.encode(["name": .string(String(Self.docPath.dropFirst(4)).replacing("/t1", with: name))], as: schema.request)
            return inline.answer(method, { $0 == "authorization" ? "Bearer owner" : nil }, request)
        }
        guard case .message(let bytes)? = try ask("/t1") else {
            Issue.record("no message")
            return
        }
        let rest = await app.handle(Self.get(Self.docPath))
        #expect(try ProtoJSON.decode(bytes, as: schema.response) == JSON.parse(rest.body))
        guard case .status(let status)? = try ask("/missing") else {
            Issue.record("no status")
            return
        }
        let missing = await app.handle(Self.get(Self.docPath.replacing("/t1", with: "/missing")))
        #expect(status.code == 5)
        #expect(try JSON.parse(missing.body)["error"]?["message"]?.stringValue == status.message)
        #expect(try ask("/t1", method: "/google.firestore.v1.Firestore/ListDocuments") == nil)
        let held = try app.services.store.box("demo-project", "(default)").data.withLock { _ in try ask("/t1") }
        #expect(held == nil)
        _ = try app.services.faults.add(projectId: "demo-project", body: ["match": ["service": "auth"], "error": ["status": "UNAVAILABLE"]])
        #expect(try ask("/t1") == nil)
    }
}
