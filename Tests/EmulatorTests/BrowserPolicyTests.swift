import EmulatorCore
import EmulatorHTTP
import Testing

@testable import Emulator

/// The browser rules decided before routing (the HTTP-level proof is
/// Tests/python/security/test_browser_safety.py).
@Suite struct BrowserPolicyTests {
    static func policy(_ edit: (inout EmulatorConfig) -> Void = { _ in }) -> BrowserPolicy {
        var c = EmulatorConfig()
        edit(&c)
        return BrowserPolicy(config: c)
    }

    static func request(_ method: String = "GET", _ path: String, _ headers: [String: String]) -> HTTPRequest {
        var h = HTTPHeaders()
        for (k, v) in headers.sorted(by: { $0.key < $1.key }) { h.add(k, v) }
        return HTTPRequest(method: method, target: path, headers: h)
    }

    @Test func hostCheck() {
        let p = Self.policy { $0.allowedHosts = ["devbox.test", ".example.test"] }
        for ok in [
            "localhost", "localhost:4400", "LOCALHOST.", "a.localhost:1", "127.0.0.1:8080", "127.1.2.3", "[::1]:9099", "10.0.2.2",
            "192.168.1.5:80", "devbox.test:3000", "example.test", "api.example.test",
        ] {
            #expect(p.isAllowedHost(ok), "\(ok)")
        }
        for bad in ["evil.example", "localhost.evil.example", "127.0.0.1.evil.example", "devbox.test.evil", "xexample.test", "", "999.1.1.1"] {
            #expect(!p.isAllowedHost(bad), "\(bad)")
        }
        #expect(Self.policy { $0.host = "devbox.lan" }.isAllowedHost("devbox.lan:4400"))
        #expect(Self.policy { $0.allowedHosts = ["*"] }.isAllowedHost("anything.test"))
        #expect(p.hostRefusal(for: HTTPRequest(method: "GET", target: "/")) == nil)  // no Host: not a browser
    }

    /// The byte-wise shortcut for the usual Host headers says yes only where the general rules do.
    @Test func plainLoopbackShortcut() {
        let p = Self.policy()
        for yes in ["127.0.0.1", "127.0.0.1:8080", "127.0.0.1:", "localhost", "LocalHost:4400", "LOCALHOST:1"] {
            #expect(BrowserPolicy.isPlainLoopback(yes), "\(yes)")
            #expect(p.isAllowedHost(yes), "\(yes)")
        }
        for no in [
            "localhost.evil.example", "127.0.0.1.evil.example", "localhosx", "localhost:8o", "127.0.0.1:80:80", "evil:127.0.0.1",
            "l\u{0}calhost", "LOCALHOST.", "", "12345", ":80", "localhost::1", "127.0.0.1 ",
        ] {
            #expect(!BrowserPolicy.isPlainLoopback(no), "\(no)")
        }
    }

    @Test func originKinds() {
        let p = Self.policy { $0.allowedOrigins = ["http://devbox.test:3000/"] }
        let host = "127.0.0.1:4400"
        #expect(p.classify(origin: "http://127.0.0.1:4400", host: host) == .same)
        #expect(p.classify(origin: "http://localhost:4400", host: host) == .local)  // another origin, still local
        #expect(p.classify(origin: "http://localhost:3000", host: host) == .local)
        #expect(p.classify(origin: "capacitor://localhost", host: host) == .local)
        #expect(p.classify(origin: "http://[::1]:5173", host: host) == .local)
        #expect(p.classify(origin: "http://Devbox.test:3000", host: host) == .allowed)
        #expect(p.classify(origin: "http://devbox.test:3001", host: host) == .foreign)
        #expect(p.classify(origin: "null", host: host) == .foreign)
        #expect(p.classify(origin: "https://evil.example", host: host) == .foreign)
        #expect(p.classify(origin: "http://192.168.1.5:3000", host: "192.168.1.5:8080") == .local)  // same machine name, other port
    }

