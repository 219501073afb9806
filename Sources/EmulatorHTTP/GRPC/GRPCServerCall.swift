import EmulatorCore

/// Serves one gRPC call: the method, request metadata, and message streams both ways.
public typealias GRPCHandler = @Sendable (GRPCServerCall) async -> Void

/// One gRPC call on an HTTP/2 stream (gRPC over HTTP/2): 5-byte length-prefixed messages in and
/// out, response headers before the first message, and the status in trailers (or a trailers-only
/// response when the call fails before any message).
///
/// The handler reads with `receive()` and writes with `send(_:)` from its own task; `finish` may
/// come from that task or from the deadline timer, so the send state is behind a `Mutex`.
public final class GRPCServerCall: Sendable {
    /// What has been sent (headers, the final status).
    struct SendState {
        var headersSent = false
        var finished = false
    }

    /// Received bytes not yet cut into messages, and their share of the server's body budget.
    struct ReceiveState {
        var buffer: [UInt8] = []
        var start = 0
        var charge: RequestBodyCharge?

        /// What the buffer will hold before the handler sees the message in progress: its bytes so
        /// far, or the whole message once its length prefix is in, so a message that cannot fit the
        /// budget is refused before its bytes arrive. A length past the largest accepted is not
        /// charged: that message is refused as too large (`RESOURCE_EXHAUSTED`) instead.
        var announced: Int {
            let available = buffer.count - start
            guard available >= 5 else { return available }
            let length =
                Int(buffer[start + 1]) << 24 | Int(buffer[start + 2]) << 16 | Int(buffer[start + 3]) << 8 | Int(buffer[start + 4])
            guard length <= GRPCServerCall.maxReceiveMessageBytes else { return available }
            return max(available, 5 + length)
        }
    }

    /// The largest request message accepted (RESOURCE_EXHAUSTED beyond).
    public static let maxReceiveMessageBytes = 16 << 20

    /// The HTTP/2 stream carrying the call.
    public let stream: HTTP2Stream
    private let sendState = Mutex(SendState())
    private let receiveState = Mutex(ReceiveState())

    /// Wraps a gRPC stream; bytes of messages not yet complete are charged to `budget` (none: not counted).
    init(stream: HTTP2Stream, budget: RequestBodyBudget? = nil) {
        self.stream = stream
        receiveState.withLock { $0.charge = budget.map { RequestBodyCharge(budget: $0) } }
    }

    deinit {
        // A handler that kept receiving after `serve` ended charged again; its call is gone now.
        receiveState.withLock { $0.charge?.release() }
    }

    /// The method path, `/package.Service/Method`.
    public var method: String { stream.path }

    /// The first value of a metadata entry (lowercase name), e.g. `authorization`.
    public func metadata(_ name: String) -> String? { stream.header(name) }

    /// True once the call has ended (status sent) or the stream is gone.
    public var isFinished: Bool { sendState.withLock { $0.finished } || stream.isClosed }

    /// The next request message, or nil when the client has finished sending. Throws a
    /// `GRPCStatus` for a compressed or oversized message or a stream that ends inside a message,
    /// `UNAVAILABLE` when the server's body budget has no room for the message in progress, and
    /// the stream's error when it was reset.
    public func receive() async throws -> [UInt8]? {
        while true {
            if let m = try takeMessage() { return m }
            guard let chunk = try await stream.read() else {
                let left = receiveState.withLock { $0.buffer.count - $0.start }
                if left > 0 { throw GRPCStatus(code: 13, message: "The request stream ended inside a message (\(left) bytes left over).") }
                return nil
            }
            try receiveState.withLock { s throws(GRPCStatus) in
                if s.start == s.buffer.count {
                    s.buffer.removeAll(keepingCapacity: true)
                    s.start = 0
                }
                s.buffer.append(contentsOf: chunk)
                // A message is buffered whole before the handler sees it: it counts from its prefix on.
                let wanted = s.announced
                if let budget = s.charge?.budget, s.charge?.cover(wanted) == false {
                    throw GRPCStatus(code: 14, message: budget.refusalMessage)
                }
            }
        }
    }

