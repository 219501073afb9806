import CEpoll
import EmulatorCore

#if canImport(Glibc)
import Glibc
#endif

/// One epoll loop of `HTTPServer` (the server runs `HTTPServerConfiguration.eventLoops` of them,
/// one per core by default). Loop 0 also accepts: it admits each new connection against the
/// server-wide cap and hands connections out round-robin to every loop (itself included, through
/// `Message.adopt`). A connection stays on its loop for life: the loop reads it, tells HTTP/1.1
/// from HTTP/2 by the first bytes, parses, and writes responses back in request order.
///
/// Where handlers run: a read-only HTTP/1.1 request (GET or HEAD without a streamed body) runs in
/// a task whose executor preference is the loop's own `LoopExecutor`, so it is answered on the loop
/// thread with no hop (`HTTPServerConfiguration.answerReadsOnLoop`); its handler must not block
/// (the emulator's handlers keep blocking work on threads of their own). Every other request runs
/// in a `Task` on the cooperative pool, and HTTP/2 streams likewise (`EventLoop+HTTP2`); their
/// answers come back through `inbox`.
///
/// Back-pressure: a connection is read only while its unsent output is under
/// `HTTPServerConfiguration.outputBudget` (and, for HTTP/1.1, while the next pipelined request
/// has not been read ahead of the one in flight), and at most `readsPerTurn` reads per turn, so
/// a client that does not read its answers, or sends faster than we serve, stalls only itself.
/// Connections beyond the cap are answered 503; when descriptors run out, accepting pauses with a
/// growing delay instead of spinning (`EventLoop+Accept`).
///
/// Threads and state: each loop is one thread, and everything of a loop but `inbox` and its
/// executor's queue is touched only by that thread (`connections`, `sentToSelf`, the accept
/// back-off, the trim counters). `inbox` (responses and commands from other threads) is behind a
/// `Mutex`, and the loop is woken through an eventfd; `LoopExecutor`'s job queue likewise. What the
/// loops share is behind locks of its own: the connection count (`ConnectionAdmission`) and the
/// HTTP/2 stream count (`HTTP2StreamQuota`). `peers` is set before the threads start and then
/// only read.
final class EventLoop: @unchecked Sendable {
    /// What other threads ask of the loop (through `inbox`).
    enum Message {
        case response(fd: Int32, id: UInt64, bytes: [UInt8], close: Bool)
        /// The head of a streaming response: the connection stays busy until the last chunk.
        case streamHead(fd: Int32, id: UInt64, bytes: [UInt8], close: Bool, writer: HTTP1BodyWriter)
        /// A chunk of a streaming response body (`end`: the last one).
        case chunk(fd: Int32, id: UInt64, bytes: [UInt8], end: Bool)
        case h2(fd: Int32, id: UInt64, stream: UInt32, command: HTTP2StreamCommand)
        /// A streamed request body's handler caught up: read the connection again.
        case resumeBody(fd: Int32, id: UInt64)
        /// A connection the accepting loop admitted and handed to this one.
        case adopt(fd: Int32, remote: String)
        case stop
    }

