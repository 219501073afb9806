import EmulatorCore

/// Serves one WebChannel path (Google's BrowserChannel protocol, VER=8, as the Firebase JS SDK
/// speaks it in browsers): sessions opened by a handshake POST, client messages on forward POSTs
/// (retries de-duplicated by map id), server messages on a backchannel GET that streams (`CI=0`)
/// or long-polls (`CI=1`), `TYPE=terminate`, and `400 Unknown SID` for sessions it does not know
/// (ended, reaped, or from before a restart). What the messages mean is the `WebChannelService`'s
/// business; this type knows only the protocol (docs/webchannel.md).
///
/// Sessions are bounded per server (`maxSessions`) and per peer (`maxSessionsPerPeer`); a session
/// that never attaches a backchannel is reaped after `unattachedTimeout` and is the first to make
/// room at either cap, so handshakes alone cannot lock other clients out (`WebChannelSessionTable`).
///
/// The session table is behind a `Mutex`. One maintenance task per server, started with the first
/// session and ending with the last, reaps sessions whose client went away, drops stalled ones and
/// wakes backchannels that owe a keep-alive or the end of a long poll.
public final class WebChannelServer: Sendable {
    /// Timings and bounds.
    public let configuration: WebChannelConfiguration
    private let service: any WebChannelService
    private let registry = Mutex(WebChannelSessionTable())

    /// Creates a server for `service`.
    public init(service: any WebChannelService, configuration: WebChannelConfiguration = WebChannelConfiguration()) {
        self.service = service
        self.configuration = configuration
    }

    /// Answers one request on the channel path. Protocol errors throw `INVALID_ARGUMENT` (400),
    /// an unknown session one whose message contains `Unknown SID` (what clients look for).
    public func handle(_ request: HTTPRequest) async throws -> HTTPResponse {
        switch try WebChannelRequest.parse(request) {
        case .open(let form, let parameter):
            return try await open(request, form, answerSessionId: parameter != nil)
        case .forward(let sid, let ack, let form):
            let session = try lookup(sid)
            session.touch()
            if let ack { session.acknowledge(ack) }
            try await session.gate.run { try await session.receive(form) }
            session.touch()
            return Self.chunkResponse(WebChannelFraming.chunk(Array("[1,\(session.lastArrayId),0]".utf8)))
        case .backchannel(let sid, let ack, let longPoll, let timeoutMilliseconds):
            let session = try lookup(sid, attaching: true)
            var timeout = configuration.longPollTimeout.nanoseconds
            if let ms = timeoutMilliseconds, ms > 0 { timeout = min(timeout, UInt64(ms) * 1_000_000) }
            guard let generation = session.attach(ack: ack, longPoll: longPoll, timeout: timeout) else { throw Self.unknownSID(sid) }
            var response = Self.chunkResponse([])
            response.stream = { writer in await session.serveBackchannel(generation, writer) }
            return response
        case .terminate(let sid):
            guard let session = registry.withLock({ $0.remove(sid) }) else { throw Self.unknownSID(sid) }
            session.close()
            return Self.chunkResponse([])
        }
    }

    private func open(_ request: HTTPRequest, _ form: WebChannelForm, answerSessionId: Bool) async throws -> HTTPResponse {
        let peer = WebChannelPeer(remoteAddress: request.remoteAddress)
        if let refusal = registry.withLock({ $0.refusal(for: peer, configuration) }) { throw Self.tooMany(refusal) }
        let id = configuration.makeSessionId()
        let session = WebChannelSession(id: id, httpSessionId: "gsid-" + String(id.prefix(8)), configuration: configuration)
        let stream = try service.open(WebChannelHandshake(request: request, headers: form.headers ?? HTTPHeaders()), session: session)
        session.bind(stream)
        let (admission, startTicker) = registry.withLock { r -> (WebChannelSessionTable.Admission, Bool) in
            // The clock is read under the lock, so the table's never-attached sessions are in
            // order of their opening time (the maintenance pass stops at the first young one).
            let admission = r.admit(session, peer: peer, now: configuration.now(), configuration)
            guard case .admitted = admission else { return (admission, false) }
            defer { r.ticking = true }
            return (admission, !r.ticking)
        }
        switch admission {
        case .refused(let refusal):
            session.close()
            throw Self.tooMany(refusal)
        case .admitted(let evicted):
            for s in evicted { s.close() }
        }
        if startTicker { startMaintenance() }
        do {
            try await session.gate.run { try await session.receive(form) }
        } catch {
            _ = registry.withLock { $0.remove(id) }
            session.close()
            throw error
        }
        let handshake: JSON = ["c", .string(id), "", 8, 12, .int(Int64(configuration.announcedKeepAliveMilliseconds))]
        var response = Self.chunkResponse(WebChannelFraming.chunk(arrays: [WebChannelFraming.array(id: 0, payload: handshake)]))
        if answerSessionId { response.headers.set("X-HTTP-Session-Id", session.httpSessionId) }
        return response
    }

