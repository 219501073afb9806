import EmulatorCore
import EmulatorHTTP
import Testing

@testable import Emulator

/// `GET /emulator/v1/routes` through the real server on port 0.
@Suite(.serialized) struct RouteListingTests {
    @Test func listsEveryRegisteredRouteInOrderBehindTheAdminToken() async throws {
        var c = EmulatorConfig()
        c.singlePort = 0
        c.projectId = "routes"
        c.adminToken = "t0ken"
        let rt = try await EmulatorRuntime.start(config: c, logger: NullLogSink())
        let port = try #require(rt.address(of: "hub")?.port)
        func get(_ headers: HTTPHeaders) async throws -> HTTPResponse {
            try await HTTPClient.send(HTTPRequest(method: "GET", target: "/emulator/v1/routes", headers: headers), host: "127.0.0.1", port: port)
        }

        #expect(try await get([:]).status == 401)
        let r = try await get(["Authorization": "Bearer t0ken"])
        #expect(r.status == 200)
        let doc = try JSON.parse(r.body)
        #expect(doc.objectValue?.keys.sorted() == ["routes"])
        let routes = try #require(doc["routes"]?.arrayValue)
        let pairs = routes.map { "\($0["method"]?.stringValue ?? "?") \($0["path"]?.stringValue ?? "?")" }
        #expect(routes.allSatisfy { $0.objectValue?.keys.sorted() == ["method", "path"] })
        // Exactly the router's table, in registration order, the listing itself included.
        #expect(pairs == rt.app.router.table.map { "\($0.method) \($0.template)" })
        for known in [
            "GET /", "GET /emulator/v1/routes", "POST /emulator/v1/projects/{project}:reset",
            "POST /securetoken.googleapis.com/v1/token", "* /{project}/{region}/{name}",
            "* /{project}/{region}/{name}/{rest=**}",
            "GET /v1/projects/{project}/databases/{database}/documents/{path=**}",
            "POST /v1/projects/{project}/databases/{database}/documents/{path=**}:runQuery",
        ] {
            #expect(pairs.contains(known), "\(known) is not listed")
        }
        #expect(pairs.firstIndex(of: "GET /") == 0)
        // Registration order: Routes.makeRouter registers the store before the functions host.
        let store = try #require(pairs.firstIndex(of: "GET /v1/projects/{project}/databases/{database}/documents/{path=**}"))
        #expect(try #require(pairs.firstIndex(of: "* /{project}/{region}/{name}")) > store)
        #expect(Set(pairs).count == pairs.count)
        await rt.stop()
    }
}
