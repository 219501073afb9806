/// One client connection's state. Owned by the event loop thread only (never shared).
final class Connection {
    let fd: Int32
    let id: UInt64
    let remote: String
    var parser: HTTPRequestParser
    var output: [UInt8] = []
    var outputOffset = 0
    /// A request is with the responder; later pipelined requests wait in the parser.
    var inFlight = false
    /// Close once the output is flushed.
    var closeAfterWrite = false
    /// Peer half-closed its side; finish what is queued, then close.
    var peerClosed = false
    /// Monotonic deadline for receiving a whole request (set while one is being received).
    var requestDeadline: UInt64?
    /// Monotonic deadline for an idle keep-alive connection.
    var idleDeadline: UInt64?
    /// EPOLLOUT is registered.
    var wantsWrite = false
    var servedRequests = 0

    init(fd: Int32, id: UInt64, remote: String, parser: HTTPRequestParser) {
        self.fd = fd
        self.id = id
        self.remote = remote
        self.parser = parser
    }

    var hasPendingOutput: Bool { outputOffset < output.count }
}
