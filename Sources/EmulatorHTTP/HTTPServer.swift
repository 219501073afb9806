import EmulatorCore

/// Answers one request. The server calls it once per request, in order per connection.
public typealias HTTPResponder = @Sendable (HTTPRequest) async -> HTTPResponse

/// Answers an HTTP/1.1 request on the event loop's own thread when that cannot block: no waiting
/// on a lock another thread may hold long, no I/O, no sleep, bounded work. nil hands the request
/// to the `HTTPResponder` instead, as if this had not been asked. The loop skips the hop to the
/// cooperative pool and back (two thread wake-ups per request) for what it answers here. Its
/// answer must be whole: a streamed one (`stream` set) is not sent, and the request goes to the
/// `HTTPResponder` as well, so an inline responder never returns one.
public typealias HTTPInlineResponder = @Sendable (HTTPRequest) -> HTTPResponse?

/// An address the server is listening on (the real port when 0 was asked for).
public struct BoundAddress: Sendable, Equatable, CustomStringConvertible {
    /// The host as configured.
    public var host: String
    /// The bound port.
    public var port: Int
    /// Creates a bound address.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }
    /// `host:port`, with brackets around IPv6 literals.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// Why the server could not start.
public struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, naming the address.
    public var description: String
    /// Creates an error.
    public init(_ description: String) { self.description = description }
}

/// The hand-written HTTP server: HTTP/1.1 and HTTP/2 (h2c with prior knowledge, told apart by
/// the client preface) on every listener, `HTTPServerConfiguration.eventLoops` epoll threads
/// (one by default; the first accepts and hands connections out), handlers in Swift concurrency
/// (or on the loop itself, for what `inline` answers). gRPC calls (HTTP/2 streams with
/// `content-type: application/grpc`) go to `grpc`; every other request, over either protocol, goes
/// to `responder`. See `EventLoop` for the connection rules and what each thread owns. `loops` is
/// set once by `start()` and then only read (behind a `Mutex`).
public final class HTTPServer: Sendable {
    /// The configuration it was created with.
    public let configuration: HTTPServerConfiguration
    let responder: HTTPResponder
    let inline: HTTPInlineResponder?
    let grpc: GRPCHandler?
    let grpcInline: GRPCInline?
    /// Request-body bytes buffered on every loop and HTTP/2 handler, against `configuration.maxBufferedBodyBytes`.
    let bodyBudget: RequestBodyBudget
    private let loops = Mutex<[EventLoop]>([])

    /// Creates a server; nothing is bound until `start()`. `inline`, when given, is asked first
    /// for each HTTP/1.1 request without a streamed body; `grpcInline` likewise for the unary
    /// gRPC calls it names (only with a `grpc` handler).
    public init(
        configuration: HTTPServerConfiguration, responder: @escaping HTTPResponder, inline: HTTPInlineResponder? = nil,
        grpc: GRPCHandler? = nil, grpcInline: GRPCInline? = nil
    ) {
        self.configuration = configuration
        self.bodyBudget = RequestBodyBudget(limit: configuration.maxBufferedBodyBytes)
        self.responder = responder
        self.inline = inline
        self.grpc = grpc
        self.grpcInline = grpc == nil ? nil : grpcInline
    }

    /// What runs for each HTTP/2 stream: a gRPC call or an HTTP request.
    var streamHandler: HTTP2StreamHandler {
        let grpc = self.grpc, responder = self.responder, maxBody = configuration.maxBodyBytes, budget = bodyBudget
        return { stream in
            if let problem = HTTP2RequestAdapter.authorityProblem(stream.requestHeaders) {
                // Answered here, before any handler: no layer above ever sees two hosts.
                if GRPCServerCall.isGRPC(stream) {
                    try? stream.write(
                        headers: [
                            HPACKHeaderField(name: ":status", value: "400", neverIndexed: false),
                            HPACKHeaderField(name: "content-type", value: "application/grpc", neverIndexed: false),
                            HPACKHeaderField(name: "grpc-status", value: "3", neverIndexed: false),
                            HPACKHeaderField(name: "grpc-message", value: GRPCStatus.percentEncode(problem), neverIndexed: false),
                        ],
                        endStream: true)
                } else {
                    await HTTP2RequestAdapter.write(EventLoop.errorResponse(status: 400, message: problem), to: stream, head: stream.method == "HEAD")
                }
                return
            }
            if let grpc, GRPCServerCall.isGRPC(stream) {
                await GRPCServerCall.serve(stream, grpc, budget: budget)
            } else {
                await HTTP2RequestAdapter.serve(stream, responder: responder, maxBodyBytes: maxBody, budget: budget)
            }
        }
    }

    /// Binds every listener and starts serving. Returns the bound addresses in listener order.
    /// On any bind failure nothing stays bound and the error names the address.
    public func start() throws -> [BoundAddress] {
        signal(SIGPIPE, SIG_IGN)
        Socket.raiseFileLimit()
        var fds: [Int32] = []
        var bound: [BoundAddress] = []
        do {
            for l in configuration.listeners {
                let (fd, port) = try Socket.listen(host: l.host, port: l.port)
                fds.append(fd)
                bound.append(BoundAddress(host: l.host, port: port))
            }
            let admission = ConnectionAdmission(cap: EventLoop.connectionCap(configuration.maxConnections))
            let quota = HTTP2StreamQuota(limit: max(1, configuration.maxStreams))
            let handler = streamHandler
            var all: [EventLoop] = []
            for i in 0..<configuration.resolvedEventLoops {
                all.append(
                    try EventLoop(
                        config: configuration, responder: responder, inline: inline, grpcInline: grpcInline, streamHandler: handler,
                        listenFds: i == 0 ? fds : [], index: i,
                        admission: admission, streamQuota: quota, bodyBudget: bodyBudget))
            }
            if all.count > 1 { all[0].peers = all }
            loops.withLock { $0 = all }
            for ev in all { ev.start() }
        } catch {
            for fd in fds { close(fd) }
            throw error
        }
        return bound
    }

    /// Stops accepting, lets in-flight requests finish (bounded by `shutdownGrace`), closes all.
    /// Safe to call more than once.
    public func shutdown() async {
        let all = loops.withLock { $0 }
        // Every loop starts its grace period at once; then each is waited for.
        for ev in all { ev.send(.stop) }
        for ev in all { await ev.waitUntilStopped() }
    }
}

#if canImport(Glibc)
import Glibc
#endif
