import EmulatorCore
import Testing

@testable import EmulatorHTTP

/// Hostile HTTP/2 peers (issue 22): floods end with GOAWAY ENHANCE_YOUR_CALM, stream ids may not
/// go backwards nor streams depend on themselves, and no peer holds more than its share of
/// streams, handlers or queued output.
@Suite struct HTTP2AbuseTests {
    static func limits(_ edit: (inout HTTP2Limits) -> Void) -> HTTP2Limits {
        var l = HTTP2Limits()
        edit(&l)
        return l
    }

    static func rst(_ id: UInt32) -> [UInt8] { H2Harness.frame(HTTP2FrameType.rstStream, 0, id, [0, 0, 0, 8]) }
    static let ping = H2Harness.frame(HTTP2FrameType.ping, 0, 0, [1, 2, 3, 4, 5, 6, 7, 8])

    @Test func rapidResetEndsWithEnhanceYourCalmPastTheBurst() {
        let h = H2Harness(limits: Self.limits { $0.resets = HTTP2FloodRate(burst: 10, perSecond: 5) })
        h.feed(H2Harness.settings())
        var id: UInt32 = 1
        for _ in 0..<10 {
            #expect(h.feed(h.request(id) + Self.rst(id)) == nil)
            id += 2
        }
        let error = h.feed(h.request(id) + Self.rst(id))
        #expect(error?.code == .enhanceYourCalm)
        #expect(error?.message.contains("stream resets") == true)
        let ga = h.frames().last
        #expect(ga?.type == HTTP2FrameType.goaway && ga?.goawayCode == HTTP2ErrorCode.enhanceYourCalm.rawValue)
    }

    @Test func resetsAtTheSteadyRateAreFine() {
        let h = H2Harness(limits: Self.limits { $0.resets = HTTP2FloodRate(burst: 10, perSecond: 5) })
        h.feed(H2Harness.settings())
        var id: UInt32 = 1
        for _ in 0..<100 {  // 5 a second for 20 seconds, after the burst
            #expect(h.feed(h.request(id) + Self.rst(id)) == nil)
            id += 2
            h.clock.now += 200_000_000
        }
    }

    @Test func streamsWeResetForThePeerCountToo() {
        // Malformed requests (each a stream reset by us) are cheap to send and cost a reset.
        let h = H2Harness(limits: Self.limits { $0.resets = HTTP2FloodRate(burst: 3, perSecond: 1) })
        h.feed(H2Harness.settings())
        var enc = HPACKEncoder()
        var error: HTTP2ConnectionError?
        for i in 0..<5 where error == nil {
            let bad = enc.encode([HPACKHeaderField(name: ":method", value: "GET")])
            error = h.feed(H2Harness.frame(HTTP2FrameType.headers, HTTP2Flag.endHeaders | HTTP2Flag.endStream, UInt32(1 + 2 * i), bad))
        }
        #expect(error?.code == .enhanceYourCalm)
    }

    @Test func pingAndSettingsFloodsEndWithEnhanceYourCalm() {
        for unit in [Self.ping, H2Harness.settings([(HTTP2Setting.maxFrameSize, 20_000)])] {
            let h = H2Harness(limits: Self.limits { $0.answeredFrames = HTTP2FloodRate(burst: 50, perSecond: 10) })
            h.feed(H2Harness.settings())
            #expect(h.feed(Array([[UInt8]](repeating: unit, count: 50).joined())) == nil)
            #expect(h.feed(unit)?.code == .enhanceYourCalm)
        }
    }

    @Test(arguments: [
        ("empty DATA", H2Harness.frame(HTTP2FrameType.data, 0, 1)),
        ("PRIORITY", H2Harness.frame(HTTP2FrameType.priority, 0, 1, [0, 0, 0, 0, 16])),
        ("unknown type", H2Harness.frame(0xEE, 0, 0, [1])),
        ("unsolicited PING ack", H2Harness.frame(HTTP2FrameType.ping, 1, 0, [1, 2, 3, 4, 5, 6, 7, 8])),
    ])
    func floodsOfFramesThatCarryNothingEndWithEnhanceYourCalm(_ name: String, _ unit: [UInt8]) {
        let h = H2Harness(limits: Self.limits { $0.emptyFrames = HTTP2FloodRate(burst: 20, perSecond: 1) })
        h.feed(H2Harness.settings())
        h.feed(h.request(1))
        var error: HTTP2ConnectionError?
        for _ in 0..<25 where error == nil { error = h.feed(unit) }
        #expect(error?.code == .enhanceYourCalm, "\(name)")
    }

    @Test func emptyContinuationsCannotGoOnForever() {
        // Each adds nothing to the header block, so its size limit alone would never stop them.
        let h = H2Harness(limits: Self.limits { $0.emptyFrames = HTTP2FloodRate(burst: 20, perSecond: 1) })
        h.feed(H2Harness.settings())
        var error = h.feed(H2Harness.frame(HTTP2FrameType.headers, 0, 1, [0x82]))
        for _ in 0..<25 where error == nil { error = h.feed(H2Harness.frame(HTTP2FrameType.continuation, 0, 1)) }
        #expect(error?.code == .enhanceYourCalm)
    }

