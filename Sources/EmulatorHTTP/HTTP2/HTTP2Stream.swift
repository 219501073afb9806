import EmulatorCore

/// What a stream's handler asks the event loop to do; applied in order on the loop thread.
enum HTTP2StreamCommand: Sendable {
    /// Response headers (HEADERS, END_STREAM when `endStream`).
    case headers([HPACKHeaderField], endStream: Bool)
    /// Response body bytes (DATA frames as the flow-control windows allow).
    case data([UInt8], endStream: Bool)
    /// Trailers: HEADERS with END_STREAM, after every queued DATA.
    case trailers([HPACKHeaderField])
    /// RST_STREAM with the code.
    case reset(HTTP2ErrorCode)
    /// The handler has read this many request bytes: the stream's window may be refilled.
    case consumed(Int)
    /// Several commands in order, in one post (a whole unary answer: one wake-up of the loop and
    /// one write instead of three).
    indirect case batch([HTTP2StreamCommand])
}

/// Why a stream can no longer be read or written.
public struct HTTP2StreamClosed: Error, Sendable, CustomStringConvertible {
    /// The RST_STREAM code when the peer reset it; nil when the connection went away.
    public var code: HTTP2ErrorCode?
    /// What happened.
    public var reason: String
    /// Creates the error.
    public init(code: HTTP2ErrorCode?, reason: String) {
        self.code = code
        self.reason = reason
    }
    /// The reason.
    public var description: String { reason }
}

/// One HTTP/2 stream as its handler sees it: the request headers, the request body as it
/// arrives, and the response written back with flow control and backpressure.
///
/// Thread-safe: the event loop delivers request bytes, resets and flow-control news; the handler
/// task reads and writes. State lives behind a `Mutex`; waiting readers and writers park on
/// continuations that the loop (or cancellation of the handler's task) resumes.
public final class HTTP2Stream: Sendable {
    /// The stream's shared state (behind `state`).
    struct State {
        var chunks: [[UInt8]] = []
        var head = 0
        var ended = false
        var failure: HTTP2StreamClosed?
        var reader: CheckedContinuation<[UInt8]?, any Error>?
        var queued = 0
        var writers: [CheckedContinuation<Void, any Error>] = []
        var task: Task<Void, Never>?
        var goingAway = false
        var goingAwayWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiterId = 0
        var localEnded = false
        /// Its handler is held back until the request ends (an inline answer may make it needless).
        var held = false
    }

    /// Unsent response bytes beyond which `write(data:)` suspends until the loop has framed some.
    static let highWater = 256 * 1024

    /// The stream identifier.
    public let id: UInt32
    /// The request header fields, pseudo-headers first, as received.
    public let requestHeaders: [HPACKHeaderField]
    /// The peer's address ("127.0.0.1:53211").
    public let remoteAddress: String
    private let post: @Sendable (HTTP2StreamCommand) -> Void
    /// The connection's budget for queued response bytes, shared by all its streams.
    private let budget: HTTP2SendBudget
    private let state = Mutex(State())

    /// Creates the handle; `post` carries its commands to the event loop; `budget` is its
    /// connection's.
    init(
        id: UInt32, requestHeaders: [HPACKHeaderField], remoteAddress: String, budget: HTTP2SendBudget,
        post: @escaping @Sendable (HTTP2StreamCommand) -> Void
    ) {
        self.id = id
        self.requestHeaders = requestHeaders
        self.remoteAddress = remoteAddress
        self.budget = budget
        self.post = post
    }

    /// The first value of a request header (names are lowercase in HTTP/2).
    public func header(_ name: String) -> String? { requestHeaders.first { $0.name.isHeaderName(name) }?.value }

    /// `:method`.
    public var method: String { header(":method") ?? "" }
    /// `:path` (path and query).
    public var path: String { header(":path") ?? "" }

    // MARK: Handler side

