/// What a WebChannel path serves: the application side of a session. `WebChannelServer` does the
/// protocol (framing, sessions, acknowledgements, backchannels); the service turns each new
/// session into a stream that receives the client's maps and answers through the session.
public protocol WebChannelService: Sendable {
    /// Opens the stream of a new session. Throwing refuses the handshake (the error is the HTTP
    /// answer); no session is kept then.
    func open(_ handshake: WebChannelHandshake, session: WebChannelSession) throws -> any WebChannelStream
}

/// One session's application stream.
public protocol WebChannelStream: AnyObject, Sendable {
    /// The client's new maps, in map-id order, each map id once (retried requests are already
    /// de-duplicated); called for one request at a time. Answers go out through the session.
    func receive(_ maps: [[String: String]]) async
    /// The session ended (terminated by the client, reaped, or dropped): release what it holds.
    /// Called once.
    func close()
}

/// The handshake request of a session.
public struct WebChannelHandshake: Sendable {
    /// The HTTP request (its URL parameters, `Origin`, ...).
    public var request: HTTPRequest
    /// The init headers the client sent in the body's `headers=` block: what a browser cannot put
    /// on the requests themselves (`Authorization`, API client headers). Later requests carry none.
    public var headers: HTTPHeaders

    /// Creates a handshake.
    public init(request: HTTPRequest, headers: HTTPHeaders) {
        self.request = request
        self.headers = headers
    }
}

/// Thrown by `WebChannelSession.send` once the session has ended.
public struct WebChannelSessionClosed: Error, Sendable {
    /// Creates the error.
    public init() {}
}
