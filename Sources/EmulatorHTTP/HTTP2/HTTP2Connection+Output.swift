/// The send side: handler commands queue per stream; `pump` frames them within the peer's
/// flow-control windows and the output budget, taking streams in turn (at most `bytesPerTurn`
/// each) so one large response cannot starve the others. Only streams that can make progress are
/// in the rotation: a stream waiting for its own window leaves it until its WINDOW_UPDATE, one
/// waiting for the connection's window waits in `waitingForConnectionWindow`, so the cost of a
/// turn never depends on how many streams a peer keeps stalled.
extension HTTP2Connection {
    /// Applies one command of stream `id`'s handler.
    func handle(stream id: UInt32, _ command: HTTP2StreamCommand, into out: inout [UInt8]) {
        switch command {
        case .headers(_, endStream: true), .data(_, endStream: true), .trailers, .reset: answered(id)
        default: break
        }
        switch command {
        case .batch(let commands):
            for c in commands { handle(stream: id, c, into: &out) }
        case .consumed(let n):
            consumed(id, n, &out)
        case .reset(let code):
            guard let s = forgetStream(id) else { return }
            sendReset(id, code, &out)
            s.handle.fail(HTTP2StreamClosed(code: code, reason: "the server reset the stream (\(code))"))
        case .headers(let fields, let end):
            enqueue(id, .headers(fields, endStream: end))
        case .trailers(let fields):
            enqueue(id, .headers(fields, endStream: true))
        case .data(let bytes, let end):
            guard streams[id] != nil else { return }
            enqueue(id, .data(bytes, offset: 0, endStream: end))
        }
    }

    private func enqueue(_ id: UInt32, _ item: Outbound) {
        guard let s = streams[id], !s.localClosed else { return }
        // A unary answer is three items (headers, message, trailers): one allocation, not three.
        if s.outbound.capacity == 0 { s.outbound.reserveCapacity(4) }
        s.outbound.append(item)
        markReady(id, s)
    }

    /// Puts stream `id` in the send rotation (once).
    func markReady(_ id: UInt32) {
        guard let s = streams[id] else { return }
        markReady(id, s)
    }

    private func markReady(_ id: UInt32, _ s: StreamState) {
        guard !s.queuedToSend else { return }
        s.queuedToSend = true
        ready.append(id)
    }

    /// Takes a command of stream `id` given on the loop thread itself (an inline answer, from
    /// inside `receive` or while handlers start): kept until `pump`, which applies it first, so
    /// the answer skips the inbox (a lock, a message and a turn of the loop). Writes nothing now.
    func queueFromLoop(_ id: UInt32, _ command: HTTP2StreamCommand) {
        fromLoop.append((id, command))
    }

    /// Applies the commands `queueFromLoop` kept, in order (applying one may start a waiting
    /// handler whose inline answer adds more: those are applied too).
    private func applyCommandsFromLoop(_ out: inout [UInt8]) {
        while !fromLoop.isEmpty {
            let commands = fromLoop
            fromLoop = []
            for (id, command) in commands { handle(stream: id, command, into: &out) }
        }
    }

    /// The most bytes one stream frames in one turn of `pump` before the next stream's turn: a
    /// small answer (headers, a short body, trailers) goes out in one turn, a large one a frame at
    /// a time.
    static let bytesPerTurn = 16 * 1024

    /// Frames queued output while the windows and the output budget allow, taking the streams in
    /// turn: in each turn a stream frames its queued items until one was a whole frame's worth
    /// (`bytesPerTurn`) or it is blocked. Starting waiting handlers at the end may queue more
    /// (inline answers): those are framed too.
    func pump(into out: inout [UInt8]) {
        repeat {
            applyCommandsFromLoop(&out)
            frameReadyStreams(&out)
            if waitingHead < waitingToStart.count { startWaitingHandlers() }  // framing freed budget
        } while !fromLoop.isEmpty && out.count < limits.outputBudget
        if readyHead == ready.count {
            ready.removeAll(keepingCapacity: ready.capacity <= 1024)
            readyHead = 0
        } else if readyHead > 1024 && readyHead * 2 > ready.count {
            ready.removeSubrange(0..<readyHead)
            readyHead = 0
        }
    }