    @Test func theDefaultsAnswerTwoThousandPingsAtOnce() {
        let h = H2Harness()
        h.feed(H2Harness.settings())
        #expect(h.feed(Array([[UInt8]](repeating: Self.ping, count: 2000).joined())) == nil)
        #expect(h.frames().filter { $0.type == HTTP2FrameType.ping }.count == 2000)
    }

    @Test func aStreamIdGoingBackwardsIsAConnectionError() {
        let h = H2Harness()
        h.feed(H2Harness.settings())
        #expect(h.feed(h.request(5)) == nil)
        let error = h.feed(h.request(3))
        #expect(error?.code == .protocolError)
        #expect(error?.message.contains("5.1.1") == true)
        #expect(h.opened.count == 1)
    }

    @Test func framesOnAStreamWeResetAreIgnored() {
        let h = H2Harness()
        h.feed(H2Harness.settings())
        h.feed(h.request(1))
        h.opened[0].reset(.cancel)
        h.apply()
        #expect(h.feed(h.request(3)) == nil)
        // Trailers the peer sent before it saw our reset.
        var enc = h.encoder
        let trailers = enc.encode([HPACKHeaderField(name: "x-t", value: "1")])
        h.encoder = enc
        #expect(h.feed(H2Harness.frame(HTTP2FrameType.headers, HTTP2Flag.endHeaders | HTTP2Flag.endStream, 1, trailers)) == nil)
        #expect(h.feed(H2Harness.frame(HTTP2FrameType.data, HTTP2Flag.endStream, 1, [1, 2])) == nil)
    }

