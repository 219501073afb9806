/// Resets, SETTINGS, WINDOW_UPDATE and the receive windows: the frames that steer a connection
/// rather than carry a request.
extension HTTP2Connection {
    /// RST_STREAM from the peer: the stream's handler is cancelled.
    func rstStream(_ f: HTTP2Frame) throws(HTTP2ConnectionError) {
        guard f.streamId != 0 else { throw HTTP2ConnectionError(.protocolError, "RST_STREAM on stream 0") }
        guard f.payload.count == 4 else { throw HTTP2ConnectionError(.frameSizeError, "RST_STREAM payload of \(f.payload.count) bytes (must be 4)") }
        guard f.streamId <= lastPeerStream else { throw HTTP2ConnectionError(.protocolError, "RST_STREAM on idle stream \(f.streamId)") }
        guard let s = forgetStream(f.streamId) else {
            try count(.empty)  // a stream already closed: nothing to do, but not free either
            return
        }
        let raw = UInt32(f.payload[0]) << 24 | UInt32(f.payload[1]) << 16 | UInt32(f.payload[2]) << 8 | UInt32(f.payload[3])
        let code = HTTP2ErrorCode(rawValue: raw)
        s.handle.fail(
            HTTP2StreamClosed(code: code ?? .internalError, reason: "the client reset the stream (\(code.map { "\($0)" } ?? "code \(raw)"))"))
        // Counted after the stream is gone: a rapid-reset flood ends with GOAWAY, and the work it
        // started (one task per stream) is cancelled already.
        try count(.reset)
    }

    /// SETTINGS from the peer: applied in order and acknowledged.
    func settings(_ f: HTTP2Frame, _ out: inout [UInt8]) throws(HTTP2ConnectionError) {
        guard f.streamId == 0 else { throw HTTP2ConnectionError(.protocolError, "SETTINGS on stream \(f.streamId)") }
        if f.has(HTTP2Flag.ack) {
            guard f.payload.isEmpty else { throw HTTP2ConnectionError(.frameSizeError, "SETTINGS ACK with a payload") }
            if peerAckedSettings { try count(.empty) }  // we sent one SETTINGS: more acks are noise
            peerAckedSettings = true
            return
        }
        guard f.payload.count % 6 == 0 else {
            throw HTTP2ConnectionError(.frameSizeError, "SETTINGS payload of \(f.payload.count) bytes (not a multiple of 6)")
        }
        if sawSettings { try count(.answered) }  // the first one is part of the preface
        sawSettings = true
        // Windows change once per frame by the net difference, however many entries it repeats
        // (each would otherwise walk every stream).
        let initialBefore = peerInitialWindow
        var i = 0
        while i < f.payload.count {
            let id = UInt16(f.payload[i]) << 8 | UInt16(f.payload[i + 1])
            let v = UInt32(f.payload[i + 2]) << 24 | UInt32(f.payload[i + 3]) << 16 | UInt32(f.payload[i + 4]) << 8 | UInt32(f.payload[i + 5])
            i += 6
            switch id {
            case HTTP2Setting.headerTableSize: encoder.setPeerMaxTableSize(Int(min(v, 1 << 20)))
            case HTTP2Setting.enablePush:
                guard v <= 1 else { throw HTTP2ConnectionError(.protocolError, "SETTINGS_ENABLE_PUSH must be 0 or 1, got \(v)") }
            case HTTP2Setting.initialWindowSize:
                guard v <= 0x7fff_ffff else { throw HTTP2ConnectionError(.flowControlError, "SETTINGS_INITIAL_WINDOW_SIZE \(v) exceeds 2^31-1") }
                peerInitialWindow = Int(v)
            case HTTP2Setting.maxFrameSize:
                guard v >= 16_384, v <= 16_777_215 else { throw HTTP2ConnectionError(.protocolError, "SETTINGS_MAX_FRAME_SIZE \(v) out of range") }
                peerMaxFrameSize = Int(v)
            default: break  // MAX_CONCURRENT_STREAMS (we never push), MAX_HEADER_LIST_SIZE, unknown ids.
            }
        }
        let delta = peerInitialWindow - initialBefore
        if delta != 0 {
            for (sid, s) in streams.entries {
                s.sendWindow += delta
                guard s.sendWindow <= 0x7fff_ffff else {
                    throw HTTP2ConnectionError(.flowControlError, "SETTINGS_INITIAL_WINDOW_SIZE overflows the window of stream \(sid)")
                }
                if delta > 0, s.hasOutbound { markReady(sid) }
            }
        }
        HTTP2FrameWriter.settings(&out, [], ack: true)
    }

