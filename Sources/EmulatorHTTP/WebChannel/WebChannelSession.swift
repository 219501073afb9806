import EmulatorCore

/// One WebChannel session: the server's numbered arrays waiting for acknowledgement, the highest
/// client map id processed, and the backchannel GET currently attached (`WebChannelServer` routes
/// requests here).
///
/// - Arrays are numbered from 1 (0 is the handshake's `["c",...]`) and kept until the client
///   acknowledges them (`AID` on any request), so a new GET resends everything after its `AID`.
/// - One backchannel at a time: a new GET takes over (the older one ends); a streaming GET
///   (`CI=0`) stays open and writes arrays as they come, a `["noop"]` when silent for the
///   keep-alive interval; a long-poll GET (`CI=1`) ends once it has written what was waiting, or
///   with a `["noop"]` at its timeout. Either ends after `maxUnacknowledgedBytes`, so the next
///   GET's `AID` lets the session forget what was delivered.
/// - Bounded: a stream's `send` waits while `sendBufferBytes` wait for the backchannel; data that
///   no backchannel takes for `stallTimeout`, or more than `maxQueuedBytes` queued, drops the
///   session (the client reopens one, as after a gRPC stream's `RESOURCE_EXHAUSTED`).
///
/// State behind a `Mutex`; the waiting backchannel and waiting senders park on continuations that
/// enqueues, acknowledgements, the maintenance pass and `close` resume.
public final class WebChannelSession: Sendable {
    /// The session id (`SID`).
    public let id: String
    /// The HTTP session id given in `X-HTTP-Session-Id` (clients echo it as `gsessionid`).
    public let httpSessionId: String
    let configuration: WebChannelConfiguration
    /// Serializes forward requests.
    let gate = WebChannelGate()
    /// Everything that changes (the backchannel half lives in `WebChannelSession+Backchannel`).
    let state: Mutex<State>

    /// One queued array: its id and its ASCII JSON text `[id,payload]`.
    struct Queued {
        let id: Int
        let text: [UInt8]
    }

    /// Everything that changes.
    struct State {
        var stream: (any WebChannelStream)?
        var nextArrayId = 1
        /// Unacknowledged arrays; ids are contiguous from `acked + 1`.
        var queue: [Queued] = []
        var queuedBytes = 0
        /// Bytes of queued arrays after `sentThrough` (not yet written on the current GET).
        var unsentBytes = 0
        var acked = 0
        var sentThrough = 0
        var lastMapId = -1
        var generation: UInt64 = 0
        /// The generation of the attached GET, if any.
        var attached: UInt64?
        var longPoll = false
        var pollDeadline: UInt64 = 0
        var writer: CheckedContinuation<Void, Never>?
        /// The attached GET's body, for a sender that writes while the GET waits.
        var body: (any HTTPBodyWriter)?
        /// Someone (the GET or a sender) is writing on the attached GET.
        var writing = false
        /// The attached GET must end (a sender wrote its last chunk, or its write failed).
        var endDue = false
        var noopDue = false
        var producers: [CheckedContinuation<Void, Never>] = []
        var lastSeen: UInt64
        var lastWrite: UInt64
        var progressAt: UInt64
        var closed = false
    }

    init(id: String, httpSessionId: String, configuration: WebChannelConfiguration) {
        self.id = id
        self.httpSessionId = httpSessionId
        self.configuration = configuration
        let now = configuration.now()
        state = Mutex(State(lastSeen: now, lastWrite: now, progressAt: now))
    }

    // MARK: - The stream's side

    /// Queues one array with `payload` and waits while the backchannel is more than
    /// `sendBufferBytes` behind. Throws `WebChannelSessionClosed` once the session has ended.
    public func send(_ payload: JSON) async throws {
        try await send(serialized: [WebChannelFraming.ascii(payload.serializedBytes())])
    }