    /// The open session `sid`, or the `Unknown SID` error; `attaching`: a backchannel GET asks,
    /// and the session no longer counts as never attached.
    private func lookup(_ sid: String, attaching: Bool = false) throws -> WebChannelSession {
        let found = registry.withLock { attaching ? $0.attach(sid) : $0.session(sid) }
        guard let s = found, !s.isClosed else { throw Self.unknownSID(sid) }
        return s
    }

    /// Open sessions.
    public var sessionCount: Int { registry.withLock { $0.count } }

    /// Open sessions of the client at `remoteAddress` (as `HTTPRequest.remoteAddress` gives it).
    public func sessionCount(remoteAddress: String?) -> Int {
        let peer = WebChannelPeer(remoteAddress: remoteAddress)
        return registry.withLock { $0.count(of: peer) }
    }

    /// The open session `sid`, if any (for tests and diagnostics).
    public func session(_ sid: String) -> WebChannelSession? { registry.withLock { $0.session(sid) } }

    /// Runs the maintenance pass now (the task runs it every `tick`); returns whether sessions
    /// remain.
    @discardableResult
    public func maintain() -> Bool {
        let now = configuration.now()
        let (unattached, sessions) = registry.withLock { r in
            (r.removeUnattached(now: now, timeout: configuration.unattachedTimeout.nanoseconds), r.sessions)
        }
        for s in unattached { s.close() }
        var ended: [String] = []
        for s in sessions where s.maintain(now: now) { ended.append(s.id) }
        return registry.withLock { r -> Bool in
            for id in ended where r.session(id)?.isClosed ?? false { r.remove(id) }
            return r.count > 0
        }
    }

    /// Ends every session (shutdown, tests).
    public func closeAll() {
        let all = registry.withLock { $0.removeAll() }
        for s in all { s.close() }
    }

    private func startMaintenance() {
        let tick = configuration.tick
        Task { [weak self] in
            while true {
                try? await Task.sleep(for: tick)
                guard let self else { return }
                let more = self.maintain()
                let stop = self.registry.withLock { r -> Bool in
                    guard !more, r.count == 0 else { return false }
                    r.ticking = false
                    return true
                }
                if stop { return }
            }
        }
    }

    /// The 400 answer for a session this server does not know; clients look for `Unknown SID`
    /// in the body (at an index above 0) and then open a new session.
    static func unknownSID(_ sid: String) -> EmulatorError {
        .invalidArgument(
            "Unknown SID '\(sid.prefix(64))': the WebChannel session ended, was reaped after its client went away, or belongs to an earlier emulator process; open a new one."
        )
    }

    /// The 429 answer for a handshake beyond a cap, naming the cap.
    static func tooMany(_ refusal: WebChannelSessionTable.Refusal) -> EmulatorError {
        switch refusal {
        case .table(let n):
            return EmulatorError(
                .resourceExhausted,
                "This WebChannel path already holds \(n) sessions (maxSessions), each with a backchannel; terminate idle ones or wait until they are reaped."
            )
        case .peer(let peer, let n):
            return EmulatorError(
                .resourceExhausted,
                "The client at \(peer) already holds \(n) sessions on this WebChannel path (maxSessionsPerPeer), each with a backchannel; terminate idle ones or wait until they are reaped."
            )
        }
    }

    /// A 200 answer carrying `body` (a chunk, or nothing), never cached.
    static func chunkResponse(_ body: [UInt8]) -> HTTPResponse {
        var h = HTTPHeaders()
        h.add("Content-Type", "text/plain; charset=utf-8")
        h.add("Cache-Control", "no-cache, no-store, max-age=0, must-revalidate")
        h.add("X-Content-Type-Options", "nosniff")
        return HTTPResponse(status: 200, headers: h, body: body)
    }
}
