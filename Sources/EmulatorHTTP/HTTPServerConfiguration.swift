import CEpoll

/// Listening addresses and limits of the HTTP server.
public struct HTTPServerConfiguration: Sendable {
    /// One address to listen on; port 0 asks the kernel for a free port.
    public struct Listener: Sendable, Equatable {
        /// Host name or literal address (`127.0.0.1`, `::1`, `localhost`, `0.0.0.0`).
        public var host: String
        /// Port; 0 = ephemeral.
        public var port: Int
        /// Creates a listener.
        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }
    }

    /// Where to listen. Every listener serves the same responder.
    public var listeners: [Listener]
    /// Largest accepted request line plus headers (431 beyond).
    public var maxHeaderBytes: Int = 64 * 1024
    /// Largest accepted body (413 beyond).
    public var maxBodyBytes: Int = 32 * 1024 * 1024
    /// How long a client may take to send a complete request head (seconds); 408 and close after.
    public var headerTimeout: Double = 10
    /// How long an idle keep-alive connection is kept open (seconds).
    public var idleTimeout: Double = 60
    /// How long shutdown waits for in-flight requests before closing anyway (seconds).
    public var shutdownGrace: Double = 5
    /// Picks the HTTP/1.1 requests whose body is streamed to the handler (with their own size
    /// limit) instead of read whole under `maxBodyBytes`; nil streams none. HTTP/2 requests are
    /// always read whole.
    public var streamingPolicy: HTTPBodyStreamingPolicy?
    /// Most connections open at once; a connection beyond it is answered `503` and closed. nil:
    /// `defaultMaxConnections`, lowered to three quarters of the open-file limit when that is
    /// smaller (the rest stays for files, pipes and child processes). A number given here is
    /// used as is.
    public var maxConnections: Int?
    /// Output waiting for one connection's socket (answers it has not read) beyond which the
    /// server stops reading from that connection and takes no new request from it until the
    /// output drains to half: a client that does not read costs itself, not the process.
    public var outputBudget = 1 << 20
    /// Most HTTP/2 streams open at once on all connections together (each holds a task); new
    /// streams beyond it are refused with REFUSED_STREAM, which clients retry.
    public var maxStreams = 10_000
    /// Request-body bytes buffered for handlers on all connections together: HTTP/1.1 bodies read
    /// whole, HTTP/2 request bodies, gRPC messages not yet complete. Each body alone is bounded
    /// (`maxBodyBytes`, `GRPCServerCall.maxReceiveMessageBytes`), but a thousand connections or
    /// streams each holding most of one would add up to gigabytes. A body that would take the
    /// total past this is refused as soon as its size is known (`503` with `Retry-After: 1`;
    /// gRPC `UNAVAILABLE`), and its bytes count until its request is answered or its connection
    /// or stream ends. Bodies of at most 64 KiB are not counted (`RequestBodyBudget.freeBytes`).
    public var maxBufferedBodyBytes = 512 << 20
    /// HTTP/2 settings and limits (connections that open with the HTTP/2 preface).
    public var http2 = HTTP2Limits()
    /// Event-loop threads (each serves its share of the connections; the first also accepts and
    /// hands them out in turn). nil: one per processor the process may run on, at most
    /// `maxEventLoops`; a number given here is clamped to 1...`maxEventLoops`. The default is 1:
    /// on the two-core machine of bench/RESULTS.md ("Several event loops, measured again"), with
    /// the load generator on the same cores, two loops gained 4-9% throughput and lost latency.
    public var eventLoops: Int? = 1

    /// The most event loops (each holds a thread, an epoll and an eventfd descriptor and a
    /// 64 KiB read buffer; more loops than cores only add switching).
    public static let maxEventLoops = 8

    /// The number of event loops in force: `eventLoops` clamped, or one per usable processor.
    public var resolvedEventLoops: Int {
        if let n = eventLoops { return min(max(1, n), Self.maxEventLoops) }
        return min(max(1, Int(cepoll_usable_cpus())), Self.maxEventLoops)
    }

    /// `maxConnections` when none is configured and the open-file limit allows it.
    public static let defaultMaxConnections = 1024

    /// Creates a configuration.
    public init(listeners: [Listener]) { self.listeners = listeners }
}
