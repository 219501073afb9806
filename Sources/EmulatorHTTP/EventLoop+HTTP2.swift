import EmulatorCore

/// Handles one HTTP/2 stream (a gRPC call or an HTTP request) from its first HEADERS to its end.
public typealias HTTP2StreamHandler = @Sendable (HTTP2Stream) async -> Void

/// HTTP/2 connections on the event loop: the switch from preface detection, received bytes, and
/// the output each turn produces.
extension EventLoop {
    /// The client preface arrived: the connection speaks HTTP/2 from now on. Our SETTINGS go out
    /// at once (gRPC clients send no call before they see them).
    func startHTTP2(_ c: Connection) {
        c.mode = .http2
        c.requestDeadline = nil
        // A peer that sends the preface and then nothing is idle like any other.
        c.idleDeadline = MonotonicClock.deadline(afterSeconds: config.idleTimeout)
        let fd = c.fd, id = c.id, handler = streamHandler, inline = grpcInline
        // Frame no more than half the connection's output budget at once, so framing alone never
        // pauses reading (control frames and a peer that does not read do).
        var limits = config.http2
        limits.outputBudget = max(16 * 1024, min(limits.outputBudget, config.outputBudget / 2))
        // Inline answers are given on this thread straight to the connection (it exists by the
        // time any stream opens), and framed by the `pump` that follows this turn's reads.
        weak var connection: HTTP2Connection?
        let h2 = HTTP2Connection(
            limits: limits, remote: c.remote, quota: streamQuota,
            post: { [weak self] stream, command in
                self?.send(.h2(fd: fd, id: id, stream: stream, command: command))
            },
            onStream: { stream, ended in
                // A call `inline` may answer waits for its request's end, then is answered here or
                // handed to its handler then (`onRequestEnd`).
                guard let inline else { return Self.start(stream, handler) }
                inline.streamOpened(stream, requestEnded: ended, deliver: { connection?.queueFromLoop(stream.id, $0) }) {
                    Self.start(stream, handler)
                }
            })
        connection = h2
        if let inline {
            h2.onRequestEnd = { [unowned h2] stream in
                inline.requestEnded(stream, deliver: { h2.queueFromLoop(stream.id, $0) }) { Self.start(stream, handler) }
            }
        }
        c.h2 = h2
        h2.start(into: &c.output)
    }

    /// Runs a stream's handler in a task of its own.
    static func start(_ stream: HTTP2Stream, _ handler: @escaping HTTP2StreamHandler) {
        let task = Task { await handler(stream) }
        stream.attach(task)
    }

    /// Feeds received bytes to the connection; a connection error has already written GOAWAY.
    func receiveHTTP2(_ c: Connection, _ bytes: UnsafeRawBufferPointer) {
        guard let h2 = c.h2 else { return }
        c.idleDeadline = MonotonicClock.deadline(afterSeconds: config.idleTimeout)
        if h2.receive(bytes, into: &c.output) != nil { c.closeAfterWrite = true }
    }

    /// Writes the output of the connections due at the end of this turn (`readThisTurn`): HTTP/2
    /// connections read this turn are framed and written, HTTP/1.1 answers written.
    func serviceReadConnections() {
        // Writing may take further requests (a connection whose dispatch waited for its output
        // to drain), whose answers are due too: none is left for a turn that may sleep.
        while !readThisTurn.isEmpty {
            let due = readThisTurn
            readThisTurn.removeAll(keepingCapacity: true)
            serviceDue(due)
        }
    }

    private func serviceDue(_ due: [Connection]) {
        for c in due {
            c.serviceDue = false
            guard connections[c.fd] === c else { continue }
            if c.h2 != nil {
                serviceHTTP2(c)
                continue
            }
            flush(c)
            if c.peerClosed && !c.inFlight && !c.hasPendingOutput, connections[c.fd] === c { closeConnection(c) }
        }
    }

    /// Frames whatever the streams queued, writes it, and closes the connection once it is
    /// finished (connection error, or GOAWAY in either direction with no stream left).
    func serviceHTTP2(_ c: Connection) {
        guard connections[c.fd] === c, let h2 = c.h2 else { return }
        if !c.closeAfterWrite {
            h2.pump(into: &c.output)
            if (h2.goingAway || h2.peerGoingAway || c.peerClosed) && h2.openStreamCount == 0 { c.closeAfterWrite = true }
        }
        flush(c)
        if c.peerClosed, connections[c.fd] === c, !c.hasPendingOutput { closeConnection(c) }
    }
}