    @Test func controlPlaneRefusesOtherOriginsAndHeaderlessBrowserCalls() {
        let p = Self.policy()
        let same = ["Host": "127.0.0.1:4400", "Origin": "http://127.0.0.1:4400"]
        #expect(p.refusal(for: Self.request("POST", "/emulator/v1/reset", same.merging(["X-Emulator-UI": "1"]) { $1 }), controlPlane: true) == nil)
        #expect(p.refusal(for: Self.request("POST", "/emulator/v1/reset", same), controlPlane: true)?.message.contains("X-Emulator-UI") == true)
        #expect(
            p.refusal(
                for: Self.request("POST", "/reset", ["Host": "127.0.0.1:4400", "Origin": "http://localhost:3000", "X-Emulator-UI": "1"]),
                controlPlane: true) != nil)
        #expect(p.refusal(for: Self.request("GET", "/emulator/v1/projects", ["Sec-Fetch-Site": "cross-site"]), controlPlane: true) != nil)
        #expect(
            p.refusal(for: Self.request("GET", "/emulator/v1/status", ["Sec-Fetch-Site": "none", "Sec-Fetch-Mode": "navigate"]), controlPlane: true)
                == nil)
        #expect(p.refusal(for: Self.request("POST", "/emulator/v1/reset", [:]), controlPlane: true) == nil)  // curl, SDKs
    }

    @Test func clientAPIsAcceptLocalOriginsButNotTheirOwnerCredential() {
        let p = Self.policy { $0.allowedOrigins = ["http://tool.test"] }
        let path = "/v1/projects/p/databases/(default)/documents/a/b"
        #expect(p.refusal(for: Self.request("GET", path, ["Host": "localhost:8080", "Origin": "http://localhost:3000"]), controlPlane: false) == nil)
        #expect(p.refusal(for: Self.request("GET", path, ["Host": "localhost:8080", "Origin": "http://evil.example"]), controlPlane: false) != nil)
        for token in ["owner", "OWNER", "ya29.x"] {
            let r = Self.request("GET", path, ["Host": "localhost:8080", "Origin": "http://localhost:3000", "Authorization": "Bearer \(token)"])
            #expect(p.refusal(for: r, controlPlane: false)?.message.contains("Bearer owner") == true)
        }
        #expect(
            p.refusal(for: Self.request("GET", path, ["Origin": "http://tool.test", "Authorization": "Bearer owner"]), controlPlane: false) == nil)
        #expect(p.corsAllowed(origin: "http://localhost:3000", host: "localhost:8080", controlPlane: false))
        #expect(!p.corsAllowed(origin: "http://localhost:3000", host: "localhost:8080", controlPlane: true))
        #expect(p.corsAllowed(origin: "http://tool.test", host: "localhost:8080", controlPlane: true))
    }

    @Test func pipelineRefusesForeignHostAndSimpleCrossOriginReset() async throws {
        let app = try AppPipelineTests.app()
        let rebinding = await app.handle(Self.request("GET", "/emulator/v1/status", ["Host": "evil.example:4400"]))
        #expect(rebinding.status == 403)
        let simple = await app.handle(
            Self.request("POST", "/emulator/v1/reset", ["Host": "127.0.0.1:4400", "Origin": "http://evil.example", "Content-Type": "text/plain"]))
        #expect(simple.status == 403 && simple.headers["Access-Control-Allow-Origin"] == nil)
        let preflight = await app.handle(
            Self.request(
                "OPTIONS", "/emulator/v1/reset",
                ["Host": "127.0.0.1:4400", "Origin": "http://localhost:3000", "Access-Control-Request-Method": "POST"]))
        #expect(preflight.status == 403 && preflight.headers["Access-Control-Allow-Origin"] == nil)
    }

    @Test func acceptPreferenceDecidesBetweenTheUIAndJSON() {
        #expect(UIRoutes.prefersHTML("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"))
        #expect(!UIRoutes.prefersHTML("*/*"))
        #expect(!UIRoutes.prefersHTML(nil))
        #expect(!UIRoutes.prefersHTML("application/json"))
        #expect(!UIRoutes.prefersHTML("application/json, text/html;q=0.5"))
        #expect(UIRoutes.prefersHTML("text/html;q=0.9, application/json;q=0.5"))
    }

    @Test func allowedValuesComeFromFlagsAndConfig() throws {
        var c = EmulatorConfig()
        try CommandLineOptions.parse(["start", "--allowed-host", "a.test, .b.test", "--allowed-origin", "http://a.test:3000/,https://b.test"]).apply(
            to: &c)
        #expect(c.allowedHosts == ["a.test", ".b.test"])
        #expect(c.allowedOrigins == ["http://a.test:3000", "https://b.test"])
        #expect(throws: CLIError.self) { try CommandLineOptions.parse(["start", "--allowed-origin", "a.test"]).apply(to: &c) }
        #expect(throws: CLIError.self) { try CommandLineOptions.parse(["start", "--allowed-host", "a b"]).apply(to: &c) }
    }
}
