import CEpoll
import EmulatorCore

#if canImport(Glibc)
import Glibc
#endif

/// Writing and back-pressure on the event loop: flushing output (framing more HTTP/2 output as
/// the socket takes it), deciding whether a connection is read at all, and the lingering close.
extension EventLoop {
    /// Whether to read from `c` now: not past its output budget (with hysteresis: a paused
    /// connection resumes at half), not after its end of input, and for HTTP/1.1 not more than
    /// `readAhead` bytes beyond a request that is being answered.
    func wantsInput(_ c: Connection) -> Bool {
        if c.lingerDeadline != nil { return true }
        if c.peerClosed { return false }  // level-triggered EOF would be reported again and again
        if c.closeAfterWrite { return false }  // nothing more is served: input waits for the linger
        if c.bodyPaused { return false }  // a streamed body's handler is behind (`EventLoop+RequestBody`)
        let pending = c.output.count - c.outputOffset
        if pending > 0 && pending >= (c.readPaused ? config.outputBudget / 2 : config.outputBudget) { return false }
        // A streamed body in flight is read on: its bytes leave the parser as they arrive.
        if c.mode == .http1 && c.requestBody == nil && (c.inFlight || c.dispatchHeld || c.yielded) && c.parser.bufferedByteCount >= Self.readAhead {
            return false
        }
        return true
    }

    /// Registers the events `c` waits for now: input unless paused, output while some waits.
    func updateInterest(_ c: Connection) {
        guard connections[c.fd] === c else { return }
        let read = wantsInput(c)
        c.readPaused = !read
        let events = (read ? cepoll_in | cepoll_rdhup : 0) | (c.wantsWrite ? cepoll_out : 0)
        guard events != c.events else { return }
        c.events = events
        modify(c.fd, events: events)
    }

    /// Writes pending output (framing more HTTP/2 output as the socket takes it); closes the
    /// connection afterwards when it is due to close.
    func flush(_ c: Connection) {
        guard connections[c.fd] === c else { return }
        var progressed = false
        while c.hasPendingOutput || (c.h2?.hasReadyOutput ?? false) {
            if !c.hasPendingOutput, let h2 = c.h2 {
                // The socket took everything: frame more queued output (the budget paused it).
                c.output.removeAll(keepingCapacity: c.output.capacity <= 64 * 1024)
                c.outputOffset = 0
                h2.pump(into: &c.output)
                if !c.hasPendingOutput { break }
            }
            let n = c.output.withUnsafeBytes { p in
                Glibc.send(c.fd, p.baseAddress! + c.outputOffset, p.count - c.outputOffset, Int32(MSG_NOSIGNAL))  // trap-ok: only called with pending output
            }
            if n > 0 {
                c.outputOffset += n
                progressed = true
            } else if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                if progressed || c.stalledSince == nil { c.stalledSince = MonotonicClock.nanoseconds() }
                c.wantsWrite = true
                if c.dispatchHeld && c.output.count - c.outputOffset < config.outputBudget / 2 {
                    c.dispatchHeld = false
                    advance(c)  // takes the next request; its flush comes back here at most once
                    return
                }
                updateInterest(c)
                return
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                closeConnection(c)
                return
            }
        }
        // Idle connections keep little: a large answer's buffer goes with it.
        c.output.removeAll(keepingCapacity: c.output.capacity <= 64 * 1024)
        c.outputOffset = 0
        c.wantsWrite = false
        c.stalledSince = nil
        acknowledgeIfRoom(c)
        if c.closeAfterWrite { lingerThenClose(c) }
        if c.dispatchHeld, connections[c.fd] === c {
            c.dispatchHeld = false
            advance(c)
            return
        }
        updateInterest(c)
    }

    /// Shuts our side down and drains the peer's input for up to a second before closing, so the
    /// last answer reaches a peer that is still sending. Closes at once when the peer has already
    /// closed or the server is stopping.
    func lingerThenClose(_ c: Connection) {
        guard c.lingerDeadline == nil else { return }
        if c.peerClosed || stopDeadline != nil {
            closeConnection(c)
            return
        }
        shutdown(c.fd, Int32(SHUT_WR))
        c.lingerDeadline = MonotonicClock.nanoseconds() + 1_000_000_000
        c.h2?.closeAll(HTTP2StreamClosed(code: nil, reason: "the connection is closing"))
        updateInterest(c)
    }
}
