/// Unary gRPC calls answered on the event loop's own thread: the HTTP/2 counterpart of
/// `HTTPInlineResponder`. For a call to one of `methods`, the loop holds the call's handler back
/// until the request has ended, then asks `answer` with the request's one message; with no answer
/// (nil, or anything unusual about the call) the `GRPCHandler` starts as usual and reads the same
/// request. This saves a task, its hop to the pool and the hop back per call; `answer` must not
/// block (no waiting on a lock another thread may hold long, no I/O, no sleep).
///
/// Immutable; shared by every loop.
public struct GRPCInline: Sendable {
    /// What `answer` gives.
    public enum Answer: Sendable {
        /// The response message: sent with OK trailers.
        case message([UInt8])
        /// The call fails with this status (a trailers-only answer).
        case status(GRPCStatus)
    }

    /// Method paths (`/package.Service/Method`) whose calls are held for an inline answer. A list,
    /// searched by length and bytes: a set hashed the whole path (about 600 instructions) for
    /// every call, and it holds one or two paths.
    public let methods: [String]
    /// Answers a call: its method path, a lookup of its metadata by lowercase name, and its request
    /// message; nil leaves the call to the handler.
    public let answer: @Sendable (_ method: String, _ metadata: (String) -> String?, _ message: [UInt8]) -> Answer?

    /// Creates the inline answers for `methods`.
    public init(
        methods: Set<String>, answer: @escaping @Sendable (_ method: String, _ metadata: (String) -> String?, _ message: [UInt8]) -> Answer?
    ) {
        self.methods = Array(methods)
        self.answer = answer
    }

    /// A new stream's handler is due (its stream admitted): holds it until the request ends when
    /// it may be answered inline, answers it now when the request has already ended (its commands
    /// go to `deliver`, on the loop thread), or else runs `start` (the handler).
    func streamOpened(_ stream: HTTP2Stream, requestEnded: Bool, deliver: (HTTP2StreamCommand) -> Void, start: () -> Void) {
        if mayAnswer(stream) {
            if !requestEnded {
                stream.hold()
                return
            }
            if answer(stream, deliver: deliver) { return }
        }
        start()
    }

    /// A stream's request has ended: a held call is answered now, or its handler started.
    func requestEnded(_ stream: HTTP2Stream, deliver: (HTTP2StreamCommand) -> Void, start: () -> Void) {
        guard stream.releaseHeld() else { return }
        if !answer(stream, deliver: deliver) { start() }
    }

    /// The shortest `grpc-timeout` answered inline: a shorter deadline is left to the handler,
    /// which enforces deadlines.
    static let shortestDeadline: UInt64 = 100_000_000

    /// Whether `stream`'s handler may be held for an inline answer: a POST to one of `methods` with
    /// gRPC's content type, no `:authority` problem, and no deadline that is malformed or shorter
    /// than `shortestDeadline` (the handler answers each of those as it always does).
    ///
    /// The four headers are found in one pass over the list (every call passes here), each the
    /// first of its name, as `HTTP2Stream.header` finds them; the authority check's fields are
    /// noted in the same pass.
    func mayAnswer(_ stream: HTTP2Stream) -> Bool {
        var path: String?, method: String?, contentType: String?, timeout: String?
        var authority: String?, host: String?, hosts = 0
        for f in stream.requestHeaders {
            let name = f.name
            if name.isHeaderName(":path") {
                if path == nil { path = f.value }
            } else if name.isHeaderName(":method") {
                if method == nil { method = f.value }
            } else if name.isHeaderName("content-type") {
                if contentType == nil { contentType = f.value }
            } else if name.isHeaderName("grpc-timeout") {
                if timeout == nil { timeout = f.value }
            } else if name.isHeaderName(":authority") {
                authority = f.value  // the last, as `HTTP2RequestAdapter.authorityProblem` reads it
            } else if name.isHeaderName("host") {
                hosts += 1
                if host == nil { host = f.value }
            }
        }
        guard let path, methods.contains(where: { $0.isHeaderName(path) }), method == "POST" else { return false }
        guard GRPCServerCall.isServed(contentType: contentType ?? "") else { return false }
        guard HTTP2RequestAdapter.authorityProblem(authority: authority, host: host, hosts: hosts) == nil else { return false }
        guard let timeout else { return true }
        guard let deadline = try? GRPCStatus.parseTimeout(timeout) else { return false }
        return deadline >= Self.shortestDeadline
    }

    /// The largest request message answered inline: decoding it is the loop's work while its
    /// other connections wait, so a larger one (a GetDocument request is a name and perhaps a
    /// mask: far smaller) goes to the handler.
    static let largestMessage = 8 * 1024

    /// Answers `stream` when its request is exactly one uncompressed message of at most
    /// `largestMessage` bytes, `answer` answers, and the connection's send budget has room; false
    /// (nothing sent) leaves the call to its handler. The answer's commands go to `deliver`.
    func answer(_ stream: HTTP2Stream, deliver: (HTTP2StreamCommand) -> Void) -> Bool {
        guard let body = stream.completeRequestBody(atMost: 5 + Self.largestMessage), body.count >= 5, body[0] == 0 else { return false }
        let length = Int(body[1]) << 24 | Int(body[2]) << 16 | Int(body[3]) << 8 | Int(body[4])
        guard length == body.count - 5 else { return false }
        guard let reply = answer(stream.path, { stream.header($0) }, Array(body[5...])) else { return false }
        switch reply {
        case .message(let message):
            var framed = [UInt8]()
            framed.reserveCapacity(5 + message.count)
            GRPCServerCall.frame(message, into: &framed)
            return stream.respondNow(headers: GRPCServerCall.responseHeaders, data: framed, trailers: GRPCServerCall.okTrailers, deliver: deliver)
        case .status(let status):
            return stream.respondNow(headers: GRPCServerCall.responseHeaders + status.trailerFields, data: nil, trailers: [], deliver: deliver)
        }
    }
}

extension GRPCStatus {
    /// `grpc-status`, and `grpc-message` when there is one, as a call's final metadata.
    var trailerFields: [HPACKHeaderField] {
        var fields = [HPACKHeaderField(name: "grpc-status", value: String(code), neverIndexed: false)]
        if !message.isEmpty { fields.append(HPACKHeaderField(name: "grpc-message", value: GRPCStatus.percentEncode(message), neverIndexed: false)) }
        return fields
    }
}
