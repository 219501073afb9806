/// Limits and settings of the server side of an HTTP/2 connection.
public struct HTTP2Limits: Sendable {
    /// SETTINGS_MAX_CONCURRENT_STREAMS: every real-time listener holds a stream for its lifetime
    /// (the Python Firestore client opens one per `on_snapshot`), so this is generous; each open
    /// stream holds a task, and `HTTPServerConfiguration.maxStreams` caps them all together.
    public var maxConcurrentStreams = 1000
    /// SETTINGS_INITIAL_WINDOW_SIZE: how much request body a stream may send before we read it.
    public var initialStreamWindow = 1 << 20
    /// The connection receive window we open right after SETTINGS (the protocol starts at 65,535).
    public var connectionWindow = 16 << 20
    /// SETTINGS_MAX_FRAME_SIZE we accept.
    public var maxFrameSize = 16_384
    /// SETTINGS_MAX_HEADER_LIST_SIZE: decoded request headers beyond this answer 431.
    public var maxHeaderListSize = 64 * 1024
    /// Largest encoded header block (HEADERS plus CONTINUATIONs) before the connection is ended.
    public var maxHeaderBlockBytes = 256 * 1024
    /// Request bytes buffered for handlers that have not read them; beyond it the connection
    /// window is no longer refilled, so a stream that never reads stalls only its own connection.
    public var maxBufferedInbound = 32 << 20
    /// Framed output waiting for the socket beyond which no more DATA is framed until it drains
    /// (the event loop also stops reading the connection past its output budget).
    public var outputBudget = 512 * 1024
    /// Response bytes all the connection's handlers together may queue before the loop frames
    /// them; a handler writing beyond it waits (so streams the peer does not read, or whose
    /// windows it keeps closed, hold at most this much, however many there are).
    public var queuedOutputBudget = 4 << 20
    /// Streams reset early (by the peer, or by us because of what it sent): a burst, then a rate
    /// per second; beyond it GOAWAY ENHANCE_YOUR_CALM (rapid reset, CVE-2023-44487).
    public var resets = HTTP2FloodRate(burst: 1000, perSecond: 100)
    /// PING and SETTINGS frames, which we must answer (CVE-2019-9512, 9515). The burst is large:
    /// clients measure bandwidth with pings, and answering is cheap while they read the answers.
    public var answeredFrames = HTTP2FloodRate(burst: 10_000, perSecond: 1000)
    /// Frames that carry no progress: empty DATA or header fragments, PRIORITY, unknown types
    /// (CVE-2019-9518).
    public var emptyFrames = HTTP2FloodRate(burst: 10_000, perSecond: 1000)
    /// Handlers of one connection working at once on requests they have not answered yet; more
    /// new streams wait for a slot (the thread pool is shared with every other client).
    public var maxWorkingHandlers = 16
    /// Seconds after which a handler that has not answered no longer holds its slot (long polls,
    /// streams waiting for the peer).
    public var workingHandlerGrace = 0.25
    /// How many streams we reset are remembered, so frames the peer sent before it saw the reset
    /// are ignored rather than treated as stream ids going backwards.
    public var rememberedResets = 1024
    /// Creates the defaults.
    public init() {}
}
