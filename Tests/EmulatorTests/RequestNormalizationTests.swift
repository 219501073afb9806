import EmulatorCore
import EmulatorHTTP
import Testing

@testable import Emulator

/// One normalized form of the request path for every decision (issue 22, item 2), and header
/// values that must never trap (item 1). The socket-level proof is
/// Tests/python/security/test_request_forms.py.
@Suite struct RequestNormalizationTests {
    static let token = "s3cret"

    /// Every control-plane route of the live router, with its parameters filled in.
    static func controlPlanePaths(_ app: EmulatorApp) -> [(method: String, path: String)] {
        var out: [(String, String)] = []
        for (method, template) in app.router.table {
            guard template == "/reset" || (template.hasPrefix("/emulator/") && !template.hasPrefix("/emulator/action")) else { continue }
            var path = ""
            for seg in template.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
                var s = String(seg)
                // `{name=**}` spans segments; `{name}` is one; a `:verb` suffix stays.
                if let open = s.firstIndex(of: "{"), let close = s.firstIndex(of: "}") {
                    let wildcard = s[open...close].contains("=")
                    s.replaceSubrange(open...close, with: wildcard ? "a/b" : "p1")
                }
                path += "/" + s
            }
            out.append((method == "*" ? "POST" : method, path))
        }
        return out
    }

    /// Spellings of `path` that the router resolves to the same route or that must be refused.
    static func variants(_ path: String) -> [String] {
        let segs = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        var out: Set<String> = []
        func join(_ s: [String]) -> String { "/" + s.joined(separator: "/") }
        for (i, seg) in segs.enumerated() {
            let bytes = Array(seg.utf8)
            for (j, b) in bytes.enumerated() where b != UInt8(ascii: ":") {
                let hex = String(b, radix: 16)
                for h in [hex.uppercased(), hex.lowercased()] {
                    var s = segs
                    s[i] =
                        String(decoding: bytes[..<j], as: UTF8.self) + "%" + (h.count == 1 ? "0" + h : h)
                        + String(decoding: bytes[(j + 1)...], as: UTF8.self)
                    out.insert(join(s))
                }
            }
            var s = segs
            s[i] = bytes.map { "%" + String($0, radix: 16, uppercase: true) }.joined()
            out.insert(join(s))
            for extra in [["."], ["%2e"], ["%2E"], ["x", ".."], ["x", "%2e%2e"], ["x", "%2E%2E"], [""]] {
                var t = segs
                t.insert(contentsOf: extra, at: i)
                out.insert(join(t))
            }
        }
        out.insert("/" + path)
        return out.sorted()
    }

    @Test func everyEncodingOfEveryControlPlaneRouteNeedsTheAdminToken() async throws {
        let app = try AppPipelineTests.app { $0.adminToken = Self.token }
        let routes = Self.controlPlanePaths(app)
        #expect(routes.count > 30, "the control plane has many routes: \(routes.count)")
        var checked = 0
        for (method, path) in routes {
            for v in Self.variants(path) {
                let r = await app.handle(HTTPRequest(method: method, target: v))
                checked += 1
                // 401: recognised as control plane; 400: a path without one meaning. Never served.
                #expect(r.status == 401 || r.status == 400, "\(method) \(v) answered \(r.status) without the admin token")
            }
        }
        #expect(checked > 1000)
    }

    @Test func percentEncodedLiteralsReachTheSameRouteWithTheToken() async throws {
        let app = try AppPipelineTests.app { $0.adminToken = Self.token }
        let auth: HTTPHeaders = ["Authorization": "Bearer \(Self.token)"]
        for target in ["/emulator/v1/status", "/%65mulator/v1/status", "/emulator/v1/%73tatus", "/%65%6D%75%6C%61%74%6F%72/v1/status"] {
            let r = await app.handle(HTTPRequest(method: "GET", target: target, headers: auth))
            #expect(r.status == 200, "\(target): \(r.status)")
        }
        #expect(await app.handle(HTTPRequest(method: "POST", target: "/%72eset")).status == 401)
        #expect(await app.handle(HTTPRequest(method: "POST", target: "/%72eset", headers: auth)).status == 200)
    }

    @Test(arguments: [
        ("/a//b", "empty segment"), ("//emulator/v1/status", "empty segment"), ("/emulator/./v1/status", "'.' or '..'"),
        ("/emulator/x/../v1/status", "'.' or '..'"), ("/emulator/v1/%2e%2E/v1/status", "'.' or '..'"), ("/emulator/%zz", "percent-escape"),
        ("/emulator/%ff", "percent-escape"),
    ])
    func ambiguousPathsAreRefusedNamingTheProblem(target: String, words: String) async throws {
        let r = try await AppPipelineTests.app().handle(HTTPRequest(method: "GET", target: target))
        #expect(r.status == 400)
        let message = try JSON.parse(r.body)["error"]?["message"]?.stringValue ?? ""
        #expect(message.contains(words), "\(message)")
    }

    @Test func aTrailingSlashAndAnEncodedSlashKeepTheirMeaning() {
        guard case .success(let p) = RequestPath.normalized("/v1/a%2Fb/") else {
            Issue.record("refused")
            return
        }
        #expect(p.decoded == ["v1", "a/b", ""])
    }

    @Test(arguments: [
        "1.1.1.\u{00B2}", "\u{00B2}.1.1.1", "127.0.0.\u{0661}", "\u{FF11}\u{FF12}\u{FF17}.0.0.1", "[::\u{FF11}]", "::\u{FF21}",
        "127.0.0.1:\u{00B9}", "999999999999999999999.1.1.1", "1.1.1.1\u{0301}", "\u{1D7CF}.1.1.1",
    ])
    func hostileHostAndOriginValuesAreRefusedWithoutTrapping(value: String) async throws {
        let app = try AppPipelineTests.app()
        let byHost = await app.handle(HTTPRequest(method: "GET", target: "/emulator/v1/status", headers: ["Host": value]))
        #expect(byHost.status == 403)
        let byOrigin = await app.handle(
            HTTPRequest(
                method: "GET", target: "/v1/projects/p/databases/(default)/documents/c/d",
                headers: ["Host": "127.0.0.1:8080", "Origin": "http://\(value)"]))
        #expect(byOrigin.status == 403)
    }

    @Test func onlyDottedQuadsCountAsLoopbackForHost() {
        for ok in ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"] { #expect(EmulatorRuntime.isLoopback(ok), "\(ok)") }
        for bad in ["127.0.0.1.nip.io", "127.evil.example", "127.0.0.1.", "127.0.0.256", "0.0.0.0", "10.0.0.1", "127.0.0.\u{00B2}"] {
            #expect(!EmulatorRuntime.isLoopback(bad), "\(bad)")
        }
    }
}
