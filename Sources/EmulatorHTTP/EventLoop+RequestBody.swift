import CEpoll
import EmulatorCore

/// Streamed HTTP/1.1 request bodies on the event loop (uploads of any size). A request the
/// `HTTPServerConfiguration.streamingPolicy` picked is dispatched at its head; the bytes the parser
/// de-frames afterwards go to its `HTTP1RequestBody` as they are read. When the handler falls
/// behind (the body holds `HTTP1RequestBody.highWater`), the loop stops reading that connection
/// (epoll interest dropped) until the handler has taken half, so memory stays bounded per upload
/// and a slow disk slows only its own client. A body with no bytes for `idleTimeout` fails (408).
extension EventLoop {
    /// Creates the body of the request just dispatched on `c`.
    func startRequestBody(_ c: Connection) -> HTTP1RequestBody {
        let fd = c.fd, id = c.id
        let body = HTTP1RequestBody { [weak self] in self?.send(.resumeBody(fd: fd, id: id)) }
        c.requestBody = body
        c.bodyDeadline = MonotonicClock.deadline(afterSeconds: config.idleTimeout)
        return body
    }

    /// Hands every body byte the parser has to the body; pauses reading when the body is full.
    func pumpRequestBody(_ c: Connection) {
        guard let body = c.requestBody else { return }
        while true {
            switch c.parser.nextBodyPart() {
            case .bytes(let bytes):
                c.bodyDeadline = MonotonicClock.deadline(afterSeconds: config.idleTimeout)
                if !body.offer(bytes) { pauseRequestBody(c) }
            case .end:
                body.finish()
                c.requestBody = nil
                c.bodyDeadline = nil
                return
            case .needMore:
                return
            case .error(let e):
                failRequestBody(c, HTTPBodyError(status: e.status, message: e.message))
                return
            }
        }
    }

    /// The body cannot complete: its handler's read throws `error`; the answer closes the connection.
    func failRequestBody(_ c: Connection, _ error: HTTPBodyError) {
        guard let body = c.requestBody else { return }
        body.fail(error)
        c.requestBody = nil
        c.bodyDeadline = nil
        if c.bodyPaused { resumeRequestBody(c) }
    }

    /// The response went out before the body ended: the rest is never read (the connection
    /// closes after the answer, draining what the client still sends).
    func abandonRequestBody(_ c: Connection) {
        guard c.requestBody != nil else { return }
        failRequestBody(c, HTTPBodyError(status: 499, message: "The request was answered before its body ended."))
        c.closeAfterWrite = true
    }

    /// Stops reading `c` until its body's handler catches up.
    func pauseRequestBody(_ c: Connection) {
        guard !c.bodyPaused else { return }
        c.bodyPaused = true
        updateInterest(c)
    }

    /// Reads `c` again (its handler caught up, or the body ended another way).
    func resumeRequestBody(_ c: Connection) {
        guard c.bodyPaused, connections[c.fd] === c else { return }
        c.bodyPaused = false
        c.bodyDeadline = c.requestBody == nil ? nil : MonotonicClock.deadline(afterSeconds: config.idleTimeout)
        updateInterest(c)
    }

    /// Fails bodies whose client sent nothing for `idleTimeout` (a paused body waits on our
    /// handler, not the client, and is not judged).
    func expireStalledRequestBodies(_ now: UInt64) {
        for c in connections.values where c.requestBody != nil && !c.bodyPaused {
            if let d = c.bodyDeadline, now >= d {
                failRequestBody(c, HTTPBodyError(status: 408, message: "Timed out waiting for the rest of the request body."))
            }
        }
    }
}
