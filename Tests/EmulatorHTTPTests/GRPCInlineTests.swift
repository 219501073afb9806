import EmulatorCore
import Testing

@testable import EmulatorHTTP

/// Unary gRPC calls answered on the event loop (`GRPCInline`), driven through an `HTTP2Connection`
/// without sockets, wired as the loop wires it: a call to an inline method is held until its
/// request ends, then answered with the same frames a handler's `reply`/`finish` would send; any
/// call it does not answer reaches its handler with every request byte.
@Suite struct GRPCInlineTests {
    /// A connection whose inline answers echo the message reversed, fail for `[0xEE]` with NOT_FOUND,
    /// and decline `[0xDD]`; `started` lists the streams whose handler ran.
    final class Rig: @unchecked Sendable {
        let posted = Mutex<[(UInt32, HTTP2StreamCommand)]>([])
        var started: [HTTP2Stream] = []
        var out: [UInt8] = []
        var encoder = HPACKEncoder()
        var decoder = HPACKDecoder()
        var conn: HTTP2Connection!

        static let inline = GRPCInline(methods: ["/s.S/Get"]) { method, metadata, message in
            if message == [0xDD] { return nil }
            if message == [0xEE] { return .status(GRPCStatus(code: 5, message: "no such thing: \(metadata("x-id") ?? "?")")) }
            return .message(message.reversed())
        }

        init() {
            let posted = self.posted
            conn = HTTP2Connection(
                limits: HTTP2Limits(), remote: "test", quota: nil, clock: { 1_000_000_000 },
                post: { id, c in posted.withLock { $0.append((id, c)) } },
                onStream: { [unowned self] s, ended in
                    Self.inline.streamOpened(s, requestEnded: ended, deliver: { self.conn.queueFromLoop(s.id, $0) }) { self.started.append(s) }
                })
            conn.onRequestEnd = { [unowned self] s in
                Self.inline.requestEnded(s, deliver: { self.conn.queueFromLoop(s.id, $0) }) { self.started.append(s) }
            }
            conn.start(into: &out)
            feed(H2Harness.settings())
        }

        func feed(_ bytes: [UInt8]) { _ = bytes.withUnsafeBytes { conn.receive($0, into: &out) } }

        /// HEADERS for a call on `stream`.
        func call(_ stream: UInt32, path: String = "/s.S/Get", extra: [(String, String)] = [], endStream: Bool = false) {
            let fields =
                [(":method", "POST"), (":scheme", "http"), (":path", path), (":authority", "t"), ("content-type", "application/grpc")] + extra
            let block = encoder.encode(fields.map { HPACKHeaderField(name: $0.0, value: $0.1) })
            feed(H2Harness.frame(HTTP2FrameType.headers, HTTP2Flag.endHeaders | (endStream ? HTTP2Flag.endStream : 0), stream, block))
        }

        /// DATA with one length-prefixed message (or raw bytes), ending the request by default.
        func data(_ stream: UInt32, _ message: [UInt8], framed: Bool = true, end: Bool = true) {
            var payload = message
            if framed {
                payload = []
                GRPCServerCall.frame(message, into: &payload)
            }
            feed(H2Harness.frame(HTTP2FrameType.data, end ? HTTP2Flag.endStream : 0, stream, payload))
        }

        /// Applies what was posted and returns the frames written for `stream` (after the preface's).
        func frames(of stream: UInt32) -> [HTTP2Frame] {
            let cmds = posted.withLock { p -> [(UInt32, HTTP2StreamCommand)] in
                defer { p = [] }
                return p
            }
            for (id, c) in cmds { conn.handle(stream: id, c, into: &out) }
            conn.pump(into: &out)
            var p = HTTP2FrameParser(maxFrameSize: 1 << 24)
            p.feed(out)
            out = []
            var fs: [HTTP2Frame] = []
            while let f = try? p.next() { fs.append(f) }
            return fs.filter { $0.streamId == stream }
        }

        func fields(_ f: HTTP2Frame) -> [String: String] {
            Dictionary(((try? decoder.decode(f.payload).fields) ?? []).map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        }
    }