    /// WINDOW_UPDATE from the peer: more room to send, on the connection or a stream.
    func windowUpdate(_ f: HTTP2Frame, _ out: inout [UInt8]) throws(HTTP2ConnectionError) {
        guard f.payload.count == 4 else {
            throw HTTP2ConnectionError(.frameSizeError, "WINDOW_UPDATE payload of \(f.payload.count) bytes (must be 4)")
        }
        let inc = Int((UInt32(f.payload[0]) << 24 | UInt32(f.payload[1]) << 16 | UInt32(f.payload[2]) << 8 | UInt32(f.payload[3])) & 0x7fff_ffff)
        if f.streamId == 0 {
            guard inc > 0 else { throw HTTP2ConnectionError(.protocolError, "WINDOW_UPDATE with increment 0 on the connection") }
            connSendWindow += inc
            guard connSendWindow <= 0x7fff_ffff else { throw HTTP2ConnectionError(.flowControlError, "connection window exceeds 2^31-1") }
            // Streams that waited for the connection window take their turns again.
            let waiting = waitingForConnectionWindow
            waitingForConnectionWindow = []
            for id in waiting {
                guard let s = streams[id] else { continue }
                s.waitsForConnectionWindow = false
                if s.hasOutbound { markReady(id) }
            }
            return
        }
        guard let s = streams[f.streamId] else {
            if f.streamId > lastPeerStream { throw HTTP2ConnectionError(.protocolError, "WINDOW_UPDATE on idle stream \(f.streamId)") }
            return
        }
        guard inc > 0 else {
            try streamError(f.streamId, .protocolError, &out)
            return
        }
        s.sendWindow += inc
        guard s.sendWindow <= 0x7fff_ffff else {
            try streamError(f.streamId, .flowControlError, &out)
            return
        }
        if s.hasOutbound { markReady(f.streamId) }
    }

    /// Resets one stream (RST_STREAM) for what the peer sent on it and fails its handle; the
    /// connection carries on, unless the peer keeps doing it (counted as a reset).
    func streamError(_ id: UInt32, _ code: HTTP2ErrorCode, _ out: inout [UInt8]) throws(HTTP2ConnectionError) {
        sendReset(id, code, &out)
        if let s = forgetStream(id) {
            s.handle.fail(HTTP2StreamClosed(code: code, reason: "stream error \(code)"))
        }
        try count(.reset)
    }

    /// Gives the peer back connection window for bytes it has sent, unless handlers sit on too
    /// much unread input.
    func refillConnection(_ out: inout [UInt8]) {
        guard connUnacked >= limits.connectionWindow / 4 || connRecvWindow < limits.connectionWindow / 2 else { return }
        guard totalBuffered < limits.maxBufferedInbound, connUnacked > 0 else { return }
        HTTP2FrameWriter.windowUpdate(&out, stream: 0, increment: UInt32(connUnacked))
        connRecvWindow += connUnacked
        connUnacked = 0
    }

    /// A handler read `n` bytes of stream `id`: refill its window (and the connection's).
    func consumed(_ id: UInt32, _ n: Int, _ out: inout [UInt8]) {
        if let s = streams[id] {
            totalBuffered -= n
            s.buffered -= n
            s.unacked += n
            if !s.remoteClosed && s.unacked >= limits.initialStreamWindow / 4 {
                HTTP2FrameWriter.windowUpdate(&out, stream: id, increment: UInt32(s.unacked))
                s.recvWindow += s.unacked
                s.unacked = 0
            }
        }
        refillConnection(&out)
    }
}
