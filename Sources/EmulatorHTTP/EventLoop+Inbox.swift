import EmulatorCore

#if canImport(Glibc)
import Glibc
#endif

/// The loop's inbox: answers, streamed chunks, HTTP/2 commands and connections handed over by
/// the accepting loop, sent from handler tasks and other loops (`EventLoop.send`), and the stop
/// request. Handled on the loop thread once per turn, in the order sent.
extension EventLoop {
    /// Handles what was sent (`inbox`), in order.
    func processInbox() {
        sentToSelf = false
        let messages = inbox.withLock { q -> [Message] in
            if q.messages.isEmpty { return [] }
            defer { q.messages.removeAll(keepingCapacity: true) }
            return q.messages
        }
        guard !messages.isEmpty else { return }
        var touched = Set<Int32>()
        defer {
            for fd in touched { if let c = connections[fd] { serviceHTTP2(c) } }
        }
        for m in messages {
            switch m {
            case .stop:
                guard stopDeadline == nil else { continue }
                stopDeadline = MonotonicClock.deadline(afterSeconds: config.shutdownGrace)
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
            case .adopt(let fd, let remote):
                adopt(fd, remote: remote)
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
}