    /// `send` for several arrays at once, their payloads already serialized as ASCII JSON text
    /// (`WebChannelFraming.ascii`): a caller can share the text of what many sessions send (a
    /// changed document's JSON), and arrays queued together go out in one chunk.
    public func send(serialized payloads: [[UInt8]]) async throws {
        guard await enqueueAndWrite(payloads) else { throw WebChannelSessionClosed() }
        if state.withLock({ $0.unsentBytes <= configuration.sendBufferBytes }) { return }  // room: no waiting
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    if s.closed || s.unsentBytes <= configuration.sendBufferBytes || Task.isCancelled { return true }
                    s.producers.append(c)
                    return false
                }
                if now { c.resume() }
            }
        } onCancel: { [weak self] in
            self?.wakeProducers(all: true)
        }
        if isClosed { throw WebChannelSessionClosed() }
    }

    /// Queues one array with `payload` without waiting (answers to client requests, which are
    /// bounded by the requests themselves); dropped once the session has ended.
    public func post(_ payload: JSON) {
        _ = enqueueNow([WebChannelFraming.ascii(payload.serializedBytes())])
    }

    /// `enqueueAndWrite` without the direct write, for callers that must not wait.
    private func enqueueNow(_ payloads: [[UInt8]]) -> Bool {
        let now = configuration.now()
        let (ok, writer, overLimit) = state.withLock { s -> (Bool, CheckedContinuation<Void, Never>?, Bool) in
            guard !s.closed else { return (false, nil, false) }
            Self.append(&s, payloads, now: now)
            defer { s.writer = nil }
            return (true, s.writer, s.queuedBytes > configuration.maxQueuedBytes)
        }
        writer?.resume()
        if overLimit { close() }
        return ok && !overLimit
    }

    /// Whether the session has ended.
    public var isClosed: Bool { state.withLock { $0.closed } }

    /// The id of the last array queued (what a forward request's answer reports).
    public var lastArrayId: Int { state.withLock { $0.nextArrayId - 1 } }

    /// Bytes queued and not yet acknowledged.
    public var queuedBytes: Int { state.withLock { $0.queuedBytes } }

    /// Queues one array per payload (ids in order) and wakes the backchannel once; when the
    /// attached GET is idle, the caller writes the chunk itself instead (one task switch less per
    /// message, for every listener of a commit).
    private func enqueueAndWrite(_ payloads: [[UInt8]]) async -> Bool {
        let now = configuration.now()
        let (ok, writer, overLimit, direct) = state.withLock { s -> (Bool, CheckedContinuation<Void, Never>?, Bool, DirectWrite?) in
            guard !s.closed else { return (false, nil, false, nil) }
            Self.append(&s, payloads, now: now)
            let overLimit = s.queuedBytes > configuration.maxQueuedBytes
            if !overLimit, let direct = Self.claimDirectWrite(&s, now: now, configuration) { return (true, nil, false, direct) }
            defer { s.writer = nil }
            return (true, s.writer, overLimit, nil)
        }
        writer?.resume()
        if let direct { await write(direct) }
        if overLimit { close() }
        return ok && !overLimit
    }

    /// Appends one numbered array per payload.
    static func append(_ s: inout State, _ payloads: [[UInt8]], now: UInt64) {
        if s.unsentBytes == 0 { s.progressAt = now }
        for payload in payloads {
            let id = s.nextArrayId
            s.nextArrayId += 1
            var text = Array("[\(id),".utf8)
            text.reserveCapacity(text.count + payload.count + 1)
            text.append(contentsOf: payload)
            text.append(UInt8(ascii: "]"))
            s.queue.append(Queued(id: id, text: text))
            s.queuedBytes += text.count
            s.unsentBytes += text.count
        }
    }

    // MARK: - Requests

    /// Binds the stream the service opened (closed at once when the session already ended).
    func bind(_ stream: any WebChannelStream) {
        let closed = state.withLock { s -> Bool in
            if !s.closed { s.stream = stream }
            return s.closed
        }
        if closed { stream.close() }
    }

    /// Notes that the client is there (any request).
    func touch() {
        let now = configuration.now()
        state.withLock { $0.lastSeen = now }
    }

    /// Forgets the arrays up to `aid`, which the client has received.
    func acknowledge(_ aid: Int) {
        let wake = state.withLock { s -> Bool in Self.acknowledge(&s, aid, configuration) }
        if wake { wakeProducers(all: false) }
    }

    static func acknowledge(_ s: inout State, _ aid: Int, _ configuration: WebChannelConfiguration) -> Bool {
        let a = min(aid, s.nextArrayId - 1)
        guard a > s.acked else { return false }
        var dropped = 0
        for q in s.queue {
            guard q.id <= a else { break }
            s.queuedBytes -= q.text.count
            if q.id > s.sentThrough { s.unsentBytes -= q.text.count }
            dropped += 1
        }
        s.queue.removeFirst(dropped)
        s.acked = a
        if s.sentThrough < a { s.sentThrough = a }
        return s.unsentBytes <= configuration.sendBufferBytes && !s.producers.isEmpty
    }

    /// Hands the maps of a forward request the session has not seen to the stream, in order.
    /// Map ids must continue the sequence: a request starting after a gap is refused.
    func receive(_ form: WebChannelForm) async throws {
        let (fresh, stream) = try state.withLock { s throws(EmulatorError) -> ([[String: String]], (any WebChannelStream)?) in
            guard !s.closed else { throw WebChannelServer.unknownSID(id) }
            guard form.offset <= s.lastMapId + 1 else {
                throw WebChannelForm.bad("map ids jump from \(s.lastMapId) to \(form.offset) (ofs); send every map in order.")
            }
            let last = form.offset + form.maps.count - 1
            let skip = s.lastMapId + 1 - form.offset
            guard last > s.lastMapId else { return ([], nil) }
            s.lastMapId = last
            return (Array(form.maps.dropFirst(skip)), s.stream)
        }
        if let stream, !fresh.isEmpty { await stream.receive(fresh) }
    }

    /// Ends the session: the stream is closed, the backchannel ends, waiting senders return.
    public func close() {
        let (stream, writer, producers) = state.withLock {
            s -> ((any WebChannelStream)?, CheckedContinuation<Void, Never>?, [CheckedContinuation<Void, Never>]) in
            guard !s.closed else { return (nil, nil, []) }
            s.closed = true
            s.queue = []
            s.queuedBytes = 0
            s.unsentBytes = 0
            defer {
                s.stream = nil
                s.writer = nil
                s.producers = []
            }
            return (s.stream, s.writer, s.producers)
        }
        writer?.resume()
        for p in producers { p.resume() }
        stream?.close()
    }

    func wakeProducers(all: Bool) {
        let ps = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            guard all || s.closed || s.unsentBytes <= configuration.sendBufferBytes else { return [] }
            defer { s.producers = [] }
            return s.producers
        }
        for p in ps { p.resume() }
    }

    // MARK: - Maintenance

    // The pass reads its clock once before visiting every session, so a session opened or attached
    // meanwhile carries a later time: elapsed times go through `MonotonicClock.elapsed`, which
    // saturates (a wrapping difference made such a session look 2^64 ns old, and it was dropped).

    /// The periodic pass: reaps a session without client, drops a stalled one, wakes a waiting
    /// backchannel that owes a keep-alive or the end of its long poll. Returns true when the
    /// session has ended (the server forgets it).
    func maintain(now: UInt64) -> Bool {
        enum Verdict { case keep, end, wake(CheckedContinuation<Void, Never>) }
        let verdict = state.withLock { s -> Verdict in
            if s.closed { return .end }
            if s.attached == nil, MonotonicClock.elapsed(since: s.lastSeen, now) >= configuration.sessionTimeout.nanoseconds { return .end }
            if s.unsentBytes > 0, MonotonicClock.elapsed(since: s.progressAt, now) >= configuration.stallTimeout.nanoseconds { return .end }
            guard s.attached != nil, let w = s.writer else { return .keep }
            let due =
                s.longPoll ? now >= s.pollDeadline : MonotonicClock.elapsed(since: s.lastWrite, now) >= configuration.keepAliveInterval.nanoseconds
            guard due else { return .keep }
            s.noopDue = true
            s.writer = nil
            return .wake(w)
        }
        switch verdict {
        case .keep: return false
        case .wake(let w):
            w.resume()
            return false
        case .end:
            close()
            return true
        }
    }
}
