import Testing

@testable import EmulatorHTTP

@Suite struct HTTP2FrameParserTests {
    @Test func sameFramesWhateverTheReadBoundaries() throws {
        var bytes: [UInt8] = []
        HTTP2FrameWriter.settings(&bytes, [(HTTP2Setting.initialWindowSize, 100)])
        HTTP2FrameWriter.windowUpdate(&bytes, stream: 3, increment: 77)
        HTTP2FrameWriter.append(&bytes, type: HTTP2FrameType.data, flags: HTTP2Flag.endStream, stream: 1, payload: Array(repeating: 7, count: 300))
        HTTP2FrameWriter.goaway(&bytes, lastStream: 5, code: .protocolError, debug: "bye")
        func parse(chunks: Int) throws -> [HTTP2Frame] {
            var p = HTTP2FrameParser()
            var out: [HTTP2Frame] = []
            var i = 0
            while i < bytes.count {
                let end = min(bytes.count, i + chunks)
                p.feed(Array(bytes[i..<end]))
                while let f = try p.next() { out.append(f) }
                i = end
            }
            return out
        }
        let whole = try parse(chunks: bytes.count)
        #expect(whole.map(\.type) == [HTTP2FrameType.settings, HTTP2FrameType.windowUpdate, HTTP2FrameType.data, HTTP2FrameType.goaway])
        #expect(whole[2].payload.count == 300 && whole[2].has(HTTP2Flag.endStream) && whole[2].streamId == 1)
        for n in [1, 2, 5, 9, 10, 64] { #expect(try parse(chunks: n) == whole) }
    }

    @Test func oversizedFrameIsDetectedFromItsHeader() {
        var p = HTTP2FrameParser(maxFrameSize: 16_384)
        p.feed([0x00, 0x40, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01])
        #expect(throws: HTTP2ConnectionError.self) { try p.next() }
    }

    @Test func reservedBitIsIgnored() throws {
        var p = HTTP2FrameParser()
        p.feed([0, 0, 0, 8, 0, 0x80, 0, 0, 3])
        #expect(try p.next()?.streamId == 3)
    }
}

@Suite struct HTTP2ConnectionTests {
    @Test func serverPrefaceIsSettingsThenAConnectionWindowUpdate() {
        let h = H2Harness()
        let fs = h.frames()
        #expect(fs.map(\.type) == [HTTP2FrameType.settings, HTTP2FrameType.windowUpdate])
        #expect(fs[0].flags == 0 && fs[1].streamId == 0 && fs[1].u32 == UInt32((16 << 20) - 65_535))
    }

    @Test func settingsAreAckedAndPingsEchoed() {
        let h = H2Harness()
        _ = h.frames()
        #expect(
            h.feed(H2Harness.settings([(HTTP2Setting.maxFrameSize, 32_768)]) + H2Harness.frame(HTTP2FrameType.ping, 0, 0, [1, 2, 3, 4, 5, 6, 7, 8]))
                == nil)
        let fs = h.frames()
        #expect(fs.count == 2)
        #expect(fs[0].type == HTTP2FrameType.settings && fs[0].has(HTTP2Flag.ack) && fs[0].payload.isEmpty)
        #expect(fs[1].type == HTTP2FrameType.ping && fs[1].has(HTTP2Flag.ack) && fs[1].payload == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(h.conn.peerMaxFrameSize == 32_768)
    }

    @Test func firstFrameMustBeSettings() {
        let h = H2Harness()
        #expect(h.feed(H2Harness.frame(HTTP2FrameType.ping, 0, 0, Array(repeating: 0, count: 8)))?.code == .protocolError)
        #expect(h.frames().last?.type == HTTP2FrameType.goaway)
    }

    @Test func requestBodyReachesTheHandlerAndRefillsTheWindow() async throws {
        var limits = HTTP2Limits()
        limits.initialStreamWindow = 1000
        let h = H2Harness(limits: limits)
        h.feed(H2Harness.settings())
        h.feed(h.request(1))
        h.feed(H2Harness.frame(HTTP2FrameType.data, 0, 1, Array(repeating: 1, count: 600)))
        #expect(h.opened.count == 1)
        let s = h.opened[0]
        #expect(s.path == "/x" && s.method == "POST")
        #expect(try await s.read()?.count == 600)
        _ = h.frames()
        h.apply()
        let updates = h.frames().filter { $0.type == HTTP2FrameType.windowUpdate && $0.streamId == 1 }
        #expect(updates.map(\.u32) == [600], "consumed bytes are given back once a quarter of the window is read")
        h.feed(H2Harness.frame(HTTP2FrameType.data, HTTP2Flag.endStream, 1, [9]))
        #expect(try await s.read() == [9])
        #expect(try await s.read() == nil)
    }