    /// Listeners, limits and timeouts.
    let config: HTTPServerConfiguration
    /// Answers HTTP requests (HTTP/1.1, and plain requests over HTTP/2).
    let responder: HTTPResponder
    /// Serves each HTTP/2 stream (gRPC calls and plain requests).
    let streamHandler: HTTP2StreamHandler
    /// This loop's number (0 accepts).
    let index: Int
    let epfd: Int32
    private let wakeFd: Int32
    /// Listening sockets (loop 0 only).
    var listeners: Set<Int32> = []
    /// Open connections by file descriptor.
    var connections: [Int32: Connection] = [:]
    /// Messages from other threads, and whether the loop has ended (then nothing is queued and
    /// the eventfd is closed).
    let inbox = Mutex<(messages: [Message], closed: Bool)>(([], false))
    /// The loop thread queued a message for itself (an answer of a handler that ran on it) since
    /// it last drained `inbox`: it does not wait in `epoll_wait` before handling it.
    var sentToSelf = false
    /// Runs the tasks of requests answered on this loop.
    private(set) var executor: LoopExecutor!  // trap-ok: set at the end of init, before any use
    /// Every loop of the server, this one included, in order: the accepting loop hands
    /// connections out over them (none: it keeps them all). Set before the threads start, then
    /// only read by the accepting loop, which clears it when it ends (the loops refer to each
    /// other only while they run).
    var peers: [EventLoop] = []
    /// The next peer to hand a connection to.
    var nextPeer = 0
    /// The id of the next accepted connection.
    var nextId: UInt64 = 1
    /// Set by `stop`: connections still open then are closed.
    var stopDeadline: UInt64?
    var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)
    private let finished = Mutex<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
    /// The server-wide connection count and cap.
    let admission: ConnectionAdmission
    /// Open HTTP/2 streams of every connection of every loop, against `HTTPServerConfiguration.maxStreams`.
    let streamQuota: HTTP2StreamQuota
    /// Accepting is paused (descriptors ran out) until this monotonic time.
    var acceptPausedUntil: UInt64?
    /// The next pause's length; doubles while accepting keeps failing, up to a second.
    var acceptBackoff = EventLoop.minAcceptBackoff
    /// Connections closed since freed memory was last returned to the system.
    var closedSinceTrim = 0
    /// When freed memory is next returned to the system, once enough was freed.
    var trimAt: UInt64?

    /// Reads of `readBuffer`'s size one connection gets per turn of the loop (256 KiB): a client
    /// that sends without pause cannot keep the loop from the others.
    static let readsPerTurn = 4
    /// Input read and dropped while lingering before the connection is closed anyway.
    static let maxLingerDrain = 4 << 20
    /// Bytes of the next HTTP/1.1 request read ahead while one is in flight.
    static let readAhead = 64 * 1024
    /// Marks the thread of the loop that runs on it (`isLoopThread`).
    static let threadKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// The connection cap in force.
    var maxConnections: Int { admission.cap }

    /// Creates a loop; `listenFds` (already bound) are given to the accepting loop only.
    init(
        config: HTTPServerConfiguration, responder: @escaping HTTPResponder, streamHandler: @escaping HTTP2StreamHandler,
        listenFds: [Int32], index: Int = 0, admission: ConnectionAdmission? = nil, streamQuota: HTTP2StreamQuota? = nil
    ) throws {
        self.config = config
        self.responder = responder
        self.streamHandler = streamHandler
        self.index = index
        self.admission = admission ?? ConnectionAdmission(cap: Self.connectionCap(config.maxConnections))
        self.streamQuota = streamQuota ?? HTTP2StreamQuota(limit: max(1, config.maxStreams))
        epfd = cepoll_create()
        wakeFd = cepoll_eventfd()
        guard epfd >= 0, wakeFd >= 0 else {
            if epfd >= 0 { close(epfd) }
            if wakeFd >= 0 { close(wakeFd) }
            throw HTTPServerError("cannot create event loop: \(Socket.errorText())")
        }
        register(wakeFd, events: cepoll_in)
        for fd in listenFds {
            listeners.insert(fd)
            register(fd, events: cepoll_in)
        }
        executor = LoopExecutor(
            wake: { [weak self] in self?.wake() }, onLoopThread: { [weak self] in self?.isLoopThread ?? false })
    }

    /// Whether the calling thread is this loop's.
    var isLoopThread: Bool { pthread_getspecific(Self.threadKey) == Unmanaged.passUnretained(self).toOpaque() }

    /// Starts the loop thread.
    func start() {
        BackgroundThread.detach(name: "http-loop-\(index)", stackSize: 1 << 20) { [self] in self.run() }
    }

    /// Asks the loop to stop and waits until it has.
    func stop() async {
        send(.stop)
        await waitUntilStopped()
    }

    /// Waits until the loop has ended (after `send(.stop)`).
    func waitUntilStopped() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let resumeNow = finished.withLock { s -> Bool in
                if s.done { return true }
                s.waiters.append(c)
                return false
            }
            if resumeNow { c.resume() }
        }
    }

    /// Queues a message for the loop thread; wakes the loop only when the queue was empty (it
    /// drains the whole queue on each wake-up, so one wake per batch is enough) and never when
    /// the loop thread sends it itself (it drains the queue before it next waits). One queue for
    /// every sender keeps the order in which messages were sent (a streamed answer's head from the
    /// loop, its chunks from the pool). False when the loop has ended (the message is dropped).
    @discardableResult
    func send(_ m: Message) -> Bool {
        let local = isLoopThread
        if local { sentToSelf = true }
        return inbox.withLock { q -> Bool in
            if q.closed { return false }
            q.messages.append(m)
            // Written under the lock: the loop closes the eventfd under it when it ends.
            if q.messages.count == 1 && !local { signalWake() }
            return true
        }
    }

    /// Wakes the loop (its executor queued a job) unless it has ended.
    private func wake() {
        inbox.withLock { q in if !q.closed { signalWake() } }
    }

    /// Writes the eventfd; the caller holds `inbox`'s lock.
    private func signalWake() {
        var one: UInt64 = 1
        _ = write(wakeFd, &one, 8)
    }

    /// Adds a descriptor to epoll.
    func register(_ fd: Int32, events: UInt32) { _ = cepoll_ctl(epfd, 1, fd, events) }

    /// Changes the events epoll reports for a descriptor.
    func modify(_ fd: Int32, events: UInt32) { _ = cepoll_ctl(epfd, 3, fd, events) }

    /// Removes a descriptor from epoll.
    func unregister(_ fd: Int32) { _ = cepoll_ctl(epfd, 2, fd, 0) }

    private func run() {
        var readyFds = [Int32](repeating: 0, count: 512)
        var readyEvents = [UInt32](repeating: 0, count: 512)
        var nextScan = Socket.monotonicNanos() + 100_000_000
        pthread_setspecific(Self.threadKey, Unmanaged.passUnretained(self).toOpaque())
        while true {
            // Work queued on the loop itself (tasks, answers) is done before it sleeps.
            let busy = sentToSelf || executor.hasJobs
            let n = cepoll_wait(epfd, &readyFds, &readyEvents, 512, busy ? 0 : 100)
            if n < 0 && errno != EINTR { break }
            for i in 0..<max(0, Int(n)) {
                let fd = readyFds[i]
                let flags = readyEvents[i]
                if fd == wakeFd {
                    var v: UInt64 = 0
                    _ = read(wakeFd, &v, 8)
                } else if listeners.contains(fd) {
                    acceptAll(fd)
                } else if let c = connections[fd] {
                    if c.readPaused {
                        // Not reading: only a reset or an error is reported, and nothing more can
                        // be delivered to that peer.
                        if flags & (cepoll_hup | cepoll_err) != 0 { closeConnection(c) }
                    } else if flags & (cepoll_in | cepoll_hup | cepoll_err | cepoll_rdhup) != 0 {
                        readable(c)
                    }
                    if flags & cepoll_out != 0, connections[fd] === c { flush(c) }
                }
            }
            executor.runJobs()
            processInbox()
            let now = Socket.monotonicNanos()
            if let until = acceptPausedUntil, now >= until { resumeAccepting() }
            if now >= nextScan {
                scanTimeouts(now)
                trimMemoryIfDue(now)
                nextScan = now + 100_000_000
            }
            if let deadline = stopDeadline {
                if connections.isEmpty || now >= deadline { break }
            }
        }
        for c in Array(connections.values) { closeConnection(c) }
        for fd in listeners { close(fd) }
        listeners = []
        // Nothing is queued from now on; connections handed over meanwhile are closed here.
        let late = inbox.withLock { q -> [Message] in
            q.closed = true
            close(wakeFd)
            defer { q.messages = [] }
            return q.messages
        }
        for case .adopt(let fd, _) in late {
            close(fd)
            admission.release()
        }
        peers = []
        executor.stop()
        pthread_setspecific(Self.threadKey, nil)
        close(epfd)
        let waiters = finished.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.done = true
            defer { s.waiters = [] }
            return s.waiters
        }
        for w in waiters { w.resume() }
    }

    private func readable(_ c: Connection) {
        if c.lingerDeadline != nil {
            drainLingering(c)
            return
        }
        var reads = 0
        // Level-triggered: input left after this turn's quota is reported again next turn.
        while reads < Self.readsPerTurn && wantsInput(c) {
            reads += 1
            let n = readBuffer.withUnsafeMutableBytes { recv(c.fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                readBuffer.withUnsafeBytes { consume(c, UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
                if connections[c.fd] !== c { return }
                if n < readBuffer.count { break }
            } else if n == 0 {
                c.peerClosed = true
                break
            } else {
                if errno == EAGAIN || errno == EWOULDBLOCK { break }
                if errno == EINTR { continue }
                closeConnection(c)
                return
            }
        }
        if c.peerClosed && c.requestBody != nil {
            failRequestBody(c, HTTPBodyError(status: 400, message: "The client closed the connection before the request body ended."))
        }
        switch c.mode {
        case .http1: advance(c)
        case .http2: serviceHTTP2(c)
        case .detecting:
            if c.requestDeadline == nil && !c.prefaceBuffer.isEmpty {
                c.requestDeadline = Socket.monotonicNanos() + UInt64(config.headerTimeout * 1e9)
                c.idleDeadline = nil
            }
            if c.peerClosed { closeConnection(c) }
        }
        if c.peerClosed && !c.inFlight && !c.hasPendingOutput, connections[c.fd] === c { closeConnection(c) }
        // A client that closes during a streaming response (events, which never end by
        // themselves) has gone: HTTP/1.1 clients do not half-close while they wait for an answer,
        // and the stream would otherwise hold its subscription until its next write fails.
        if c.peerClosed && c.bodyWriter != nil, connections[c.fd] === c { closeConnection(c) }
        updateInterest(c)
    }

    /// Routes received bytes by protocol; while undecided, waits until the bytes either differ
    /// from the HTTP/2 preface (HTTP/1.1) or complete it (HTTP/2).
    private func consume(_ c: Connection, _ bytes: UnsafeRawBufferPointer) {
        switch c.mode {
        case .http1:
            c.parser.feed(bytes)
            if c.requestBody != nil { pumpRequestBody(c) }
        case .http2:
            if !c.closeAfterWrite { receiveHTTP2(c, bytes) }  // after GOAWAY for an error: dropped
        case .detecting:
            c.prefaceBuffer.append(contentsOf: bytes)
            let preface = Connection.http2Preface
            let n = min(c.prefaceBuffer.count, preface.count)
            if !c.prefaceBuffer[0..<n].elementsEqual(preface[0..<n]) {
                c.mode = .http1
                let buffered = c.prefaceBuffer
                c.prefaceBuffer = []
                buffered.withUnsafeBytes { c.parser.feed($0) }
            } else if c.prefaceBuffer.count >= preface.count {
                let rest = Array(c.prefaceBuffer[preface.count...])
                c.prefaceBuffer = []
                startHTTP2(c)
                if !rest.isEmpty { rest.withUnsafeBytes { receiveHTTP2(c, $0) } }
            }
        }
    }

    /// Reads and drops input of a lingering connection; closes it at end of input.
    private func drainLingering(_ c: Connection) {
        for _ in 0..<Self.readsPerTurn {
            let n = readBuffer.withUnsafeMutableBytes { recv(c.fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                // A peer that keeps sending this much is not waiting for our last answer.
                c.lingerDrained += n
                if c.lingerDrained > Self.maxLingerDrain {
                    closeConnection(c)
                    return
                }
                continue
            }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
            closeConnection(c)
            return
        }
    }

    /// Closes a connection at once and fails everything that was waiting on it.
    func closeConnection(_ c: Connection) {
        guard connections[c.fd] === c else { return }
        connections[c.fd] = nil
        unregister(c.fd)
        close(c.fd)
        c.h2?.closeAll(HTTP2StreamClosed(code: nil, reason: "the connection closed"))
        c.bodyWriter?.fail()
        c.bodyWriter = nil
        c.requestBody?.fail(HTTPBodyError(status: 499, message: "The connection closed before the request body ended."))
        c.requestBody = nil
        closedSinceTrim += 1
        admission.release()
        // A descriptor is free again: if accepting was paused for want of one, try now.
        if acceptPausedUntil != nil { acceptPausedUntil = 0 }
    }
}
