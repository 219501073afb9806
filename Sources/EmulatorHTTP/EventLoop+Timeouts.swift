import EmulatorCore

/// Deadlines on the event loop, checked every 100 ms: a request head or body that does not
/// arrive in time (408), an idle keep-alive connection, a lingering close, a peer that takes
/// none of its output, and HTTP/2 handlers past their deadlines.
extension EventLoop {
    /// Closes or answers (408) connections past their deadlines; expires stalled streams and bodies.
    func scanTimeouts(_ now: UInt64) {
        var started: [Connection] = []
        for c in connections.values {
            guard let h2 = c.h2 else { continue }
            h2.expireWorkingHandlers(now: now)
            // A handler started now may have been answered inline: its answer waits for `pump`.
            if !h2.fromLoop.isEmpty { started.append(c) }
        }
        for c in started { serviceHTTP2(c) }
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
                if now >= MonotonicClock.deadline(afterSeconds: limit, from: since) { closeConnection(c) }
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
}