    @Test func peerExceedingTheStreamWindowGetsAStreamError() {
        var limits = HTTP2Limits()
        limits.initialStreamWindow = 100
        let h = H2Harness(limits: limits)
        h.feed(H2Harness.settings())
        h.feed(h.request(1))
        _ = h.frames()
        #expect(h.feed(H2Harness.frame(HTTP2FrameType.data, 0, 1, Array(repeating: 0, count: 101))) == nil)
        let rst = h.frames().first { $0.type == HTTP2FrameType.rstStream }
        #expect(rst?.streamId == 1 && rst?.u32 == HTTP2ErrorCode.flowControlError.rawValue)
    }

    @Test func responseDataWaitsForThePeersWindow() async throws {
        let h = H2Harness()
        h.feed(H2Harness.settings([(HTTP2Setting.initialWindowSize, 10)]))
        h.feed(h.request(1, endStream: true))
        let s = h.opened[0]
        try s.write(headers: [HPACKHeaderField(name: ":status", value: "200")])
        try await s.write(data: Array(repeating: 5, count: 25), endStream: true)
        _ = h.frames()
        h.apply()
        var data = h.frames().filter { $0.type == HTTP2FrameType.data }
        #expect(data.map(\.payload.count) == [10])
        h.feed(H2Harness.frame(HTTP2FrameType.windowUpdate, 0, 1, [0, 0, 0, 10]))
        h.conn.pump(into: &h.out)
        data = h.frames().filter { $0.type == HTTP2FrameType.data }
        #expect(data.map(\.payload.count) == [10] && !data[0].has(HTTP2Flag.endStream))
        // Raising SETTINGS_INITIAL_WINDOW_SIZE applies the difference to open streams.
        h.feed(H2Harness.settings([(HTTP2Setting.initialWindowSize, 20)]))
        h.conn.pump(into: &h.out)
        data = h.frames().filter { $0.type == HTTP2FrameType.data }
        #expect(data.map(\.payload.count) == [5] && data[0].has(HTTP2Flag.endStream))
        #expect(h.conn.openStreamCount == 0, "both sides ended: the stream is forgotten")
    }

    @Test func theConnectionWindowIsHonouredToo() async throws {
        let h = H2Harness()
        h.feed(H2Harness.settings([(HTTP2Setting.initialWindowSize, 1 << 20)]))
        h.feed(h.request(1, endStream: true))
        let s = h.opened[0]
        try s.write(headers: [HPACKHeaderField(name: ":status", value: "200")])
        try await s.write(data: Array(repeating: 1, count: 100_000), endStream: true)
        _ = h.frames()
        h.apply()
        let sent = h.frames().filter { $0.type == HTTP2FrameType.data }.reduce(0) { $0 + $1.payload.count }
        #expect(sent == 65_535, "the connection window starts at 65,535 whatever SETTINGS say")
        h.feed(H2Harness.frame(HTTP2FrameType.windowUpdate, 0, 0, [0, 1, 0, 0]))
        h.conn.pump(into: &h.out)
        let rest = h.frames().filter { $0.type == HTTP2FrameType.data }.reduce(0) { $0 + $1.payload.count }
        #expect(rest == 100_000 - 65_535)
    }

    @Test func trailersComeAfterDataAndAnUnfinishedRequestIsReset() async throws {
        let h = H2Harness()
        h.feed(H2Harness.settings())
        h.feed(h.request(1))  // the client has not ended its side (a bidi call)
        let s = h.opened[0]
        try s.write(headers: [HPACKHeaderField(name: ":status", value: "200")])
        try await s.write(data: [1, 2, 3])
        try s.write(trailers: [HPACKHeaderField(name: "grpc-status", value: "0")])
        _ = h.frames()
        h.apply()
        let fs = h.frames()
        #expect(fs.map(\.type) == [HTTP2FrameType.headers, HTTP2FrameType.data, HTTP2FrameType.headers, HTTP2FrameType.rstStream])
        #expect(fs[2].has(HTTP2Flag.endStream) && h.headers(fs[0])[":status"] == "200" && h.headers(fs[2])["grpc-status"] == "0")
        #expect(fs[3].u32 == HTTP2ErrorCode.noError.rawValue)
        #expect(throws: HTTP2StreamClosed.self) { try s.write(headers: []) }
    }

