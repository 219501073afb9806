/// One client connection's state. Owned by the event loop thread only (never shared).
final class Connection {
    /// Which protocol the connection speaks: decided by its first bytes.
    enum Mode {
        /// Not yet known: the bytes so far are a prefix of the HTTP/2 client preface.
        case detecting
        /// HTTP/1.1 (anything that is not the preface).
        case http1
        /// HTTP/2 with prior knowledge (h2c), as gRPC clients speak it.
        case http2
    }

    /// The 24-byte HTTP/2 client connection preface (RFC 9113 §3.4).
    static let http2Preface: [UInt8] = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    /// The protocol.
    var mode = Mode.detecting
    /// Bytes received while `mode` is `.detecting`.
    var prefaceBuffer: [UInt8] = []
    /// The HTTP/2 state when `mode` is `.http2`.
    var h2: HTTP2Connection?
    /// The socket.
    let fd: Int32
    /// A number unique to this connection (file descriptors are reused).
    let id: UInt64
    /// The peer's address.
    let remote: String
    /// HTTP/1.1 request parsing.
    var parser: HTTPRequestParser
    /// Bytes to send; `outputOffset` of them have been sent.
    var output: [UInt8] = []
    /// How much of `output` the socket took.
    var outputOffset = 0
    /// A request is with the responder; later pipelined requests wait in the parser.
    var inFlight = false
    /// Close once the output is flushed.
    var closeAfterWrite = false
    /// Our side is shut down and input is read and dropped until the peer closes or this
    /// monotonic deadline passes ("lingering close"): closing with unread input would make the
    /// kernel send RST, and the peer could lose our last answer (an error or a GOAWAY).
    var lingerDeadline: UInt64?
    /// Bytes read and dropped while lingering.
    var lingerDrained = 0
    /// Peer half-closed its side; finish what is queued, then close.
    var peerClosed = false
    /// Monotonic deadline for receiving a whole request (set while one is being received).
    var requestDeadline: UInt64?
    /// Monotonic deadline for an idle keep-alive connection.
    var idleDeadline: UInt64?
    /// The writer of a streaming response in progress (its chunks go out as they come).
    var bodyWriter: HTTP1BodyWriter?
    /// The streaming response's `Connection: close`.
    var streamClose = false
    /// The streaming response's producer waits for room in the output.
    var awaitingAck = false
    /// Output is waiting for the socket (EPOLLOUT is wanted).
    var wantsWrite = false
    /// The streamed body of the request in flight, while it is still arriving (uploads).
    var requestBody: HTTP1RequestBody?
    /// Not reading: the streamed body's handler is behind (`EventLoop+RequestBody`).
    var bodyPaused = false
    /// Monotonic deadline for the next bytes of a streamed body (a stalled upload).
    var bodyDeadline: UInt64?
    /// The share of the server's `RequestBodyBudget` taken by the body being read whole, or by
    /// the request in flight (its handler holds the body until it answers).
    var bodyCharge: RequestBodyCharge
    /// Not reading: the peer is past its output budget, has sent its end of input, or (HTTP/1.1)
    /// has sent a request ahead of the one being answered.
    var readPaused = false
    /// The next HTTP/1.1 request waits until the unsent output drains under the budget.
    var dispatchHeld = false
    /// In `EventLoop.readThisTurn`: its output is written (HTTP/2: framed first) at the end of
    /// this turn.
    var serviceDue = false
    /// The loop answered `EventLoop.inlineAnswersPerTurn` requests of this connection in a row and
    /// left the rest of its pipelined requests to its next turn (`EventLoop.resumeLater`).
    var yielded = false
    /// The loop's turn in which it last yielded (it is resumed in a later turn only).
    var yieldedTurn: UInt64 = 0
    /// Since when output has waited for a socket that takes none of it (monotonic).
    var stalledSince: UInt64?
    /// The epoll events registered now.
    var events: UInt32 = 0
    /// Responses completed on this connection.
    var servedRequests = 0

    /// Creates the state of an accepted connection.
    init(fd: Int32, id: UInt64, remote: String, parser: HTTPRequestParser, bodyBudget: RequestBodyBudget) {
        self.fd = fd
        self.id = id
        self.remote = remote
        self.parser = parser
        self.bodyCharge = RequestBodyCharge(budget: bodyBudget)
    }

    /// Output is waiting for the socket.
    var hasPendingOutput: Bool { outputOffset < output.count }
}