    /// Gives back the call's share of the body budget (the call has ended).
    func releaseReceived() { receiveState.withLock { $0.charge?.release() } }

    private func takeMessage() throws(GRPCStatus) -> [UInt8]? {
        try receiveState.withLock { s throws(GRPCStatus) -> [UInt8]? in
            let available = s.buffer.count - s.start
            guard available >= 5 else { return nil }
            let flag = s.buffer[s.start]
            let length =
                Int(s.buffer[s.start + 1]) << 24 | Int(s.buffer[s.start + 2]) << 16 | Int(s.buffer[s.start + 3]) << 8
                | Int(s.buffer[s.start + 4])
            if flag & 1 != 0 {
                let encoding = metadata("grpc-encoding") ?? "none"
                throw GRPCStatus(code: 12, message: "Compressed messages are not supported (grpc-encoding: \(encoding)); send messages uncompressed.")
            }
            guard length <= Self.maxReceiveMessageBytes else {
                throw GRPCStatus(code: 8, message: "Request message of \(length) bytes exceeds the limit of \(Self.maxReceiveMessageBytes) bytes.")
            }
            guard available >= 5 + length else { return nil }
            let m = Array(s.buffer[(s.start + 5)..<(s.start + 5 + length)])
            s.start += 5 + length
            if s.start > 1 << 20 && s.start * 2 > s.buffer.count {
                s.buffer.removeSubrange(0..<s.start)
                s.start = 0
            }
            // What is left was charged as part of the larger total before: this only gives back.
            _ = s.charge?.cover(s.buffer.count - s.start)
            return m
        }
    }

    /// Sends several response messages in one write (cheaper than one write each for a stream of
    /// small messages); otherwise as `send(_:)`.
    public func send(messages: [[UInt8]]) async throws {
        try startResponse()
        var framed = [UInt8]()
        framed.reserveCapacity(messages.reduce(0) { $0 + 5 + $1.count })
        for m in messages { Self.frame(m, into: &framed) }
        try await stream.write(data: framed)
    }

    /// Sends one response message (response headers first, once). Suspends while the client is
    /// not taking data; throws when the call has ended or the stream was reset.
    public func send(_ message: [UInt8]) async throws {
        try await send(messages: [message])
    }

    /// Answers a unary call: headers (unless sent), `message` and an OK status, handed to the
    /// stream in one command (`HTTP2Stream.respond`): one wake-up of the event loop and one write
    /// instead of three. Throws once the call has ended.
    public func reply(_ message: [UInt8]) async throws {
        let needHeaders = try sendState.withLock { s throws(GRPCStatus) -> Bool in
            guard !s.finished else { throw GRPCStatus(code: 1, message: "The call has already ended.") }
            defer {
                s.headersSent = true
                s.finished = true
            }
            return !s.headersSent
        }
        var framed = [UInt8]()
        framed.reserveCapacity(5 + message.count)
        Self.frame(message, into: &framed)
        try await stream.respond(headers: needHeaders ? Self.responseHeaders : nil, data: framed, trailers: Self.okTrailers)
    }

    /// `grpc-status: 0`, the trailers of a call that ended well.
    static let okTrailers = [HPACKHeaderField(name: "grpc-status", value: "0", neverIndexed: false)]

    /// Sends the response headers before the first message; throws once the call has ended.
    private func startResponse() throws {
        let needHeaders = try sendState.withLock { s throws(GRPCStatus) -> Bool in
            guard !s.finished else { throw GRPCStatus(code: 1, message: "The call has already ended.") }
            defer { s.headersSent = true }
            return !s.headersSent
        }
        if needHeaders { try stream.write(headers: Self.responseHeaders) }
    }