    /// A whole answer (`respond`) is one posted command and frames exactly as the three writes do:
    /// HEADERS, DATA, trailers with END_STREAM; the stream is ended for the handler after it.
    @Test func aWholeAnswerIsOnePostFramedAsHeadersDataTrailers() async throws {
        let h = H2Harness()
        h.feed(H2Harness.settings())
        h.feed(h.request(1, endStream: true))
        let s = h.opened[0]
        try await s.respond(
            headers: [HPACKHeaderField(name: ":status", value: "200")], data: [1, 2, 3],
            trailers: [HPACKHeaderField(name: "grpc-status", value: "0")])
        #expect(h.posted.withLock { $0.count } == 1)
        _ = h.frames()
        h.apply()
        let fs = h.frames()
        #expect(fs.map(\.type) == [HTTP2FrameType.headers, HTTP2FrameType.data, HTTP2FrameType.headers])
        #expect(h.headers(fs[0])[":status"] == "200" && fs[1].payload == [1, 2, 3] && !fs[1].has(HTTP2Flag.endStream))
        #expect(fs[2].has(HTTP2Flag.endStream) && h.headers(fs[2])["grpc-status"] == "0")
        #expect(throws: HTTP2StreamClosed.self) { try s.write(headers: []) }
    }

    /// Streams take turns of at most `bytesPerTurn`: a small whole answer goes out in its stream's
    /// first turn, right after the large answer's first frame, not behind the large answer.
    @Test func aSmallAnswerGoesOutWholeBetweenALargeAnswersFrames() async throws {
        let h = H2Harness()
        h.feed(H2Harness.settings([(HTTP2Setting.initialWindowSize, 1 << 20)]))
        h.feed(H2Harness.frame(HTTP2FrameType.windowUpdate, 0, 0, [0, 0x10, 0, 0]))
        h.feed(h.request(1, endStream: true))
        h.feed(h.request(3, endStream: true))
        let (large, small) = (h.opened[0], h.opened[1])
        let status = [HPACKHeaderField(name: ":status", value: "200")], ok = [HPACKHeaderField(name: "grpc-status", value: "0")]
        try await large.respond(headers: status, data: Array(repeating: 1, count: 100_000), trailers: ok)
        try await small.respond(headers: status, data: [1, 2, 3], trailers: ok)
        _ = h.frames()
        h.apply()
        let fs = h.frames().map { ($0.streamId, $0.type, $0.payload.count) }
        // Stream 1's headers and first full frame (16 KiB), then stream 3 whole, then the rest of 1.
        #expect(fs.count == 12)  // 1: headers, 7 DATA, trailers; 3: headers, DATA, trailers
        guard fs.count == 12 else { return }
        #expect(fs[0].0 == 1 && fs[0].1 == HTTP2FrameType.headers && fs[1].0 == 1 && fs[1].2 == 16_384)
        #expect(fs[2...4].map(\.0) == [3, 3, 3] && fs[2...4].map(\.1) == [HTTP2FrameType.headers, HTTP2FrameType.data, HTTP2FrameType.headers])
        #expect(fs[5...].allSatisfy { $0.0 == 1 })
        #expect(fs[5...].filter { $0.1 == HTTP2FrameType.data }.reduce(0) { $0 + $1.2 } == 100_000 - 16_384)
    }

