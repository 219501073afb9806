import EmulatorCore
import EmulatorHTTP
import Testing

@testable import Emulator

/// Routes called through the full pipeline without sockets.
@Suite struct AppPipelineTests {
    static func app(_ edit: (inout EmulatorConfig) -> Void = { _ in }) throws -> EmulatorApp {
        var c = EmulatorConfig()
        edit(&c)
        return EmulatorApp(services: try EmulatorServices(config: c, logger: NullLogSink()))
    }

    @Test func statusReportsProjectAndVersion() async throws {
        let r = try await Self.app().handle(HTTPRequest(method: "GET", target: "/emulator/v1/status"))
        #expect(r.status == 200)
        let body = try JSON.parse(r.body)
        #expect(body["project"] == "demo-project")
        #expect(body["version"] == .string(EmulatorVersion.current))
        #expect(body["uptimeMs"]?.intValue != nil)
    }

    @Test func statusWaitsForFunctionsCodebasesToSettle() async throws {
        let app = try Self.app()
        app.services.functions.setCodebaseStatus(project: "demo-project", codebase: "default", ["name": "default", "state": "installing"])
        let waiting = await app.handle(HTTPRequest(method: "GET", target: "/emulator/v1/status?wait=functions&timeoutMs=60"))
        #expect(waiting.status == 503)
        #expect(
            try JSON.parse(waiting.body)["functions"] == [
                "ready": false, "codebases": [["project": "demo-project", "name": "default", "state": "installing"]],
            ])
        app.services.functions.setCodebaseStatus(project: "demo-project", codebase: "default", ["name": "default", "state": "failed", "error": "x"])
        let settled = await app.handle(HTTPRequest(method: "GET", target: "/emulator/v1/status?wait=functions&timeoutMs=60"))
        #expect(settled.status == 200)
        #expect(try JSON.parse(settled.body)["functions"]?["ready"] == true)
    }

    @Test func unknownRouteIsGoogleStyle404() async throws {
        let r = try await Self.app().handle(HTTPRequest(method: "GET", target: "/nope/x"))
        #expect(r.status == 404)
        let e = try JSON.parse(r.body)["error"]
        #expect(e?["status"] == "NOT_FOUND")
        #expect(e?["code"] == 404)
        #expect(e?["message"]?.stringValue?.contains("/nope/x") == true)
    }

    @Test func wrongMethodIs405WithAllow() async throws {
        let r = try await Self.app().handle(HTTPRequest(method: "DELETE", target: "/emulator/v1/status"))
        #expect(r.status == 405)
        #expect(r.headers["Allow"] == "GET")
    }

    @Test func corsPreflightReflectsOriginAndHeaders() async throws {
        var h = HTTPHeaders()
        h.add("Origin", "http://localhost:3000")
        h.add("Access-Control-Request-Method", "POST")
        h.add("Access-Control-Request-Headers", "content-type,x-firebase-gmpid")
        h.add("Access-Control-Request-Private-Network", "true")
        let r = try await Self.app().handle(HTTPRequest(method: "OPTIONS", target: "/identitytoolkit.googleapis.com/v1/accounts:signUp", headers: h))
        #expect(r.status == 204)
        #expect(r.headers["Access-Control-Allow-Origin"] == "http://localhost:3000")
        #expect(r.headers["Access-Control-Allow-Headers"] == "content-type,x-firebase-gmpid")
        #expect(r.headers["Access-Control-Allow-Private-Network"] == "true")
    }

    @Test func adminTokenGuardsEmulatorRoutes() async throws {
        let app = try Self.app { $0.adminToken = "s3cret" }
        let denied = await app.handle(HTTPRequest(method: "GET", target: "/emulator/v1/status"))
        #expect(denied.status == 401)
        let allowed = await app.handle(HTTPRequest(method: "GET", target: "/emulator/v1/status", headers: ["Authorization": "Bearer s3cret"]))
        #expect(allowed.status == 200)
        #expect(await app.handle(HTTPRequest(method: "POST", target: "/reset")).status == 401)
        #expect(await app.handle(HTTPRequest(method: "POST", target: "/reset", headers: ["Authorization": "Bearer s3cret"])).status == 200)
    }

    @Test func errorResponderHidesInternalCauses() throws {
        struct Secret: Error {}
        let r = ErrorResponder.response(for: Secret(), logger: NullLogSink())
        #expect(r.status == 500)
        #expect(!String(decoding: r.body, as: UTF8.self).contains("Secret"))
        let auth = ErrorResponder.response(for: EmulatorError.authBadRequest("EMAIL_EXISTS"))
        let e = try JSON.parse(auth.body)["error"]
        #expect(e?["status"] == nil)
        #expect(e?["errors"]?.arrayValue?.first?["reason"] == "invalid")
        #expect(e?["message"] == "EMAIL_EXISTS")
    }

    @Test func nonLoopbackWithoutTokenIsRefused() async {
        var c = EmulatorConfig()
        c.host = "0.0.0.0"
        c.singlePort = 0
        await #expect(throws: CLIError.self) { _ = try await EmulatorRuntime.start(config: c, logger: NullLogSink()) }
    }
}

/// The request log's milliseconds: a clock stepping back once made `repeating:count:` negative.
@Test func latencyFormattingNeverTraps() {
    #expect(format3(1.5) == "1.500" && format3(12.0405) == "12.041" && format3(0) == "0.000")
    #expect(format3(-0.5) == "-0.500" && format3(-2.25) == "-2.250")
    #expect(format3(.nan) == "nan" && format3(1e300) == "1e+300")
}