    /// One pass over the streams in `ready`, each taking its turn.
    private func frameReadyStreams(_ out: inout [UInt8]) {
        while out.count < limits.outputBudget && readyHead < ready.count {
            let id = ready[readyHead]
            readyHead += 1
            guard let s = streams[id] else { continue }
            s.queuedToSend = false
            let turnStart = out.count
            var drained = 0
            var blocked = false
            while s.hasOutbound && !blocked && out.count - turnStart < Self.bytesPerTurn {
                blocked = frameNext(id, s, &drained, &out)
            }
            if !s.hasOutbound {
                s.outbound.removeAll(keepingCapacity: s.outbound.capacity <= 16)
                s.outHead = 0
            }
            if !blocked && !s.localClosed && s.hasOutbound {
                s.queuedToSend = true
                ready.append(id)
            }
            if drained > 0 { s.handle.drained(drained) }
            if s.localClosed { closeIfDone(id, &out) }
        }
    }

    /// Frames stream `id`'s next queued item (or as much of its DATA as the windows allow); true
    /// when the windows allow nothing.
    private func frameNext(_ id: UInt32, _ s: StreamState, _ drained: inout Int, _ out: inout [UInt8]) -> Bool {
        var blocked = false
        switch s.outbound[s.outHead] {
        case .headers(let fields, let end):
            writeHeaderBlock(id, encoder.encode(fields), endStream: end, &out)
            s.outHead += 1
            if end { s.localClosed = true }
        case .data(let bytes, let offset, let end):
            let remaining = bytes.count - offset
            let n = min(remaining, s.sendWindow, connSendWindow, peerMaxFrameSize)
            if remaining == 0 || n > 0 {
                let last = n == remaining
                HTTP2FrameWriter.append(
                    &out, type: HTTP2FrameType.data, flags: last && end ? HTTP2Flag.endStream : 0,
                    stream: id, payload: bytes[offset..<(offset + n)])
                s.sendWindow -= n
                connSendWindow -= n
                drained += n
                if last {
                    s.outbound[s.outHead] = .headers([], endStream: false)  // release the bytes
                    s.outHead += 1
                    if end { s.localClosed = true }
                } else {
                    s.outbound[s.outHead] = .data(bytes, offset: offset + n, endStream: end)
                }
            } else {
                blocked = true
                // Its own window: its WINDOW_UPDATE (or SETTINGS) brings it back.
                if s.sendWindow > 0 && !s.waitsForConnectionWindow {
                    s.waitsForConnectionWindow = true
                    waitingForConnectionWindow.append(id)
                }
            }
        }
        return blocked
    }

    /// Writes a header block as HEADERS plus CONTINUATIONs when it exceeds the peer's frame size.
    func writeHeaderBlock(_ id: UInt32, _ block: [UInt8], endStream: Bool, _ out: inout [UInt8]) {
        var offset = 0
        var first = true
        repeat {
            let n = min(block.count - offset, peerMaxFrameSize)
            let last = offset + n == block.count
            var flags: UInt8 = last ? HTTP2Flag.endHeaders : 0
            if first && endStream { flags |= HTTP2Flag.endStream }
            HTTP2FrameWriter.append(
                &out, type: first ? HTTP2FrameType.headers : HTTP2FrameType.continuation, flags: flags,
                stream: id, payload: block[offset..<(offset + n)])
            offset += n
            first = false
        } while offset < block.count
    }

    /// Forgets a stream once both sides ended. When we ended first, the peer is told with
    /// RST_STREAM(NO_ERROR) that no more request data is wanted (as gRPC servers do).
    func closeIfDone(_ id: UInt32, _ out: inout [UInt8]) {
        guard let s = streams[id], s.localClosed, !s.hasOutbound else { return }
        forgetStream(id)
        if !s.remoteClosed { sendReset(id, .noError, &out) }
        s.handle.fail(HTTP2StreamClosed(code: nil, reason: "the stream is closed"))
    }
}