    /// A read refills the stream's window (a posted `consumed`) only while the peer may still send;
    /// after its END_STREAM (a whole unary request) the read posts nothing, and the stream's
    /// buffered bytes are given back when it closes.
    @Test func aReadPostsConsumedOnlyWhileThePeerMayStillSend() async throws {
        let h = H2Harness()
        h.feed(H2Harness.settings())
        h.feed(h.request(1))
        h.feed(H2Harness.frame(HTTP2FrameType.data, 0, 1, [1, 2, 3]))
        h.feed(h.request(3))
        h.feed(H2Harness.frame(HTTP2FrameType.data, HTTP2Flag.endStream, 3, [4, 5]))
        let (open, ended) = (h.opened[0], h.opened[1])
        #expect(try await open.read() == [1, 2, 3])
        #expect(try await ended.read() == [4, 5])
        let posted = h.posted.withLock { $0 }
        #expect(posted.count == 1)
        if case (1, .consumed(3))? = posted.first {} else { Issue.record("expected consumed(3) on stream 1, got \(posted)") }
        try await ended.respond(headers: [HPACKHeaderField(name: ":status", value: "200")], data: [], trailers: [])
        h.apply()
        // Stream 1's three bytes were given back by its `consumed`, stream 3's two with the stream.
        #expect(h.conn.totalBuffered == 0)
    }

    @Test func largeHeaderBlocksAreSplitIntoContinuations() async throws {
        let h = H2Harness()
        h.feed(H2Harness.settings())
        h.feed(h.request(1, endStream: true))
        let s = h.opened[0]
        let big = String(repeating: "v", count: 40_000)
        try s.write(headers: [HPACKHeaderField(name: ":status", value: "200"), HPACKHeaderField(name: "x-big", value: big)], endStream: true)
        _ = h.frames()
        h.apply()
        let fs = h.frames()
        #expect(fs.map(\.type) == [HTTP2FrameType.headers, HTTP2FrameType.continuation, HTTP2FrameType.continuation])
        #expect(fs[0].has(HTTP2Flag.endStream) && !fs[0].has(HTTP2Flag.endHeaders) && fs[2].has(HTTP2Flag.endHeaders))
        #expect(fs.allSatisfy { $0.payload.count <= 16_384 })
    }

    @Test func continuationFramesAreReassembled() throws {
        let h = H2Harness()
        h.feed(H2Harness.settings())
        var enc = HPACKEncoder()
        let block = enc.encode(
            [(":method", "GET"), (":scheme", "http"), (":path", "/p"), ("x-a", String(repeating: "a", count: 30))]
                .map { HPACKHeaderField(name: $0.0, value: $0.1) })
        let cut = block.count / 2
        h.feed(H2Harness.frame(HTTP2FrameType.headers, HTTP2Flag.endStream, 1, Array(block[..<cut])))
        #expect(h.opened.isEmpty)
        h.feed(H2Harness.frame(HTTP2FrameType.continuation, HTTP2Flag.endHeaders, 1, Array(block[cut...])))
        #expect(h.opened.first?.header("x-a")?.count == 30)
    }

    @Test func peerResetFailsTheStream() async {
        let h = H2Harness()
        h.feed(H2Harness.settings())
        h.feed(h.request(1))
        let s = h.opened[0]
        h.feed(H2Harness.frame(HTTP2FrameType.rstStream, 0, 1, [0, 0, 0, 8]))
        do {
            _ = try await s.read()
            Issue.record("read after RST_STREAM must throw")
        } catch let e as HTTP2StreamClosed {
            #expect(e.code == .cancel)
        } catch {
            Issue.record("unexpected \(error)")
        }
        #expect(h.conn.openStreamCount == 0)
    }

    @Test func tooManyStreamsAreRefused() {
        var limits = HTTP2Limits()
        limits.maxConcurrentStreams = 2
        let h = H2Harness(limits: limits)
        h.feed(H2Harness.settings())
        for id: UInt32 in [1, 3, 5] { h.feed(h.request(id)) }
        #expect(h.opened.count == 2)
        let rst = h.frames().first { $0.type == HTTP2FrameType.rstStream }
        #expect(rst?.streamId == 5 && rst?.u32 == HTTP2ErrorCode.refusedStream.rawValue)
    }

    @Test func gracefulGoAwayNamesTheLastStreamAndRefusesNewOnes() {
        let h = H2Harness()
        h.feed(H2Harness.settings())
        h.feed(h.request(1))
        _ = h.frames()
        h.conn.goAway(into: &h.out)
        let ga = h.frames().first { $0.type == HTTP2FrameType.goaway }
        #expect(ga?.goawayLastStream == 1 && ga?.goawayCode == 0)
        #expect(h.opened[0].isGoingAway)
        h.feed(h.request(3))
        #expect(h.opened.count == 1)
    }