    /// Appends one length-prefixed, uncompressed message.
    static func frame(_ message: [UInt8], into out: inout [UInt8]) {
        out.append(0)
        let n = UInt32(message.count)
        out.append(UInt8(truncatingIfNeeded: n >> 24))
        out.append(UInt8(truncatingIfNeeded: n >> 16))
        out.append(UInt8(truncatingIfNeeded: n >> 8))
        out.append(UInt8(truncatingIfNeeded: n))
        out.append(contentsOf: message)
    }

    /// Ends the call with `status` (only the first call counts): trailers after messages, or a
    /// trailers-only response when nothing was sent.
    public func finish(_ status: GRPCStatus) {
        let headersSent = sendState.withLock { s -> Bool? in
            guard !s.finished else { return nil }
            s.finished = true
            return s.headersSent
        }
        guard let headersSent else { return }
        var fields: [HPACKHeaderField] = []
        if !headersSent { fields = Self.responseHeaders }
        fields.append(contentsOf: status.trailerFields)
        if headersSent {
            try? stream.write(trailers: fields)
        } else {
            try? stream.write(headers: fields, endStream: true)
        }
    }

    /// `:status 200` and `content-type: application/grpc`, before the first message or in a trailers-only answer.
    static let responseHeaders = [
        HPACKHeaderField(name: ":status", value: "200", neverIndexed: false),
        HPACKHeaderField(name: "content-type", value: "application/grpc", neverIndexed: false),
    ]

    /// The content types served: `application/grpc` and its protobuf forms (others get 415).
    static func isServed(contentType: String) -> Bool {
        contentType == "application/grpc" || contentType.hasPrefix("application/grpc+proto") || contentType.hasPrefix("application/grpc;")
    }

    /// True when the stream is a gRPC call (`content-type: application/grpc...`).
    static func isGRPC(_ stream: HTTP2Stream) -> Bool {
        stream.header("content-type")?.hasPrefix("application/grpc") ?? false
    }

    /// Runs `handler` for a gRPC stream: checks method and content type, enforces `grpc-timeout`
    /// (DEADLINE_EXCEEDED, and the handler is cancelled), and makes sure a status is always sent.
    /// Request bytes the call buffers are charged to `budget` until it ends.
    static func serve(_ stream: HTTP2Stream, _ handler: @escaping GRPCHandler, budget: RequestBodyBudget? = nil) async {
        let call = GRPCServerCall(stream: stream, budget: budget)
        defer { call.releaseReceived() }
        let contentType = stream.header("content-type") ?? ""
        guard isServed(contentType: contentType) else {
            try? stream.write(
                headers: [
                    HPACKHeaderField(name: ":status", value: "415", neverIndexed: false),
                    HPACKHeaderField(name: "grpc-status", value: "3", neverIndexed: false),
                    HPACKHeaderField(
                        name: "grpc-message",
                        value: GRPCStatus.percentEncode(
                            "Unsupported content-type \(contentType): only application/grpc and application/grpc+proto are served."),
                        neverIndexed: false),
                ], endStream: true)
            return
        }
        guard stream.method == "POST" else {
            call.finish(GRPCStatus(code: 12, message: "gRPC calls must use POST, not \(stream.method)."))
            return
        }
        let timeout: UInt64?
        do { timeout = try GRPCStatus.parseTimeout(stream.header("grpc-timeout")) } catch {
            call.finish(error)
            return
        }
        if let timeout {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await handler(call) }
                group.addTask {
                    guard (try? await Task.sleep(nanoseconds: timeout)) != nil else { return }
                    call.finish(
                        GRPCStatus(
                            code: 4, message: "Deadline exceeded (grpc-timeout \(stream.header("grpc-timeout") ?? "")) before the call completed."))
                }
                await group.next()
                group.cancelAll()
            }
        } else {
            await handler(call)
        }
        call.finish(GRPCStatus(code: 13, message: "The server ended the call without a status."))
    }
}