    @Test func aStreamThatDependsOnItselfIsResetAndNeverStarted() {
        let h = H2Harness()
        h.feed(H2Harness.settings())
        _ = h.frames()
        var enc = HPACKEncoder()
        let block = enc.encode(
            [(":method", "GET"), (":scheme", "http"), (":path", "/"), (":authority", "t")].map { HPACKHeaderField(name: $0.0, value: $0.1) })
        let priority: [UInt8] = [0, 0, 0, 1, 16]  // depends on stream 1, weight 17
        #expect(
            h.feed(H2Harness.frame(HTTP2FrameType.headers, HTTP2Flag.endHeaders | HTTP2Flag.endStream | HTTP2Flag.priority, 1, priority + block))
                == nil)
        #expect(h.opened.isEmpty)
        let rst = h.frames().first { $0.type == HTTP2FrameType.rstStream }
        #expect(rst?.streamId == 1 && rst?.u32 == HTTP2ErrorCode.protocolError.rawValue)
        // The HPACK state followed the block: the next request decodes.
        h.encoder = enc
        #expect(h.feed(h.request(3)) == nil && h.opened.count == 1)
    }

    @Test func priorityOnItselfResetsAnOpenStreamAndEndsTheConnectionOnAnIdleOne() {
        let h = H2Harness()
        h.feed(H2Harness.settings())
        h.feed(h.request(1))
        _ = h.frames()
        #expect(h.feed(H2Harness.frame(HTTP2FrameType.priority, 0, 1, [0, 0, 0, 1, 16])) == nil)
        #expect(h.frames().first?.type == HTTP2FrameType.rstStream)
        #expect(h.conn.openStreamCount == 0)
        #expect(h.feed(H2Harness.frame(HTTP2FrameType.priority, 0, 9, [0, 0, 0, 9, 16]))?.code == .protocolError)
    }

    @Test func theServerWideStreamQuotaIsShared() {
        let quota = HTTP2StreamQuota(limit: 2)
        let a = H2Harness(quota: quota), b = H2Harness(quota: quota)
        a.feed(H2Harness.settings())
        b.feed(H2Harness.settings())
        a.feed(a.request(1))
        b.feed(b.request(1))
        _ = b.frames()
        b.feed(b.request(3))
        #expect(b.opened.count == 1)
        #expect(b.frames().first { $0.type == HTTP2FrameType.rstStream }?.u32 == HTTP2ErrorCode.refusedStream.rawValue)
        a.conn.closeAll(HTTP2StreamClosed(code: nil, reason: "gone"))
        #expect(quota.open == 1)
        b.feed(b.request(5))
        #expect(b.opened.count == 2)
    }

    @Test func handlersStartAFewAtATimePerConnection() {
        let h = H2Harness(limits: Self.limits { $0.maxWorkingHandlers = 2 })
        h.feed(H2Harness.settings())
        for id: UInt32 in [1, 3, 5, 7] { h.feed(h.request(id, endStream: true)) }
        #expect(h.opened.count == 2)
        #expect(h.conn.openStreamCount == 4)
        // The first ends its answer: the third starts.
        try? h.opened[0].write(headers: [HPACKHeaderField(name: ":status", value: "200")], endStream: true)
        h.apply()
        #expect(h.opened.count == 3)
        // A handler that answers and lives on (a listener) keeps its slot only for the grace period.
        try? h.opened[1].write(headers: [HPACKHeaderField(name: ":status", value: "200")])
        h.apply()
        #expect(h.opened.count == 3)
        h.clock.now += 300_000_000
        h.conn.expireWorkingHandlers(now: h.clock.now)
        #expect(h.opened.count == 4)
    }

    @Test func aPeerResettingAWaitingStreamStartsNothing() {
        let h = H2Harness(limits: Self.limits { $0.maxWorkingHandlers = 1 })
        h.feed(H2Harness.settings())
        h.feed(h.request(1))
        h.feed(h.request(3) + Self.rst(3))
        try? h.opened[0].write(headers: [HPACKHeaderField(name: ":status", value: "200")], endStream: true)
        h.apply()
        #expect(h.opened.count == 1)
        #expect(h.conn.openStreamCount == 0 || h.conn.openStreamCount == 1)
    }

    @Test func streamsStalledByZeroWindowsLeaveTheSendRotation() async throws {
        let h = H2Harness()
        h.feed(H2Harness.settings([(HTTP2Setting.initialWindowSize, 0)]))
        for i in 0..<50 { h.feed(h.request(UInt32(1 + 2 * i))) }
        for s in h.opened {
            try s.write(headers: [HPACKHeaderField(name: ":status", value: "200")])
            try await s.write(data: [1, 2, 3])
        }
        h.apply()
        #expect(!h.conn.hasReadyOutput, "no stream can send: none is revisited on every turn")
        // A one-byte window on one stream sends one byte there, and only there.
        h.feed(H2Harness.frame(HTTP2FrameType.windowUpdate, 0, 7, [0, 0, 0, 1]))
        h.conn.pump(into: &h.out)
        let data = h.frames().filter { $0.type == HTTP2FrameType.data }
        #expect(data.map(\.streamId) == [7] && data.first?.payload == [1])
    }

    @Test func repeatedWindowSettingsInOneFrameApplyTheNetChangeOnce() async throws {
        let h = H2Harness()
        h.feed(H2Harness.settings())
        h.feed(h.request(1))
        let entries = (0..<2000).map { i in (HTTP2Setting.initialWindowSize, UInt32(i % 2 == 0 ? 10 : 100)) }
        #expect(h.feed(H2Harness.settings(entries)) == nil)
        #expect(h.conn.streams[1]?.sendWindow == 100)
    }

    @Test func queuedOutputIsBoundedPerConnection() async throws {
        let h = H2Harness(limits: Self.limits { $0.queuedOutputBudget = 64 * 1024 })
        h.feed(H2Harness.settings([(HTTP2Setting.initialWindowSize, 0)]))
        for i in 0..<4 { h.feed(h.request(UInt32(1 + 2 * i))) }
        // Each stream writes 40 KiB (under its own high-water mark); together they pass the
        // connection's budget, and the last writer must wait.
        for s in h.opened.prefix(2) { try await s.write(data: [UInt8](repeating: 1, count: 40 * 1024)) }
        #expect(h.conn.sendBudget.queued == 80 * 1024)
        let third = h.opened[2]
        let done = Mutex(false)
        let writer = Task {
            try await third.write(data: [UInt8](repeating: 2, count: 1024))
            done.withLock { $0 = true }
        }
        try await Task.sleep(nanoseconds: 100_000_000)
        #expect(done.withLock { $0 } == false)
        // The peer reads: windows open, the loop frames, the writer continues.
        h.apply()
        h.feed(H2Harness.settings([(HTTP2Setting.initialWindowSize, 1 << 20)]) + H2Harness.frame(HTTP2FrameType.windowUpdate, 0, 0, [0, 0x10, 0, 0]))
        h.apply()
        try await writer.value
        #expect(done.withLock { $0 })
    }

    @Test func theFloodGuardRefillsByElapsedTime() {
        var g = HTTP2FloodGuard(
            reset: HTTP2FloodRate(burst: 2, perSecond: 10), answered: HTTP2FloodRate(burst: 1, perSecond: 0),
            empty: HTTP2FloodRate(burst: Int.max, perSecond: Int.max), now: 0)
        let first = [g.take(.reset, now: 0), g.take(.reset, now: 0), g.take(.reset, now: 0)]
        #expect(first == [true, true, false])
        let half = g.take(.reset, now: 50_000_000)  // half a token
        #expect(!half)
        let whole = g.take(.reset, now: 100_000_000)  // one token after 100 ms
        #expect(whole)
        let answered = [g.take(.answered, now: 0), g.take(.answered, now: UInt64.max / 2)]
        #expect(answered == [true, false])
        var all = true
        for _ in 0..<1000 { all = all && g.take(.empty, now: UInt64.max) }  // clamped: no overflow
        #expect(all)
    }
}
