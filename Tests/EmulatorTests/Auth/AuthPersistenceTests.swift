import EmulatorCore
import EmulatorHTTP
import Foundation
import Testing

@testable import Emulator

@Test func usersAndRefreshTokensSurviveARestartWithDataDir() async throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("auth-persist-\(UInt64.random(in: 0...UInt64.max))").path
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var c = EmulatorConfig()
    c.projectId = "demo-persist"
    c.dataDir = dir
    let first = EmulatorApp(services: try EmulatorServices(config: c, logger: NullLogSink()))
    let signUp = HTTPRequest(
        method: "POST", target: "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k",
        headers: ["Content-Type": "application/json"], body: Array(#"{"email":"p@example.com","password":"secret1"}"#.utf8))
    let r = try JSON.parse(await first.handle(signUp).body)
    let refresh = try #require(r["refreshToken"]?.stringValue)
    first.services.dataDirectory?.close()

    let second = EmulatorApp(services: try EmulatorServices(config: c, logger: NullLogSink()))
    let req = HTTPRequest(
        method: "POST", target: "/securetoken.googleapis.com/v1/token?key=k", headers: ["Content-Type": "application/json"],
        body: Array(JSON.object(["grant_type": "refresh_token", "refresh_token": .string(refresh)]).serialized().utf8))
    let resp = await second.handle(req)
    #expect(resp.status == 200)
    #expect(try JSON.parse(resp.body)["user_id"] == r["localId"])
    // The old ID token still verifies: the signing key was persisted too.
    let lookup = HTTPRequest(
        method: "POST", target: "/identitytoolkit.googleapis.com/v1/accounts:lookup?key=k", headers: ["Content-Type": "application/json"],
        body: Array(JSON.object(["idToken": r["idToken"] ?? .null]).serialized().utf8))
    #expect(await second.handle(lookup).status == 200)
    second.services.dataDirectory?.close()
}
