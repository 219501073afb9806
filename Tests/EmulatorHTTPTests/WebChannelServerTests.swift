import EmulatorCore
import Testing

@testable import EmulatorHTTP

/// Sessions of `WebChannelServer` with an echo service, a manual clock and in-memory
/// backchannels: handshake, retries, acknowledgements and resends, both backchannel modes,
/// keep-alives, reaping, stalls and bounds.
@Suite struct WebChannelServerTests {
    /// Echoes each map's `__data__` as one array; remembers what it saw.
    final class EchoService: WebChannelService {
        let streams = Mutex<[EchoStream]>([])
        func open(_ handshake: WebChannelHandshake, session: WebChannelSession) throws -> any WebChannelStream {
            if handshake.headers["Authorization"] == "Bearer refuse" { throw EmulatorError(.permissionDenied, "refused") }
            let s = EchoStream(session)
            streams.withLock { $0.append(s) }
            return s
        }
    }

    final class EchoStream: WebChannelStream {
        let session: WebChannelSession
        let received = Mutex<[String]>([])
        let closed = Mutex(false)
        init(_ session: WebChannelSession) { self.session = session }
        func receive(_ maps: [[String: String]]) async {
            for m in maps {
                let data = m["__data__"] ?? ""
                received.withLock { $0.append(data) }
                session.post([.string(data)])
            }
        }
        func close() { closed.withLock { $0 = true } }
    }

    /// Monotonic nanoseconds the test moves.
    final class ManualClock: Sendable {
        let value = Mutex<UInt64>(1_000_000_000)
        func advance(_ d: Duration) { value.withLock { $0 += d.nanoseconds } }
        var now: UInt64 { value.withLock { $0 } }
    }

    /// A backchannel body that collects what is written; can be told to fail.
    final class Collector: HTTPBodyWriter {
        let bytes = Mutex<[UInt8]>([])
        let failing = Mutex(false)
        func write(_ b: [UInt8]) async throws {
            if failing.withLock({ $0 }) { throw HTTPBodyClosed() }
            bytes.withLock { $0 += b }
        }
        /// Every array written so far, as `[id, payload]`.
        func arrays() throws -> [JSON] {
            var r = WebChannelChunkReader()
            r.feed(bytes.withLock { $0 })
            var out: [JSON] = []
            while let c = try r.next() { out += try JSON.parse(c).arrayValue ?? [] }
            return out
        }
        func ids() throws -> [Int64] { try arrays().compactMap { $0.arrayValue?.first?.intValue } }
    }

    struct Fixture {
        let server: WebChannelServer
        let service: EchoService
        let clock: ManualClock
    }

    static func fixture(_ edit: (inout WebChannelConfiguration) -> Void = { _ in }) -> Fixture {
        let clock = ManualClock()
        var c = WebChannelConfiguration()
        c.now = { clock.now }
        c.tick = .seconds(3600)  // the tests run the maintenance pass themselves
        edit(&c)
        let service = EchoService()
        return Fixture(server: WebChannelServer(service: service, configuration: c), service: service, clock: clock)
    }

    static func body(_ maps: [String], ofs: Int, headers: String? = nil) -> [UInt8] {
        var parts: [String] = []
        if let headers { parts.append("headers=" + PercentEncoding.encode(headers)) }
        parts += ["count=\(maps.count)", "ofs=\(ofs)"]
        parts += maps.enumerated().map { "req\($0.offset)___data__=" + PercentEncoding.encode($0.element) }
        return Array(parts.joined(separator: "&").utf8)
    }

