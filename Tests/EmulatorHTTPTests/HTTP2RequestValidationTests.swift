import Testing

@testable import EmulatorHTTP

/// `HTTP2Connection.validateRequest` (RFC 9113 §8.2–8.3) and `GRPCInline.mayAnswer`'s one-pass
/// header reading: a row per rule, the verdict as the stream's reset reason names it.
@Suite struct HTTP2RequestValidationTests {
    static let base: [(String, String)] = [(":method", "POST"), (":scheme", "http"), (":path", "/a"), (":authority", "h")]

    static func fields(_ pairs: [(String, String)]) -> [HPACKHeaderField] { pairs.map { HPACKHeaderField(name: $0.0, value: $0.1) } }

    /// Each malformed list, and the reason given.
    @Test(
        arguments: [
            (base + [("content-type", "application/grpc"), ("te", "trailers"), ("user-agent", "x")], nil),
            (base + [("te", "gzip")], "te other than trailers"),
            (base + [("connection", "close")], "connection-specific header connection"),
            (base + [("keep-alive", "5")], "connection-specific header keep-alive"),
            (base + [("proxy-connection", "x")], "connection-specific header proxy-connection"),
            (base + [("transfer-encoding", "chunked")], "connection-specific header transfer-encoding"),
            (base + [("upgrade", "h2c")], "connection-specific header upgrade"),
            (base + [("Content-Type", "x")], "upper-case header name Content-Type"),
            (base + [("x-custom", "1"), (":path", "/b")], "pseudo-header :path after a regular header"),
            (base + [(":path", "/b")], "duplicate :path"),
            (base + [(":status", "200")], "unknown pseudo-header :status"),
            ([(":method", "GET"), (":scheme", "http")], "missing :method, :scheme or :path"),
            ([(":method", "GET"), (":scheme", "http"), (":path", "")], "empty :path"),
            // Names that only look alike: a longer or shorter name is no pseudo-header of ours.
            ([(":methods", "GET"), (":scheme", "http"), (":path", "/")], "unknown pseudo-header :methods"),
            (base + [("tee", "x"), ("connections", "x"), ("upgrades", "x")], nil),
        ] as [([(String, String)], String?)])
    func verdicts(pairs: [(String, String)], reason: String?) {
        #expect(HTTP2Connection.validateRequest(Self.fields(pairs)) == reason)
    }
}
