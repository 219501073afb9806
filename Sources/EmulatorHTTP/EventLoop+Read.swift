import CEpoll
import EmulatorCore

#if canImport(Glibc)
import Glibc
#endif

/// Reading on the event loop: a ready connection's input (at most `readsPerTurn` reads a turn),
/// routed by protocol once its first bytes tell HTTP/1.1 from HTTP/2, and a lingering
/// connection's input read and dropped.
extension EventLoop {
    /// Reads what a ready connection sent (a bounded number of reads) and acts on it.
    func readable(_ c: Connection) {
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
        case .http2:
            // Framed and written at the end of the turn, with the other connections' answers;
            // at once when the peer has closed (the connection may close now).
            if c.peerClosed {
                serviceHTTP2(c)
            } else if !c.serviceDue {
                c.serviceDue = true
                readThisTurn.append(c)
            }
        case .detecting:
            if c.requestDeadline == nil && !c.prefaceBuffer.isEmpty {
                c.requestDeadline = MonotonicClock.deadline(afterSeconds: config.headerTimeout)
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
    func consume(_ c: Connection, _ bytes: UnsafeRawBufferPointer) {
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
    func drainLingering(_ c: Connection) {
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
}
