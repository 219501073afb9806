import EmulatorCore

@testable import EmulatorHTTP

/// Drives an `HTTP2Connection` without sockets: bytes in, frames out, stream commands applied on
/// demand (as the event loop would apply them from its inbox).
final class H2Harness: @unchecked Sendable {
    let conn: HTTP2Connection
    var out: [UInt8] = []
    var streams: [HTTP2Stream] = []
    let posted = Mutex<[(UInt32, HTTP2StreamCommand)]>([])
    var encoder = HPACKEncoder()

    /// The connection's clock (monotonic nanoseconds); tests move it by hand.
    final class Clock: @unchecked Sendable {
        var now: UInt64 = 1_000_000_000
    }

    let clock = Clock()

    init(limits: HTTP2Limits = HTTP2Limits(), quota: HTTP2StreamQuota? = nil) {
        var conn: HTTP2Connection!
        let posted = self.posted
        var opened: [HTTP2Stream] = []
        let clock = self.clock
        conn = HTTP2Connection(
            limits: limits, remote: "test", quota: quota, clock: { clock.now },
            post: { id, c in posted.withLock { $0.append((id, c)) } },
            onStream: { s, _ in opened.append(s) })
        self.conn = conn
        conn.start(into: &out)
        streamsSource = { opened }
    }

    private var streamsSource: () -> [HTTP2Stream] = { [] }

    /// The streams opened so far, in order.
    var opened: [HTTP2Stream] { streamsSource() }

    /// Feeds bytes; returns the connection error, if any.
    @discardableResult
    func feed(_ bytes: [UInt8]) -> HTTP2ConnectionError? {
        bytes.withUnsafeBytes { conn.receive($0, into: &out) }
    }

    /// Applies every command the streams posted, then frames queued output.
    func apply() {
        let cmds = posted.withLock { p -> [(UInt32, HTTP2StreamCommand)] in
            defer { p = [] }
            return p
        }
        for (id, c) in cmds { conn.handle(stream: id, c, into: &out) }
        conn.pump(into: &out)
    }

    /// Parses and clears what the server wrote.
    func frames() -> [HTTP2Frame] {
        var p = HTTP2FrameParser(maxFrameSize: 1 << 24)
        p.feed(out)
        out = []
        var fs: [HTTP2Frame] = []
        while let f = try? p.next() { fs.append(f) }
        return fs
    }

    /// The client's SETTINGS frame.
    static func settings(_ values: [(UInt16, UInt32)] = [], ack: Bool = false) -> [UInt8] {
        var o: [UInt8] = []
        HTTP2FrameWriter.settings(&o, values, ack: ack)
        return o
    }

    /// A raw frame.
    static func frame(_ type: UInt8, _ flags: UInt8, _ stream: UInt32, _ payload: [UInt8] = []) -> [UInt8] {
        var o: [UInt8] = []
        HTTP2FrameWriter.append(&o, type: type, flags: flags, stream: stream, payload: payload)
        return o
    }

    /// A HEADERS frame for a request on `stream`.
    func request(_ stream: UInt32, path: String = "/x", extra: [(String, String)] = [], endStream: Bool = false) -> [UInt8] {
        var fields = [(":method", "POST"), (":scheme", "http"), (":path", path), (":authority", "t")] + extra
        if extra.isEmpty { fields.append(("content-type", "application/grpc")) }
        let block = encoder.encode(fields.map { HPACKHeaderField(name: $0.0, value: $0.1) })
        return Self.frame(HTTP2FrameType.headers, HTTP2Flag.endHeaders | (endStream ? HTTP2Flag.endStream : 0), stream, block)
    }

    /// Decodes the header block of a HEADERS frame with a fresh decoder per harness.
    var decoder = HPACKDecoder()
    func headers(_ f: HTTP2Frame) -> [String: String] {
        let fields = (try? decoder.decode(f.payload).fields) ?? []
        return Dictionary(fields.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
    }
}

extension HTTP2Frame {
    /// GOAWAY's error code.
    var goawayCode: UInt32 { UInt32(payload[4]) << 24 | UInt32(payload[5]) << 16 | UInt32(payload[6]) << 8 | UInt32(payload[7]) }
    /// GOAWAY's last stream id.
    var goawayLastStream: UInt32 {
        (UInt32(payload[0]) << 24 | UInt32(payload[1]) << 16 | UInt32(payload[2]) << 8 | UInt32(payload[3])) & 0x7fff_ffff
    }
    /// A 32-bit payload (RST_STREAM code, WINDOW_UPDATE increment).
    var u32: UInt32 { UInt32(payload[0]) << 24 | UInt32(payload[1]) << 16 | UInt32(payload[2]) << 8 | UInt32(payload[3]) }
}