    @Test func malformedRequestsAreStreamErrors() {
        let h = H2Harness()
        h.feed(H2Harness.settings())
        var enc = HPACKEncoder()
        let missingPath = enc.encode([HPACKHeaderField(name: ":method", value: "GET"), HPACKHeaderField(name: ":scheme", value: "http")])
        h.feed(H2Harness.frame(HTTP2FrameType.headers, HTTP2Flag.endHeaders | HTTP2Flag.endStream, 1, missingPath))
        let upper = enc.encode(
            [(":method", "GET"), (":scheme", "http"), (":path", "/"), ("X-Upper", "1")].map { HPACKHeaderField(name: $0.0, value: $0.1) })
        h.feed(H2Harness.frame(HTTP2FrameType.headers, HTTP2Flag.endHeaders | HTTP2Flag.endStream, 3, upper))
        #expect(h.opened.isEmpty)
        let rsts = h.frames().filter { $0.type == HTTP2FrameType.rstStream }
        #expect(rsts.map(\.streamId) == [1, 3] && rsts.allSatisfy { $0.u32 == HTTP2ErrorCode.protocolError.rawValue })
        #expect(h.feed(h.request(5)) == nil, "the connection carries on")
    }

    @Test(arguments: [
        ("DATA on stream 0", H2Harness.frame(HTTP2FrameType.data, 0, 0, [1]), HTTP2ErrorCode.protocolError),
        ("DATA on an idle stream", H2Harness.frame(HTTP2FrameType.data, 0, 7, [1]), .protocolError),
        ("HEADERS on an even stream", H2Harness.frame(HTTP2FrameType.headers, 4, 2, [0x82]), .protocolError),
        ("window overflow", H2Harness.frame(HTTP2FrameType.windowUpdate, 0, 0, [0x7f, 0xff, 0xff, 0xff]), .flowControlError),
        ("zero increment", H2Harness.frame(HTTP2FrameType.windowUpdate, 0, 0, [0, 0, 0, 0]), .protocolError),
        ("short PING", H2Harness.frame(HTTP2FrameType.ping, 0, 0, [1, 2]), .frameSizeError),
        ("SETTINGS ACK with payload", H2Harness.frame(HTTP2FrameType.settings, 1, 0, [0, 0, 0, 0, 0, 0]), .frameSizeError),
        ("bad ENABLE_PUSH", H2Harness.settings([(HTTP2Setting.enablePush, 2)]), .protocolError),
        ("huge INITIAL_WINDOW_SIZE", H2Harness.settings([(HTTP2Setting.initialWindowSize, 0x8000_0000)]), .flowControlError),
        ("tiny MAX_FRAME_SIZE", H2Harness.settings([(HTTP2Setting.maxFrameSize, 100)]), .protocolError),
        ("RST_STREAM on an idle stream", H2Harness.frame(HTTP2FrameType.rstStream, 0, 9, [0, 0, 0, 8]), .protocolError),
        ("bad HPACK", H2Harness.frame(HTTP2FrameType.headers, 4, 1, [0x80]), .compressionError),
        ("PUSH_PROMISE", H2Harness.frame(HTTP2FrameType.pushPromise, 4, 1, [0, 0, 0, 2]), .protocolError),
        ("padding longer than the frame", H2Harness.frame(HTTP2FrameType.headers, 0x4 | 0x8, 1, [200, 0x82]), .protocolError),
    ])
    func connectionErrorsEndWithGoAway(_ name: String, _ bytes: [UInt8], _ code: HTTP2ErrorCode) {
        let h = H2Harness()
        h.feed(H2Harness.settings())
        _ = h.frames()
        let error = h.feed(bytes)
        #expect(error?.code == code, "\(name)")
        let ga = h.frames().last
        #expect(ga?.type == HTTP2FrameType.goaway && ga?.goawayCode == code.rawValue, "\(name)")
        #expect(ga.map { !$0.payload.dropFirst(8).isEmpty } == true, "\(name): the debug data names the problem")
    }

    @Test func unknownFramesAndPrioritiesAreIgnored() {
        let h = H2Harness()
        h.feed(H2Harness.settings())
        #expect(h.feed(H2Harness.frame(0xEE, 0xFF, 0, [1, 2, 3]) + H2Harness.frame(HTTP2FrameType.priority, 0, 1, [0, 0, 0, 0, 16])) == nil)
        #expect(h.feed(h.request(1)) == nil && h.opened.count == 1)
    }
}
