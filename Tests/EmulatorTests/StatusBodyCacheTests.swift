import EmulatorCore
import EmulatorHTTP
import Testing

@testable import Emulator

/// The status route's cached body: byte for byte what serializing the document gives, and
/// rebuilt when what it reports changes.
@Suite struct StatusBodyCacheTests {
    static func services() throws -> EmulatorServices {
        try EmulatorServices(config: EmulatorConfig(), logger: NullLogSink())
    }

    @Test func theCachedBodyEqualsTheSerializedDocumentForAnyUptime() throws {
        let s = try Self.services()
        s.directory.set([ServiceAddress(name: "firestore", host: "127.0.0.1", port: 8080)])
        let key = StatusBodyCache.Key(directory: s.directory.version, functions: s.functions.statusVersion)
        for uptime: Int64 in [0, 7, 1_234_567, Int64.max] {
            let cached = s.statusCache.body(key: key, uptime: uptime) { StatusRoutes.statusBody(s, uptime: $0) }
            #expect(cached == StatusRoutes.statusBody(s, uptime: uptime).serializedBytes())
        }
    }

    @Test func theRouteReportsChangesToFunctionsAndAddresses() async throws {
        let app = EmulatorApp(services: try Self.services())
        func status() async throws -> JSON { try JSON.parse(await app.handle(HTTPRequest(method: "GET", target: "/emulator/v1/status")).body) }
        let first = try await status()
        #expect(first["functions"]?["codebases"] == .array([]))
        app.services.functions.setCodebaseStatus(
            project: "demo-project", codebase: "default", ["name": "default", "state": "ready", "error": "-9223372036854775808 \"uptimeMs\":1"])
        let second = try await status()
        #expect(
            second["functions"]?["codebases"] == [
                ["project": "demo-project", "name": "default", "state": "ready", "error": "-9223372036854775808 \"uptimeMs\":1"]
            ])
        #expect(second["uptimeMs"]?.intValue.map { $0 >= 0 } == true)
        app.services.directory.set([ServiceAddress(name: "auth", host: "127.0.0.1", port: 9099)])
        let third = try await status()
        #expect(third["services"]?["auth"] == ["host": "127.0.0.1", "port": 9099])
    }
}
