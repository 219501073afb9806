import CEpoll
import EmulatorCore

#if canImport(Glibc)
import Glibc
#endif

/// One epoll loop of `HTTPServer` (the server runs `HTTPServerConfiguration.eventLoops` of them,
/// one by default). Loop 0 also accepts: it admits each new connection against the
/// server-wide cap and hands connections out round-robin to every loop (itself included, through
/// `Message.adopt`). A connection stays on its loop for life: the loop reads it, tells HTTP/1.1
/// from HTTP/2 by the first bytes, parses, and writes responses back in request order.
///
/// Where handlers run: an HTTP/1.1 request without a streamed body is first offered to the
/// server's `HTTPInlineResponder`, which answers on the loop thread what it can without blocking
/// (the emulator: the status route and document GETs whose database is not locked); the rest run
/// in a `Task` on the cooperative pool, and each HTTP/2 stream likewise (`EventLoop+HTTP2`), except
/// the unary gRPC calls `GRPCInline` answers on the loop once their request has ended; answers
/// come back through `inbox`.
///
/// Back-pressure: a connection is read only while its unsent output is under
/// `HTTPServerConfiguration.outputBudget` (and, for HTTP/1.1, while the next pipelined request
/// has not been read ahead of the one in flight), and at most `readsPerTurn` reads per turn, so
/// a client that does not read its answers, or sends faster than we serve, stalls only itself.
/// Connections beyond the cap are answered 503; when descriptors run out, accepting pauses with a
/// growing delay instead of spinning (`EventLoop+Accept`).
///
/// Threads and state: each loop is one thread, and everything of a loop but `inbox` is touched
/// only by that thread (`connections`, `sentToSelf`, the accept back-off, the trim counters).
/// `inbox` (responses and commands from other threads) is behind a `Mutex`, and the loop is woken
/// through an eventfd. What the
/// loops share is behind locks of its own: the connection count (`ConnectionAdmission`), the
/// HTTP/2 stream count (`HTTP2StreamQuota`) and the buffered request-body bytes
/// (`RequestBodyBudget`, also charged by HTTP/2 handlers). `peers` is set before the threads start
/// and then only read.
final class EventLoop: @unchecked Sendable {
    /// The state behind `inbox`'s lock.
    struct Inbox {
        var messages: [Message] = []
        var sleeping = false
        var closed = false
    }

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
    /// Answers on this thread what it can (`HTTPInlineResponder`), before `responder` is asked.
    let inlineResponder: HTTPInlineResponder?
    /// Answers on this thread the unary gRPC calls it can, before their handler starts.
    let grpcInline: GRPCInline?
    /// Serves each HTTP/2 stream (gRPC calls and plain requests).
    let streamHandler: HTTP2StreamHandler
    /// This loop's number (0 accepts).
    let index: Int
    let epfd: Int32
    private let wakeFd: Int32
    /// Listening sockets (loop 0 only).
    var listeners: Set<Int32> = []
    /// Open connections by file descriptor.
    var connections = DescriptorTable<Connection>()
    /// Messages from other threads; whether the loop is (about to be) blocked in `epoll_wait`
    /// with nothing queued, so the next message or job must write the eventfd (while it is busy
    /// it drains the inbox before it sleeps, and no wake-up is needed); and whether the loop has
    /// ended (then nothing is queued and the eventfd is closed).
    let inbox = Mutex<Inbox>(Inbox())
    /// The loop thread queued a message for itself (an answer of a handler that ran on it) since
    /// it last drained `inbox`: it does not wait in `epoll_wait` before handling it.
    var sentToSelf = false
    /// Connections that yielded after `inlineAnswersPerTurn` inline answers, advanced again next
    /// turn (the loop does not sleep while any waits).
    var resumeLater: [Connection] = []
    /// Connections whose output is written at the turn's end (`serviceReadConnections`): HTTP/2
    /// connections read this turn, and HTTP/1.1 connections with answers (`flushAtTurnEnd`). The
    /// answers of one turn's requests go out together, so a client reading many connections is
    /// woken once for them, not once per answer.
    var readThisTurn: [Connection] = []
    /// The loop's turns so far (a connection that yielded is resumed in a later turn).
    var turn: UInt64 = 0
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
    /// Where every read of this loop lands (one buffer per loop, reused).
    var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)
    private let finished = Mutex<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
    /// The server-wide connection count and cap.
    let admission: ConnectionAdmission
    /// Open HTTP/2 streams of every connection of every loop, against `HTTPServerConfiguration.maxStreams`.
    let streamQuota: HTTP2StreamQuota
    /// Request-body bytes buffered on every loop, against `HTTPServerConfiguration.maxBufferedBodyBytes`.
    let bodyBudget: RequestBodyBudget
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
    /// Pipelined requests of one connection answered inline in a row before the loop turns to its
    /// other connections (a client sending 64 KiB of small GETs at once is answered in parts,
    /// between everyone else's requests, instead of all before them).
    static let inlineAnswersPerTurn = 16
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
        config: HTTPServerConfiguration, responder: @escaping HTTPResponder, inline: HTTPInlineResponder? = nil,
        grpcInline: GRPCInline? = nil, streamHandler: @escaping HTTP2StreamHandler, listenFds: [Int32], index: Int = 0,
        admission: ConnectionAdmission? = nil, streamQuota: HTTP2StreamQuota? = nil, bodyBudget: RequestBodyBudget? = nil
    ) throws {
        self.config = config
        self.responder = responder
        self.inlineResponder = inline
        self.grpcInline = grpcInline
        self.streamHandler = streamHandler
        self.index = index
        self.admission = admission ?? ConnectionAdmission(cap: Self.connectionCap(config.maxConnections))
        self.streamQuota = streamQuota ?? HTTP2StreamQuota(limit: max(1, config.maxStreams))
        self.bodyBudget = bodyBudget ?? RequestBodyBudget(limit: config.maxBufferedBodyBytes)
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

    /// Queues a message for the loop thread; writes the eventfd only when the loop sleeps (once
    /// per sleep: it drains the whole queue when it wakes, and while it is busy it drains the
    /// queue before it next sleeps, so most answers under load cost no system call). One queue
    /// for every sender keeps the order in which messages were sent (a streamed answer's head
    /// from the loop, its chunks from the pool). False when the loop has ended (the message is
    /// dropped).
    @discardableResult
    func send(_ m: Message) -> Bool {
        if isLoopThread { sentToSelf = true }
        return inbox.withLock { q -> Bool in
            if q.closed { return false }
            q.messages.append(m)
            wakeIfSleeping(&q)
            return true
        }
    }

    /// Writes the eventfd if the loop sleeps (the caller holds `inbox`'s lock: the loop closes the
    /// eventfd under it when it ends, and decides to sleep under it).
    private func wakeIfSleeping(_ q: inout Inbox) {
        guard q.sleeping, !q.closed else { return }
        q.sleeping = false
        signalWake()
    }

    /// Whether the loop may block in `epoll_wait`: nothing queued for it. Marks it sleeping, under
    /// the same lock senders take, so a message or job queued from now on wakes it.
    private func goingToSleep() -> Bool {
        if sentToSelf || !resumeLater.isEmpty { return false }
        return inbox.withLock { q -> Bool in
            // Checked under the inbox lock: a message queued after this check finds `sleeping` set.
            guard q.messages.isEmpty else { return false }
            q.sleeping = true
            return true
        }
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
        var nextScan = MonotonicClock.nanoseconds() + 100_000_000
        pthread_setspecific(Self.threadKey, Unmanaged.passUnretained(self).toOpaque())
        while true {
            // Work already queued (answers, tasks) is done before the loop sleeps.
            let sleep = goingToSleep()
            let n = cepoll_wait(epfd, &readyFds, &readyEvents, 512, sleep ? 100 : 0)
            if sleep { inbox.withLock { $0.sleeping = false } }
            turn &+= 1
            let yielded = resumeLater
            resumeLater = []
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
            processInbox()
            resume(yielded)
            serviceReadConnections()
            let now = MonotonicClock.nanoseconds()
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
            q.sleeping = false
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
        pthread_setspecific(Self.threadKey, nil)
        close(epfd)
        let waiters = finished.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.done = true
            defer { s.waiters = [] }
            return s.waiters
        }
        for w in waiters { w.resume() }
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
        c.bodyCharge.release()
        closedSinceTrim += 1
        admission.release()
        // A descriptor is free again: if accepting was paused for want of one, try now.
        if acceptPausedUntil != nil { acceptPausedUntil = 0 }
    }
}