    static func open(_ f: Fixture, _ maps: [String] = ["m0"], headers: String? = nil) async throws -> String {
        let r = try await f.server.handle(
            HTTPRequest(
                method: "POST", target: "/c?VER=8&RID=1&CVER=22&X-HTTP-Session-Id=gsessionid",
                body: body(maps, ofs: 0, headers: headers)))
        #expect(r.status == 200)
        #expect(r.headers["X-HTTP-Session-Id"]?.hasPrefix("gsid-") == true)
        var reader = WebChannelChunkReader()
        reader.feed(r.body)
        let c = try JSON.parse(try #require(try reader.next()))
        let hs = try #require(c.arrayValue?.first?.arrayValue?.last?.arrayValue)
        #expect(hs.count == 6 && hs[0] == "c" && hs[2] == "" && hs[3] == 8 && hs[4] == 12 && hs[5] == 30000)
        return try #require(hs[1].stringValue)
    }

    static func post(_ f: Fixture, _ sid: String, _ maps: [String], ofs: Int, aid: Int? = nil) async throws -> String {
        let r = try await f.server.handle(
            HTTPRequest(
                method: "POST", target: "/c?VER=8&SID=\(sid)&RID=2" + (aid.map { "&AID=\($0)" } ?? ""),
                body: body(maps, ofs: ofs)))
        return String(decoding: r.body, as: UTF8.self)
    }

    /// Opens a backchannel and serves it in a task; returns the collector and the task.
    static func get(_ f: Fixture, _ sid: String, aid: Int, longPoll: Bool, extra: String = "") async throws -> (Collector, Task<Void, Never>) {
        let r = try await f.server.handle(
            HTTPRequest(method: "GET", target: "/c?VER=8&RID=rpc&SID=\(sid)&AID=\(aid)&CI=\(longPoll ? 1 : 0)&TYPE=xmlhttp" + extra))
        let stream = try #require(r.stream)
        let w = Collector()
        return (w, Task { await stream(w) })
    }

    static func eventually(_ what: String, _ condition: () throws -> Bool) async throws {
        for _ in 0..<400 {
            if try condition() { return }
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        Issue.record("never: \(what)")
    }

    @Test func handshakeThenLongPollDeliversAndEnds() async throws {
        let f = Self.fixture()
        let sid = try await Self.open(f, ["a", "b"], headers: "Authorization:Bearer x\r\nX-Goog-Api-Client:gl-js/ fire/12.3.0\r\n")
        #expect(sid.count == 22)
        let (w, t) = try await Self.get(f, sid, aid: 0, longPoll: true)
        await t.value  // a long poll ends after the data
        #expect(try w.arrays() == [[1, ["a"]], [2, ["b"]]])
        #expect(f.service.streams.withLock { $0[0].received.withLock { $0 } } == ["a", "b"])
    }

    @Test func retriedForwardRequestsAreAppliedOnce() async throws {
        let f = Self.fixture()
        let sid = try await Self.open(f)
        #expect(try await Self.post(f, sid, ["m1"], ofs: 1) == "7\n[1,2,0]")
        #expect(try await Self.post(f, sid, ["m1"], ofs: 1) == "7\n[1,2,0]")
        #expect(try await Self.post(f, sid, ["m1", "m2"], ofs: 1) == "7\n[1,3,0]")
        #expect(f.service.streams.withLock { $0[0].received.withLock { $0 } } == ["m0", "m1", "m2"])
        await #expect(throws: EmulatorError.self) { _ = try await Self.post(f, sid, ["m9"], ofs: 9) }
    }

    @Test func aNewBackchannelReplacesTheOldAndResendsWhatIsUnacknowledged() async throws {
        let f = Self.fixture()
        let sid = try await Self.open(f, ["a", "b", "c"])
        let (one, t1) = try await Self.get(f, sid, aid: 0, longPoll: false)
        try await Self.eventually("three arrays") { try one.ids() == [1, 2, 3] }
        let (two, t2) = try await Self.get(f, sid, aid: 1, longPoll: false)
        await t1.value  // replaced: it ends
        try await Self.eventually("resent after AID 1") { try two.ids() == [2, 3] }
        _ = try await Self.post(f, sid, ["d"], ofs: 3, aid: 3)
        try await Self.eventually("new array on the new GET") { try two.ids() == [2, 3, 4] }
        #expect(try one.ids() == [1, 2, 3])
        let session = try #require(f.server.session(sid))
        #expect(session.queuedBytes == "[4,[\"d\"]]".utf8.count)  // arrays up to AID 3 forgotten
        t2.cancel()
        await t2.value
    }

    @Test func aStreamingBackchannelGetsNoopsAndALongPollEndsWithOne() async throws {
        let f = Self.fixture()
        let sid = try await Self.open(f, [])
        let (w, t) = try await Self.get(f, sid, aid: 0, longPoll: false)
        try await Task.sleep(nanoseconds: 20_000_000)
        f.clock.advance(.seconds(24))
        f.server.maintain()
        #expect(try w.arrays().isEmpty)
        f.clock.advance(.seconds(2))
        f.server.maintain()
        try await Self.eventually("noop") { try w.arrays() == [[1, ["noop"]]] }
        let (p, tp) = try await Self.get(f, sid, aid: 1, longPoll: true)
        await t.value
        try await Task.sleep(nanoseconds: 20_000_000)
        f.clock.advance(.seconds(26))
        f.server.maintain()
        await tp.value
        #expect(try p.arrays() == [[2, ["noop"]]])
        // `TO` shortens the long poll.
        let (q, tq) = try await Self.get(f, sid, aid: 2, longPoll: true, extra: "&TO=1000")
        try await Task.sleep(nanoseconds: 20_000_000)
        f.clock.advance(.milliseconds(1001))
        f.server.maintain()
        await tq.value
        #expect(try q.arrays() == [[3, ["noop"]]])
    }

    @Test func sessionsWithoutClientAreReapedAndTheirStreamsClosed() async throws {
        let f = Self.fixture { $0.unattachedTimeout = .seconds(3600) }  // the never-attached: WebChannelSessionLimitTests
        let idle = try await Self.open(f, [])
        let attached = try await Self.open(f, [])
        let (_, t) = try await Self.get(f, attached, aid: 0, longPoll: false)
        try await Task.sleep(nanoseconds: 20_000_000)
        f.clock.advance(.seconds(179))
        f.server.maintain()
        #expect(f.server.sessionCount == 2)
        f.clock.advance(.seconds(2))
        f.server.maintain()
        #expect(f.server.sessionCount == 1 && f.server.session(attached) != nil)  // a GET is attached: not gone
        #expect(f.service.streams.withLock { $0[0].closed.withLock { $0 } })
        await #expect(throws: EmulatorError.self) { _ = try await Self.post(f, idle, [], ofs: 0) }
        t.cancel()
        await t.value
        f.clock.advance(.seconds(181))
        f.server.maintain()
        #expect(f.server.sessionCount == 0)
    }

    /// The maintenance pass reads the clock once and then visits every session, while requests go
    /// on: a session opened, or a GET attached, after that reading must look new to the pass, not
    /// 2^64 ns old (the CI flake where a fresh backchannel ended before its first array).
    @Test func aPassWhoseClockReadingPredatesTheSessionLeavesItAlone() async throws {
        let f = Self.fixture()
        let before = f.clock.now
        f.clock.advance(.milliseconds(5))
        let idle = try await Self.open(f, ["queued"])  // no GET: reaped only after sessionTimeout
        let idleSession = try #require(f.server.session(idle))
        #expect(idleSession.maintain(now: before) == false && !idleSession.isClosed)
        // Attached, its array not yet taken: dropped only after stallTimeout without progress.
        let attached = try await Self.open(f, ["queued"])
        let r = try await f.server.handle(HTTPRequest(method: "GET", target: "/c?VER=8&RID=rpc&SID=\(attached)&AID=0&CI=0&TYPE=xmlhttp"))
        let attachedSession = try #require(f.server.session(attached))
        #expect(attachedSession.maintain(now: before) == false && !attachedSession.isClosed)
        let w = Collector()
        let stream = try #require(r.stream)
        let t = Task { await stream(w) }
        try await Self.eventually("the GET writes its array") { try w.arrays() == [[1, ["queued"]]] }
        t.cancel()
        await t.value
    }

    @Test func dataNoBackchannelTakesDropsTheSession() async throws {
        let f = Self.fixture { $0.unattachedTimeout = .seconds(3600) }  // the stall drops it, not the missing GET
        let sid = try await Self.open(f, ["x"])
        var seconds = 0
        while f.server.session(sid) != nil, seconds < 100 {  // the client keeps posting (not gone) but never reads
            f.clock.advance(.seconds(10))
            seconds += 10
            _ = try await Self.post(f, sid, [], ofs: 1)
            f.server.maintain()
        }
        #expect(seconds == 60)  // stallTimeout
        #expect(f.service.streams.withLock { $0[0].closed.withLock { $0 } })
    }

    @Test func tooMuchQueuedDropsTheSessionAndSendWaitsForTheBackchannel() async throws {
        let f = Self.fixture {
            $0.maxQueuedBytes = 10_000
            $0.sendBufferBytes = 1000
        }
        let sid = try await Self.open(f, [])
        let session = try #require(f.server.session(sid))
        let big = JSON.string(String(repeating: "x", count: 600))
        // `send` returns while less than sendBufferBytes wait, then waits for the backchannel.
        let sent = Mutex(0)
        let producer = Task {
            for _ in 0..<4 {
                try? await session.send(big)
                sent.withLock { $0 += 1 }
            }
        }
        try await Self.eventually("one send done") { sent.withLock { $0 } == 1 }
        try await Task.sleep(nanoseconds: 30_000_000)
        #expect(sent.withLock { $0 } == 1)  // the second one is queued and waits: 1,220 bytes are more than 1,000
        let (w, t) = try await Self.get(f, sid, aid: 0, longPoll: false)
        await producer.value
        try await Self.eventually("four arrays") { try w.ids() == [1, 2, 3, 4] }
        t.cancel()
        await t.value
        for _ in 0..<20 { session.post(big) }  // nobody reads: past maxQueuedBytes the session ends
        #expect(session.isClosed)
        f.server.maintain()
        #expect(f.server.sessionCount == 0)
        #expect(f.service.streams.withLock { $0[0].closed.withLock { $0 } })
    }

    @Test func aSenderWritesOnAnIdleBackchannelItselfAndALongPollStillEnds() async throws {
        let f = Self.fixture()
        let sid = try await Self.open(f, [])
        let session = try #require(f.server.session(sid))
        let (w, t) = try await Self.get(f, sid, aid: 0, longPoll: false)
        try await Task.sleep(nanoseconds: 30_000_000)  // the GET is parked
        try await session.send("a")
        #expect(try w.ids() == [1])  // written by the sender before `send` returned
        try await session.send(serialized: [Array("\"b\"".utf8), Array("\"c\"".utf8)])
        #expect(try w.ids() == [1, 2, 3])
        session.post("d")  // a post wakes the GET instead
        try await Self.eventually("the GET wrote d") { try w.ids() == [1, 2, 3, 4] }
        let (p, tp) = try await Self.get(f, sid, aid: 4, longPoll: true)
        await t.value  // replaced
        try await Task.sleep(nanoseconds: 30_000_000)
        try await session.send("e")
        await tp.value  // the long poll ended after the sender's chunk
        #expect(try p.arrays() == [[5, "e"]])
        // A sender whose direct write fails ends that GET; the session stays.
        let (q, tq) = try await Self.get(f, sid, aid: 5, longPoll: false)
        try await Task.sleep(nanoseconds: 30_000_000)
        q.failing.withLock { $0 = true }
        try await session.send("f")
        await tq.value
        #expect(f.server.session(sid) != nil)
        let (r, tr) = try await Self.get(f, sid, aid: 5, longPoll: true)
        await tr.value
        #expect(try r.arrays() == [[6, "f"]])
    }

    @Test func aBackchannelWhoseClientWentAwayDetaches() async throws {
        let f = Self.fixture()
        let sid = try await Self.open(f, ["a"])
        let r = try await f.server.handle(HTTPRequest(method: "GET", target: "/c?SID=\(sid)&RID=rpc&AID=0&CI=0&TYPE=xmlhttp"))
        let w = Collector()
        w.failing.withLock { $0 = true }
        await r.stream?(w)  // the first write fails: the GET ends and the session has no backchannel
        f.clock.advance(.seconds(181))
        f.server.maintain()
        #expect(f.server.sessionCount == 0)
    }

    @Test func terminateUnknownSessionsRefusalsAndTheSessionLimit() async throws {
        let f = Self.fixture { $0.maxSessions = 2 }
        let a = try await Self.open(f, [])
        let b = try await Self.open(f, [])
        let (_, t) = try await Self.get(f, a, aid: 0, longPoll: false)
        let (_, tb) = try await Self.get(f, b, aid: 0, longPoll: false)  // attached sessions are never evicted
        await #expect(throws: EmulatorError.self) { _ = try await Self.open(f, []) }
        let r = try await f.server.handle(HTTPRequest(method: "POST", target: "/c?SID=\(a)&RID=9&TYPE=terminate"))
        #expect(r.status == 200 && r.body.isEmpty)
        await t.value  // its backchannel ended
        do {
            _ = try await f.server.handle(HTTPRequest(method: "GET", target: "/c?SID=\(a)&RID=rpc&AID=0&CI=1&TYPE=xmlhttp"))
            Issue.record("a terminated session answered")
        } catch let e as EmulatorError {
            #expect(e.code == .invalidArgument && e.message.hasPrefix("Unknown SID"))
        }
        // A handshake the service refuses keeps no session.
        await #expect(throws: EmulatorError.self) { _ = try await Self.open(f, [], headers: "Authorization:Bearer refuse\r\n") }
        #expect(f.server.sessionCount == 1)
        f.server.closeAll()
        #expect(f.server.sessionCount == 0)
        await tb.value  // closing the session ended its backchannel
    }
}