    /// The next chunk of the request body; nil once the peer has ended the stream. Throws
    /// `HTTP2StreamClosed` when the stream was reset or the connection closed, and
    /// `CancellationError` when the handler's task is cancelled.
    public func read() async throws -> [UInt8]? {
        let chunk: [UInt8]? = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<[UInt8]?, any Error>) in
                let now = state.withLock { s -> Result<[UInt8]?, any Error>? in
                    if s.head < s.chunks.count {
                        let chunk = s.chunks[s.head]
                        s.chunks[s.head] = []
                        s.head += 1
                        if s.head == s.chunks.count {
                            s.chunks.removeAll(keepingCapacity: true)
                            s.head = 0
                        }
                        return .success(chunk)
                    }
                    if let f = s.failure { return .failure(f) }
                    if s.ended { return .success(nil) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    s.reader = c
                    return nil
                }
                if let now { c.resume(with: now) }
            }
        } onCancel: {
            let waiter = state.withLock { s -> CheckedContinuation<[UInt8]?, any Error>? in
                defer { s.reader = nil }
                return s.reader
            }
            waiter?.resume(throwing: CancellationError())
        }
        // Read bytes refill the stream's window, which matters only while the peer may still
        // send: once it has ended its side (a unary request, whole), the loop learns nothing from
        // the post, and the stream's buffered count is given back when it closes, so skip the
        // wake-up of the loop it would cost.
        if let chunk, !chunk.isEmpty, !state.withLock({ $0.ended }) { post(.consumed(chunk.count)) }
        return chunk
    }

    /// Sends response headers.
    public func write(headers: [HPACKHeaderField], endStream: Bool = false) throws {
        try enqueue(.headers(headers, endStream: endStream), ends: endStream)
    }

    /// Sends response body bytes; suspends while too much is queued (the peer is not reading or
    /// its flow-control window is closed), on this stream or on its connection as a whole, so a
    /// slow reader never makes the process buffer a whole response, however many streams it opens.
    public func write(data: [UInt8], endStream: Bool = false) async throws {
        if !data.isEmpty { await budget.waitForRoom() }
        try enqueue(.data(data, endStream: endStream), ends: endStream, bytes: data.count)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                let now = state.withLock { s -> Result<Void, any Error>? in
                    if let f = s.failure { return .failure(f) }
                    if s.queued <= Self.highWater { return .success(()) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    s.writers.append(c)
                    return nil
                }
                if let now { c.resume(with: now) }
            }
        } onCancel: {
            let waiters = state.withLock { s -> [CheckedContinuation<Void, any Error>] in
                defer { s.writers = [] }
                return s.writers
            }
            for w in waiters { w.resume(throwing: CancellationError()) }
        }
    }

    /// A whole answer at once: `headers` (unless already sent: nil), one body, trailers; handed to
    /// the loop as one command, so it is framed and written together.
    public func respond(headers: [HPACKHeaderField]?, data: [UInt8], trailers: [HPACKHeaderField]) async throws {
        if !data.isEmpty { await budget.waitForRoom() }
        var commands: [HTTP2StreamCommand] = []
        if let headers { commands.append(.headers(headers, endStream: false)) }
        commands.append(.data(data, endStream: false))
        commands.append(.trailers(trailers))
        try enqueue(.batch(commands), ends: true, bytes: data.count)
    }

    /// Ends the stream with trailers (HEADERS with END_STREAM after every queued byte).
    public func write(trailers: [HPACKHeaderField]) throws {
        try enqueue(.trailers(trailers), ends: true)
    }

    /// Resets the stream (RST_STREAM); later writes fail. Does nothing once the stream has ended.
    public func reset(_ code: HTTP2ErrorCode) {
        let send = state.withLock { s -> Bool in
            guard !s.localEnded, s.failure == nil else { return false }
            s.localEnded = true
            return true
        }
        if send { post(.reset(code)) }
    }

    /// True once the handler has ended its side (END_STREAM or reset) or the stream failed.
    public var isClosed: Bool { state.withLock { $0.localEnded || $0.failure != nil } }

    /// True once the server has started shutting down (GOAWAY sent).
    public var isGoingAway: Bool { state.withLock { $0.goingAway } }

    /// Returns when the server starts shutting down (long-lived streams end then), when the stream
    /// fails, or when the calling task is cancelled.
    public func waitForGoingAway() async {
        let id = state.withLock { s -> Int in
            s.nextWaiterId += 1
            return s.nextWaiterId
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    if s.goingAway || s.failure != nil || Task.isCancelled { return true }
                    s.goingAwayWaiters[id] = c
                    return false
                }
                if now { c.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { s in s.goingAwayWaiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }

    /// Accounts for `command` (the stream's end, queued bytes) and posts it to the loop.
    private func enqueue(_ command: HTTP2StreamCommand, ends: Bool, bytes: Int = 0) throws {
        try enqueue(command, ends: ends, bytes: bytes, deliver: post)
    }

    /// Accounts for `command` and gives it to `deliver`: `post`, or the connection itself when
    /// the caller is the loop.
    private func enqueue(_ command: HTTP2StreamCommand, ends: Bool, bytes: Int = 0, deliver: (HTTP2StreamCommand) -> Void) throws {
        try state.withLock { s throws(HTTP2StreamClosed) in
            if let f = s.failure { throw f }
            guard !s.localEnded else { throw HTTP2StreamClosed(code: nil, reason: "the stream was already ended by the server") }
            if ends { s.localEnded = true }
            s.queued += bytes
        }
        budget.add(bytes)
        deliver(command)
    }

    // MARK: Event-loop side

    /// Holds the handler back until the request has ended (`releaseHeld` then says so).
    func hold() { state.withLock { $0.held = true } }

    /// Whether the handler was held back; clears the mark.
    func releaseHeld() -> Bool {
        state.withLock { s in
            defer { s.held = false }
            return s.held
        }
    }

    /// The whole request body, when the peer has ended its side, nothing has read any of it, the
    /// stream has not failed and the body is at most `limit` bytes; nil otherwise. Reads nothing: a handler started afterwards
    /// still reads every byte.
    func completeRequestBody(atMost limit: Int) -> [UInt8]? {
        state.withLock { s -> [UInt8]? in
            guard s.ended, s.failure == nil, s.head == 0, s.reader == nil else { return nil }
            var total = 0
            for chunk in s.chunks {
                total += chunk.count
                if total > limit { return nil }
            }
            return s.chunks.count == 1 ? s.chunks[0] : Array(s.chunks.joined())
        }
    }

    /// A whole answer from the event loop itself (`respond`'s batch, or headers alone that end the
    /// stream when `data` is nil): given to `deliver` at once (the loop's connection, not the
    /// inbox: `HTTP2Connection.queueFromLoop`), or false, with nothing given, while the
    /// connection's send budget is spent (a handler then answers, waiting for room).
    func respondNow(
        headers: [HPACKHeaderField], data: [UInt8]?, trailers: [HPACKHeaderField], deliver: (HTTP2StreamCommand) -> Void
    ) -> Bool {
        guard budget.queued < budget.limit else { return false }
        guard let data else {
            try? enqueue(.headers(headers, endStream: true), ends: true, deliver: deliver)
            return true
        }
        try? enqueue(
            .batch([.headers(headers, endStream: false), .data(data, endStream: false), .trailers(trailers)]), ends: true, bytes: data.count,
            deliver: deliver)
        return true
    }

    /// Remembers the handler's task so a reset can cancel it.
    func attach(_ task: Task<Void, Never>) {
        let cancelNow = state.withLock { s -> Bool in
            s.task = task
            return s.failure != nil
        }
        if cancelNow { task.cancel() }
    }

    /// Request body bytes arrived.
    func deliver(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        let waiter = state.withLock { s -> CheckedContinuation<[UInt8]?, any Error>? in
            if let r = s.reader {
                s.reader = nil
                return r
            }
            s.chunks.append(bytes)
            return nil
        }
        waiter?.resume(returning: bytes)
    }

    /// The peer ended its side (END_STREAM).
    func deliverEnd() {
        let waiter = state.withLock { s -> CheckedContinuation<[UInt8]?, any Error>? in
            s.ended = true
            defer { s.reader = nil }
            return s.head < s.chunks.count ? nil : s.reader
        }
        waiter?.resume(returning: nil)
    }

    /// The stream can no longer be used (peer reset, connection closed): wakes every waiter and
    /// cancels the handler's task.
    func fail(_ error: HTTP2StreamClosed) {
        let (reader, writers, task, away, dropped) = state.withLock { s in
            if s.failure == nil { s.failure = error }
            defer {
                s.reader = nil
                s.writers = []
                s.goingAwayWaiters = [:]
                s.queued = 0
            }
            return (s.reader, s.writers, s.task, Array(s.goingAwayWaiters.values), s.queued)
        }
        // Whatever it had queued will never be framed: give it back to the connection's budget.
        budget.remove(dropped)
        reader?.resume(throwing: error)
        for w in writers { w.resume(throwing: error) }
        for w in away { w.resume() }
        task?.cancel()
    }

    /// The loop framed `n` queued bytes: writers may continue once the queue is short again.
    func drained(_ n: Int) {
        let (writers, taken) = state.withLock { s -> ([CheckedContinuation<Void, any Error>], Int) in
            let taken = min(n, max(0, s.queued))  // nothing once failed: `fail` gave it all back
            s.queued -= taken
            guard s.queued <= Self.highWater / 2 else { return ([], taken) }
            defer { s.writers = [] }
            return (s.writers, taken)
        }
        budget.remove(taken)
        for w in writers { w.resume() }
    }

    /// The server is shutting down.
    func goAway() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.goingAway = true
            defer { s.goingAwayWaiters = [:] }
            return Array(s.goingAwayWaiters.values)
        }
        for w in waiters { w.resume() }
    }
}
