import EmulatorCore
import EmulatorHTTP
import Testing

@testable import Emulator

/// Firestore over WebChannel through the app (routes, browser rules) and at scale (sessions reaped
/// with their targets), plus the `firestore.webChannel` options.
@Suite struct FirestoreWebChannelTests {
    final class Collector: HTTPBodyWriter {
        let bytes = Mutex<[UInt8]>([])
        func write(_ b: [UInt8]) async throws { bytes.withLock { $0 += b } }
        /// The Firestore messages written so far (`[id,[msg]]` → msg; noops dropped).
        func messages() throws -> [JSON] {
            var r = WebChannelChunkReader()
            r.feed(bytes.withLock { $0 })
            var out: [JSON] = []
            while let c = try r.next() {
                for a in try JSON.parse(c).arrayValue ?? [] {
                    if let m = a.arrayValue?.last?.arrayValue?.first, m != "noop" { out.append(m) }
                }
            }
            return out
        }
    }

    final class ManualClock: Sendable {
        let value = Mutex<UInt64>(1_000_000_000)
        func advance(_ d: Duration) { value.withLock { $0 += UInt64(d.components.seconds) * 1_000_000_000 } }
        var now: UInt64 { value.withLock { $0 } }
    }

    static let listen = "/google.firestore.v1.Firestore/Listen/channel"
    static let write = "/google.firestore.v1.Firestore/Write/channel"
    static let db = "projects/demo-project/databases/(default)"

    static func form(_ messages: [JSON], ofs: Int, headers: String? = nil) -> [UInt8] {
        var parts: [String] = []
        if let headers { parts.append("headers=" + PercentEncoding.encode(headers)) }
        parts += ["count=\(messages.count)", "ofs=\(ofs)"]
        parts += messages.enumerated().map { "req\($0.offset)___data__=" + PercentEncoding.encode($0.element.serialized()) }
        return Array(parts.joined(separator: "&").utf8)
    }