    @Test func aHeldCallIsAnsweredWhenItsRequestEnds() {
        let rig = Rig()
        rig.call(1)
        #expect(rig.frames(of: 1).isEmpty)  // held: no handler, no answer yet
        rig.data(1, [1, 2, 3])
        let fs = rig.frames(of: 1)
        #expect(rig.started.isEmpty)
        #expect(fs.map(\.type) == [HTTP2FrameType.headers, HTTP2FrameType.data, HTTP2FrameType.headers])
        guard fs.count == 3 else { return }
        #expect(rig.fields(fs[0]) == [":status": "200", "content-type": "application/grpc"])
        #expect(fs[1].payload == [0, 0, 0, 0, 3, 3, 2, 1])
        #expect(rig.fields(fs[2]) == ["grpc-status": "0"])
        #expect(fs[2].has(HTTP2Flag.endStream))
    }

    @Test func aFailureIsATrailersOnlyAnswer() {
        let rig = Rig()
        rig.call(1, extra: [("x-id", "42")])
        rig.data(1, [0xEE])
        let fs = rig.frames(of: 1)
        #expect(fs.count == 1)
        guard let f = fs.first else { return }
        #expect(f.has(HTTP2Flag.endStream))
        #expect(
            rig.fields(f) == [":status": "200", "content-type": "application/grpc", "grpc-status": "5", "grpc-message": "no such thing: 42"])
    }

    @Test func whatItDoesNotAnswerReachesTheHandlerWithEveryByte() async throws {
        let rig = Rig()
        rig.call(1)
        rig.data(1, [0xDD])  // declined by the answer
        rig.call(3)
        rig.data(3, [1, 2], end: false)
        rig.data(3, [3])  // two messages: not a unary request it takes
        rig.call(5)
        var compressed: [UInt8] = [1, 0, 0, 0, 1, 9]
        rig.data(5, compressed, framed: false)  // the compressed flag
        rig.call(7, path: "/s.S/Other")  // not an inline method: started at once
        rig.call(9, extra: [("grpc-timeout", "1m")])  // a deadline shorter than 100 ms
        rig.call(11, extra: [("grpc-timeout", "bogus")])  // a malformed deadline: the handler reports it
        rig.call(13, endStream: true)  // no message at all
        rig.call(15)
        rig.data(15, Array(repeating: 7, count: GRPCInline.largestMessage + 1))  // larger than it decodes on the loop
        #expect(rig.started.map(\.id) == [1, 3, 5, 7, 9, 11, 13, 15])
        #expect(rig.frames(of: 1).isEmpty)
        // The declined calls' handlers read every byte the peer sent.
        var body: [UInt8] = []
        while let chunk = try await rig.started[1].read() { body += chunk }
        #expect(body == [0, 0, 0, 0, 2, 1, 2, 0, 0, 0, 0, 1, 3])
        compressed = []
        while let chunk = try await rig.started[2].read() { compressed += chunk }
        #expect(compressed == [1, 0, 0, 0, 1, 9])
    }

    /// The headers `mayAnswer` reads in one pass: a deadline of at least 100 ms is answered
    /// inline; a `host` naming another authority than `:authority` goes to the handler.
    @Test func theHeadersItReadsDecideWhoAnswers() {
        let rig = Rig()
        rig.call(1, extra: [("grpc-timeout", "5S")])
        rig.data(1, [1, 2])
        rig.call(3, extra: [("host", "other")])
        rig.data(3, [1])
        #expect(rig.started.map(\.id) == [3])
        #expect(!rig.frames(of: 1).isEmpty)
        #expect(rig.frames(of: 3).isEmpty)
        // The authority check reads its fields in the same pass: a `host` equal to `:authority`
        // in another case is answered inline; two `host` fields, even equal ones, are not.
        rig.call(5, extra: [("host", "T")])
        rig.data(5, [1])
        rig.call(7, extra: [("host", "t"), ("host", "t")])
        rig.data(7, [1])
        #expect(rig.started.map(\.id) == [3, 7])
        #expect(!rig.frames(of: 5).isEmpty)
        #expect(rig.frames(of: 7).isEmpty)
    }

    @Test func aResetHeldCallNeitherAnswersNorStarts() {
        let rig = Rig()
        rig.call(1)
        rig.feed(H2Harness.frame(HTTP2FrameType.rstStream, 0, 1, [0, 0, 0, 8]))
        #expect(rig.started.isEmpty)
        #expect(rig.frames(of: 1).isEmpty)
        // The connection goes on: the next call is answered.
        rig.call(3)
        rig.data(3, [7])
        #expect(rig.frames(of: 3).count == 3)
    }
}
