import EmulatorCore

/// HTTP/1.1 on the event loop: parsing and dispatching requests one at a time per connection,
/// completing responses (whole or streamed in chunks), and the fixed error answers.
extension EventLoop {
    /// Parses and dispatches the next request when none is in flight.
    func advance(_ c: Connection) {
        guard connections[c.fd] === c else { return }
        c.yielded = false
        var answeredInline = 0
        while !c.inFlight && !c.closeAfterWrite {
            if answeredInline == Self.inlineAnswersPerTurn {
                // The rest of this client's pipelined requests wait for its next turn.
                c.yielded = true
                c.yieldedTurn = turn
                resumeLater.append(c)
                break
            }
            // Answers the client has not read yet: take no new request until they drain (its
            // further input stays in the socket, see `wantsInput`).
            if c.output.count - c.outputOffset >= config.outputBudget {
                c.dispatchHeld = true
                break
            }
            switch c.parser.next() {
            case .needMore:
                guard coverRequestBody(c, c.parser.announcedBodyBytes) else { break }
                if c.parser.hasPartialRequest && c.requestDeadline == nil {
                    c.requestDeadline = MonotonicClock.deadline(afterSeconds: config.headerTimeout)
                    c.idleDeadline = nil
                }
                flushAtTurnEnd(c)
                return
            case .expectContinue:
                // Refused before the client sends the body it asked leave to send.
                guard coverRequestBody(c, c.parser.announcedBodyBytes) else { break }
                c.output.append(contentsOf: "HTTP/1.1 100 Continue\r\n\r\n".utf8)
            case .error(let e):
                c.output.append(contentsOf: Self.errorResponse(status: e.status, message: e.message).wireBytes(head: false, close: true))
                c.closeAfterWrite = true
            case .request(var request):
                guard coverRequestBody(c, request.body.count) else { break }
                c.requestDeadline = nil
                c.idleDeadline = nil
                c.inFlight = true
                request.remoteAddress = c.remote
                let streamedBody = c.parser.isStreamingBody ? startRequestBody(c) : nil
                request.bodyStream = streamedBody
                let close = Self.wantsClose(request) || stopDeadline != nil
                let head = request.method == "HEAD"
                if streamedBody == nil, let inline = inlineResponder, let response = inline(request), response.stream == nil {
                    // Answered on this thread: as `finishResponse` does, minus the hop.
                    c.output.append(contentsOf: response.wireBytes(head: head, close: close))
                    c.bodyCharge.release()
                    c.inFlight = false
                    c.servedRequests += 1
                    if close { c.closeAfterWrite = true } else { c.idleDeadline = MonotonicClock.deadline(afterSeconds: config.idleTimeout) }
                    answeredInline += 1
                    continue
                }
                let fd = c.fd, id = c.id, responder = self.responder, request = request
                let serve: @Sendable () async -> Void = { [self] in
                    let response = await responder(request)
                    // Answered before its streamed body ended: the rest of it is never read, so
                    // the connection cannot carry another request.
                    let close = close || (streamedBody.map { !$0.isComplete } ?? false)
                    guard let produce = response.stream, !head else {
                        self.send(.response(fd: fd, id: id, bytes: response.wireBytes(head: head, close: close), close: close))
                        return
                    }
                    let writer = HTTP1BodyWriter(declaredLength: response.streamContentLength) { [weak self] bytes, end in
                        self?.send(.chunk(fd: fd, id: id, bytes: bytes, end: end))
                    }
                    self.send(.streamHead(fd: fd, id: id, bytes: response.streamingHead(close: close), close: close, writer: writer))
                    let producing = Task { await produce(writer) }
                    writer.cancelOnFailure(producing)
                    await producing.value
                    writer.finish()
                }
                Task { await serve() }
                if streamedBody != nil { pumpRequestBody(c) }
            }
        }
        flushAtTurnEnd(c)
    }

    /// Writes `c`'s answers at the end of the loop's turn, with the other connections' (a client
    /// reading many connections is woken once for them, not once per answer); at once when the
    /// connection is to close, the server is stopping, or nothing is pending.
    func flushAtTurnEnd(_ c: Connection) {
        guard c.hasPendingOutput, !c.closeAfterWrite, stopDeadline == nil else { return flush(c) }
        if !c.serviceDue {
            c.serviceDue = true
            readThisTurn.append(c)
        }
    }

    /// Advances the connections that yielded in an earlier turn, after this turn's other work
    /// (one that was advanced this turn already, and yielded again, waits for the next).
    func resume(_ yielded: [Connection]) {
        for c in yielded where connections[c.fd] === c && c.yielded && c.yieldedTurn < turn {
            advance(c)
            if c.peerClosed && !c.inFlight && !c.hasPendingOutput, connections[c.fd] === c { closeConnection(c) }
            updateInterest(c)
        }
    }

    /// A response is complete: the connection takes the next request (or closes).
    func finishResponse(_ c: Connection, close: Bool) {
        abandonRequestBody(c)
        c.bodyCharge.release()  // the handler is done with the body
        let fd = c.fd
        c.inFlight = false
        c.servedRequests += 1
        if close || stopDeadline != nil { c.closeAfterWrite = true }
        flush(c)
        guard connections[fd] === c else { return }
        if !c.closeAfterWrite {
            c.idleDeadline = MonotonicClock.deadline(afterSeconds: config.idleTimeout)
            advance(c)
        }
        if c.peerClosed && !c.inFlight && !c.hasPendingOutput, connections[fd] === c { closeConnection(c) }
    }

    /// Lets a streaming response's producer write its next chunk once little output is pending
    /// (a client that does not read holds its producer back, and only its own).
    func acknowledgeIfRoom(_ c: Connection) {
        guard c.awaitingAck, connections[c.fd] === c, c.output.count - c.outputOffset < min(256 * 1024, config.outputBudget / 2) else { return }
        c.awaitingAck = false
        c.bodyWriter?.acknowledge()
    }

    /// Whether the request asks to close the connection after its response.
    static func wantsClose(_ r: HTTPRequest) -> Bool {
        let tokens = r.headers.values("Connection").flatMap { $0.lowercased().split(separator: ",").map { $0.trimming(" \t") } }
        if tokens.contains("close") { return true }
        if r.version == "HTTP/1.0" { return !tokens.contains("keep-alive") }
        return false
    }

    /// The JSON error answer the server gives on its own (parse errors, timeouts).
    static func errorResponse(status: Int, message: String) -> HTTPResponse {
        let code: String
        switch status {
        case 408: code = "DEADLINE_EXCEEDED"
        case 413, 429, 431: code = "RESOURCE_EXHAUSTED"
        case 503: code = "UNAVAILABLE"
        case 501, 505: code = "UNIMPLEMENTED"
        default: code = "INVALID_ARGUMENT"
        }
        var h = HTTPHeaders()
        h.add("Content-Type", "application/json; charset=utf-8")
        let escaped = message.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"")
        let body = "{\"error\":{\"code\":\(status),\"message\":\"\(escaped)\",\"status\":\"\(code)\"}}"
        return HTTPResponse(status: status, headers: h, body: Array(body.utf8))
    }
}
