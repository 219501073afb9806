import EmulatorCore
import EmulatorHTTP
import Testing

@testable import Emulator

/// The real server in-process on port 0.
@Suite(.serialized) struct RuntimeEndToEndTests {
    @Test func servesEveryAPIOnOneEphemeralPort() async throws {
        var c = EmulatorConfig()
        c.singlePort = 0
        c.projectId = "e2e"
        let rt = try await EmulatorRuntime.start(config: c, logger: NullLogSink())
        let port = try #require(rt.address(of: "firestore")?.port)
        #expect(rt.addresses.allSatisfy { $0.port == port && port > 0 })
        let status = try await HTTPClient.send(HTTPRequest(method: "GET", target: "/emulator/v1/status"), host: "127.0.0.1", port: port)
        #expect(try JSON.parse(status.body)["services"]?["auth"]?["port"] == .int(Int64(port)))
        let signUp = try await HTTPClient.send(
            HTTPRequest(
                method: "POST", target: "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k",
                headers: ["Content-Type": "application/json"], body: Array("{}".utf8)), host: "127.0.0.1", port: port)
        #expect(signUp.status == 200)
        let doc = try await HTTPClient.send(
            HTTPRequest(
                method: "PATCH", target: "/v1/projects/e2e/databases/(default)/documents/c/d",
                body: Array(#"{"fields":{"a":{"integerValue":"1"}}}"#.utf8)), host: "127.0.0.1", port: port)
        #expect(doc.status == 200)
        #expect(rt.clientEnvironment["FIRESTORE_EMULATOR_HOST"] == "127.0.0.1:\(port)")
        await rt.stop()
    }

    @Test func execReturnsTheCommandsExitCode() async {
        #expect(
            await EmulatorCommand.run(arguments: [
                "exec", "--port", "0", "--log-level", "error", "--", "sh", "-c", "test -n \"$FIREBASE_AUTH_EMULATOR_HOST\" && exit 3",
            ]) == 3)
        #expect(await EmulatorCommand.run(arguments: ["exec", "--port", "0", "--log-level", "error", "--", "definitely-not-a-command-xyz"]) == 127)
    }
}
