import CEpoll
import EmulatorCore

#if canImport(Glibc)
import Glibc
#endif

/// The epoll loop behind `HTTPServer`: accepts, reads, tells HTTP/1.1 from HTTP/2 by the first
/// bytes, hands complete HTTP/1.1 requests to the responder in a `Task` and writes responses back
/// in request order per connection; HTTP/2 connections run their frames through an
/// `HTTP2Connection` and each stream's handler in its own `Task` (see `EventLoop+HTTP2`).
///
/// Back-pressure: a connection is read only while its unsent output is under
/// `HTTPServerConfiguration.outputBudget` (and, for HTTP/1.1, while the next pipelined request
/// has not been read ahead of the one in flight), and at most `readsPerTurn` reads per turn, so
/// a client that does not read its answers, or sends faster than we serve, stalls only itself.
/// Connections beyond the cap are answered 503; when descriptors run out, accepting pauses with a
/// growing delay instead of spinning (`EventLoop+Accept`).
///
/// Thread confinement: everything but `inbox` is touched only by the loop thread; `inbox`
/// (responses and commands from other threads) is behind a `Mutex` and the loop is woken
/// through an eventfd.
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
        case stop
    }

    /// Listeners, limits and timeouts.
    let config: HTTPServerConfiguration
    /// Answers HTTP requests (HTTP/1.1, and plain requests over HTTP/2).
    let responder: HTTPResponder
    /// Serves each HTTP/2 stream (gRPC calls and plain requests).
    let streamHandler: HTTP2StreamHandler
    private let epfd: Int32
    private let wakeFd: Int32
    /// Listening sockets.
    var listeners: Set<Int32> = []
    /// Open connections by file descriptor.
    var connections: [Int32: Connection] = [:]
    private let inbox = Mutex<[Message]>([])
    /// The id of the next accepted connection.
    var nextId: UInt64 = 1
    /// Set by `stop`: connections still open then are closed.
    var stopDeadline: UInt64?
    private var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)
    private let finished = Mutex<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
    /// The connection cap in force (`HTTPServerConfiguration.maxConnections` resolved).
    let maxConnections: Int
    /// Open HTTP/2 streams of every connection, against `HTTPServerConfiguration.maxStreams`.
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

    /// Creates the loop over already bound listening sockets.
    init(
        config: HTTPServerConfiguration, responder: @escaping HTTPResponder, streamHandler: @escaping HTTP2StreamHandler,
        listenFds: [Int32]
    ) throws {
        self.config = config
        self.responder = responder
        self.streamHandler = streamHandler
        maxConnections = Self.connectionCap(config.maxConnections)
        streamQuota = HTTP2StreamQuota(limit: max(1, config.maxStreams))
        epfd = cepoll_create()
        wakeFd = cepoll_eventfd()
        guard epfd >= 0, wakeFd >= 0 else { throw HTTPServerError("cannot create event loop: \(Socket.errorText())") }
        register(wakeFd, events: cepoll_in)
        for fd in listenFds {
            listeners.insert(fd)
            register(fd, events: cepoll_in)
        }
    }

    /// Starts the loop thread.
    func start() {
        BackgroundThread.detach(name: "http-event-loop", stackSize: 1 << 20) { [self] in self.run() }
    }

    /// Asks the loop to stop and waits until it has.
    func stop() async {
        send(.stop)
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
    /// drains the whole queue on each wake-up, so one wake per batch is enough).
    func send(_ m: Message) {
        let wasEmpty = inbox.withLock { q -> Bool in
            let e = q.isEmpty
            q.append(m)
            return e
        }
        guard wasEmpty else { return }
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
        while true {
            let n = cepoll_wait(epfd, &readyFds, &readyEvents, 512, 100)
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
        close(epfd)
        close(wakeFd)
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

    private func processInbox() {
        let messages = inbox.withLock { m -> [Message] in
            defer { m.removeAll(keepingCapacity: true) }
            return m
        }
        var touched = Set<Int32>()
        defer {
            for fd in touched { if let c = connections[fd] { serviceHTTP2(c) } }
        }
        for m in messages {
            switch m {
            case .stop:
                guard stopDeadline == nil else { continue }
                stopDeadline = Socket.monotonicNanos() + UInt64(config.shutdownGrace * 1e9)
                for fd in listeners {
                    unregister(fd)
                    close(fd)
                }
                listeners = []
                for c in Array(connections.values) {
                    if let h2 = c.h2 {
                        h2.goAway(into: &c.output)
                        touched.insert(c.fd)
                    } else if c.bodyWriter != nil || (!c.inFlight && !c.hasPendingOutput) {
                        closeConnection(c)  // a streaming response (events) never finishes by itself
                    }
                }
            case .h2(let fd, let id, let stream, let command):
                guard let c = connections[fd], c.id == id, let h2 = c.h2 else { continue }
                h2.handle(stream: stream, command, into: &c.output)
                touched.insert(fd)
            case .streamHead(let fd, let id, let bytes, let close, let writer):
                guard let c = connections[fd], c.id == id else {
                    writer.fail()
                    continue
                }
                c.output.append(contentsOf: bytes)
                c.bodyWriter = writer
                c.streamClose = close
                flush(c)
                if c.peerClosed, connections[fd] === c { closeConnection(c) }  // left before the stream began
            case .resumeBody(let fd, let id):
                guard let c = connections[fd], c.id == id else { continue }
                resumeRequestBody(c)
            case .chunk(let fd, let id, let bytes, let end):
                guard let c = connections[fd], c.id == id, let writer = c.bodyWriter else { continue }
                if writer.chunked { c.output.append(contentsOf: HTTPResponse.chunk(bytes)) } else { c.output.append(contentsOf: bytes) }
                if !end {
                    c.awaitingAck = true
                    flush(c)
                    acknowledgeIfRoom(c)
                    continue
                }
                c.bodyWriter = nil
                writer.acknowledge()
                // A fixed-length body that fell short cannot be framed: the connection must end.
                finishResponse(c, close: c.streamClose || !writer.deliveredDeclaredLength)
            case .response(let fd, let id, let bytes, let close):
                guard let c = connections[fd], c.id == id else { continue }
                c.output.append(contentsOf: bytes)
                finishResponse(c, close: close)
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

    private func scanTimeouts(_ now: UInt64) {
        for c in connections.values { c.h2?.expireWorkingHandlers(now: now) }
        expireStalledRequestBodies(now)
        for c in Array(connections.values) {
            if let d = c.lingerDeadline {
                if now >= d || stopDeadline != nil { closeConnection(c) }
                continue
            }
            // A peer that takes none of its output for long is gone or hostile: it would hold its
            // budget forever. One being closed gets a few seconds only.
            if let since = c.stalledSince {
                let limit = c.closeAfterWrite ? min(config.idleTimeout, 5) : config.idleTimeout
                if now >= since + UInt64(limit * 1e9) { closeConnection(c) }
                continue
            }
            guard !c.inFlight && !c.hasPendingOutput else { continue }
            if let h2 = c.h2 {
                if h2.openStreamCount == 0, let d = c.idleDeadline, now >= d {
                    h2.goAway(into: &c.output, debug: "idle timeout")
                    c.closeAfterWrite = true
                    flush(c)
                }
                continue
            }
            if let d = c.requestDeadline, now >= d {
                c.output.append(
                    contentsOf: Self.errorResponse(status: 408, message: "Timed out waiting for the complete request.").wireBytes(
                        head: false, close: true))
                c.closeAfterWrite = true
                flush(c)
            } else if let d = c.idleDeadline, now >= d, !c.parser.hasPartialRequest {
                closeConnection(c)
            }
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
        // A descriptor is free again: if accepting was paused for want of one, try now.
        if acceptPausedUntil != nil { acceptPausedUntil = 0 }
    }
}