    static func sid(_ r: HTTPResponse) throws -> String {
        var reader = WebChannelChunkReader()
        reader.feed(r.body)
        let arrays = try JSON.parse(try #require(try reader.next()))
        return try #require(arrays.arrayValue?.first?.arrayValue?.last?.arrayValue?[1].stringValue)
    }

    static func docTarget(_ path: String, _ id: Int64 = 2) -> JSON {
        ["database": .string(db), "addTarget": ["documents": ["documents": [.string("\(db)/documents/\(path)")]], "targetId": .int(id)]]
    }

    static func isGlobal(_ m: JSON) -> Bool {
        guard let tc = m["targetChange"] else { return false }
        return (tc["targetIds"]?.arrayValue ?? []).isEmpty && tc["readTime"] != nil
    }

    @Test func aListenSessionThroughTheAppSeesItsDocumentAndLaterWrites() async throws {
        let app = EmulatorApp(services: try EmulatorServices(config: EmulatorConfig(), logger: NullLogSink()))
        let put = HTTPRequest(method: "PATCH", target: "/v1/\(Self.db)/documents/c/a", body: Array(#"{"fields":{"n":{"integerValue":"1"}}}"#.utf8))
        #expect(await app.handle(put).status == 200)
        let open = await app.handle(
            HTTPRequest(
                method: "POST", target: Self.listen + "?VER=8&RID=1&CVER=22",
                body: Self.form([Self.docTarget("c/a")], ofs: 0, headers: "X-Goog-Api-Client:gl-js/ fire/12.3.0\r\n")))
        #expect(open.status == 200)
        let sid = try Self.sid(open)

        func poll(_ aid: Int) async throws -> [JSON] {
            let r = await app.handle(HTTPRequest(method: "GET", target: Self.listen + "?VER=8&RID=rpc&SID=\(sid)&AID=\(aid)&CI=1&TYPE=xmlhttp"))
            #expect(r.status == 200)
            let w = Collector()
            await r.stream?(w)
            return try w.messages()
        }
        var seen: [JSON] = []
        while !seen.contains(where: Self.isGlobal) { seen += try await poll(0) }
        #expect(seen.first == ["targetChange": ["targetChangeType": "ADD", "targetIds": [2]]])
        #expect(seen.contains { $0["documentChange"]?["document"]?["fields"] == ["n": ["integerValue": "1"]] })
        #expect(seen.contains { $0["targetChange"]?["targetChangeType"] == "CURRENT" && $0["targetChange"]?["readTime"] != nil })
        let count = seen.count
        #expect(
            await app.handle(
                HTTPRequest(
                    method: "PATCH", target: "/v1/\(Self.db)/documents/c/a",
                    body: Array(#"{"fields":{"n":{"integerValue":"2"}}}"#.utf8))
            ).status == 200)
        var later: [JSON] = []
        while !later.contains(where: Self.isGlobal) { later += try await poll(count) }
        #expect(later.first?["documentChange"]?["document"]?["fields"] == ["n": ["integerValue": "2"]])
    }

    @Test func theBrowserRulesJudgeTheHeadersBlockCredential() async throws {
        let app = EmulatorApp(services: try EmulatorServices(config: EmulatorConfig(), logger: NullLogSink()))
        func open(origin: String?, authorization: String) async -> HTTPResponse {
            var h = HTTPHeaders()
            if let origin { h.add("Origin", origin) }
            return await app.handle(
                HTTPRequest(
                    method: "POST", target: Self.write + "?VER=8&RID=1", headers: h,
                    body: Self.form([["database": .string(Self.db)]], ofs: 0, headers: "Authorization:\(authorization)\r\n")))
        }
        let smuggled = await open(origin: "http://localhost:3000", authorization: "Bearer owner")
        #expect(smuggled.status == 403)
        #expect(smuggled.headers["Access-Control-Allow-Origin"] == "http://localhost:3000")
        #expect(await open(origin: nil, authorization: "Bearer owner").status == 200)
        let user = await open(origin: "http://localhost:3000", authorization: "Bearer some.user.token")
        #expect(user.status == 200 && user.headers["Access-Control-Allow-Credentials"] == "true")
        #expect(await open(origin: "https://evil.example", authorization: "Bearer x").status == 403)
    }

    @Test func aThousandAbandonedSessionsAreReapedAndReleaseTheirTargets() async throws {
        let services = try EmulatorServices(config: EmulatorConfig(), logger: NullLogSink())
        let clock = ManualClock()
        var c = WebChannelConfiguration()
        c.now = { clock.now }
        c.tick = .seconds(3600)
        let channel = FirestoreWebChannel(services: services, configuration: c)
        let target: JSON = [
            "database": .string(Self.db),
            "addTarget": [
                "query": [
                    "parent": .string(Self.db + "/documents"),
                    "structuredQuery": ["from": [["collectionId": "c"]]],
                ], "targetId": 2,
            ],
        ]
        for _ in 0..<1000 {
            let r = try await channel.listen.handle(
                HTTPRequest(method: "POST", target: Self.listen + "?VER=8&RID=1", body: Self.form([target], ofs: 0)))
            #expect(r.status == 200)
        }
        #expect(channel.listen.sessionCount == 1000)
        #expect(services.store.watchCount(project: "demo-project", database: "(default)") == 1000)
        clock.advance(.seconds(59))
        channel.listen.maintain()
        #expect(channel.listen.sessionCount == 1000)
        clock.advance(.seconds(200))
        channel.listen.maintain()
        #expect(channel.listen.sessionCount == 0)
        #expect(services.store.watchCount(project: "demo-project", database: "(default)") == 0)
    }

    @Test func optionsAreReadFromTheFirestoreSection() throws {
        let (store, o) = try FirestoreWebChannelOptions.split([
            "transactionIdleSeconds": 30, "webChannel": ["sessionTimeoutSeconds": 2, "keepAliveSeconds": 0.5],
        ])
        #expect(store == ["transactionIdleSeconds": 30])
        #expect(o.sessionTimeoutSeconds == 2 && o.keepAliveSeconds == 0.5 && o.longPollSeconds == 25)
        let c = o.configuration()
        #expect(c.sessionTimeout == .seconds(2) && c.keepAliveInterval == .milliseconds(500) && c.tick == .milliseconds(125))
        #expect(FirestoreWebChannelOptions().configuration().tick == .seconds(1))
        #expect(throws: EmulatorError.self) { _ = try FirestoreWebChannelOptions.split(["webChannel": ["nope": 1]]) }
        #expect(throws: EmulatorError.self) { _ = try FirestoreWebChannelOptions.split(["webChannel": ["keepAliveSeconds": 50]]) }
        #expect(throws: EmulatorError.self) { _ = try FirestoreWebChannelOptions.split(["webChannel": ["maxSessions": 0]]) }
        let limits = try FirestoreWebChannelOptions(json: ["maxSessionsPerPeer": 50, "unattachedTimeoutSeconds": 10]).configuration()
        #expect(limits.maxSessionsPerPeer == 50 && limits.unattachedTimeout == .seconds(10))
        #expect(FirestoreWebChannelOptions().configuration().maxSessionsPerPeer == 1_000)
        #expect(throws: EmulatorError.self) { _ = try FirestoreWebChannelOptions(json: ["maxSessionsPerPeer": 0]) }
        #expect(throws: EmulatorError.self) { _ = try FirestoreWebChannelOptions(json: ["unattachedTimeoutSeconds": -1]) }
        var config = EmulatorConfig()
        config.firestore = ["transactionIdleSeconds": 30, "webChannel": ["longPollSeconds": 3]]
        #expect(try EmulatorServices(config: config, logger: NullLogSink()).webChannel.longPollSeconds == 3)
        config.firestore = ["webChannel": ["bad": true]]
        #expect(throws: CLIError.self) { _ = try EmulatorServices(config: config, logger: NullLogSink()) }
    }
}
