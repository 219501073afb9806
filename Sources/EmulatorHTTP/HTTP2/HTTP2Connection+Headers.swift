import EmulatorCore

/// Header blocks and priorities: opening streams (with their limits), trailers, and the rules on
/// stream identifiers and dependencies (RFC 9113 §5.1.1, §5.3.1, §8).
extension HTTP2Connection {
    /// HEADERS: a whole header block, or the start of one continued by CONTINUATION frames.
    func headers(_ f: HTTP2Frame, _ out: inout [UInt8]) throws(HTTP2ConnectionError) {
        guard f.streamId != 0 else { throw HTTP2ConnectionError(.protocolError, "HEADERS on stream 0") }
        // A PRIORITY flag adds 5 bytes of priority data before the fragment; priorities are
        // ignored, except that a stream may not depend on itself.
        let hasPriority = f.has(HTTP2Flag.priority)
        let fragment = try unpadded(f, extra: hasPriority ? 5 : 0)
        let selfDependent = hasPriority && Self.dependency(f.payload, at: f.has(HTTP2Flag.padded) ? 1 : 0) == f.streamId
        if f.has(HTTP2Flag.endHeaders) {
            try finishHeaders(f.streamId, f.has(HTTP2Flag.endStream), selfDependent, Array(fragment), &out)
        } else {
            if fragment.isEmpty { try count(.empty) }
            guard fragment.count <= limits.maxHeaderBlockBytes else {
                throw HTTP2ConnectionError(.enhanceYourCalm, "header block exceeds \(limits.maxHeaderBlockBytes) bytes")
            }
            headerBlock = (f.streamId, f.has(HTTP2Flag.endStream), selfDependent, Array(fragment))
        }
    }

    /// The stream dependency of priority data starting at `offset` (the exclusive bit cleared).
    static func dependency(_ p: [UInt8], at offset: Int) -> UInt32? {
        guard p.count >= offset + 4 else { return nil }
        return (UInt32(p[offset]) << 24 | UInt32(p[offset + 1]) << 16 | UInt32(p[offset + 2]) << 8 | UInt32(p[offset + 3])) & 0x7fff_ffff
    }

    /// A complete header block on stream `id`: decoded (always, to keep HPACK in step), then
    /// trailers of an open stream, or a new stream within the limits and the id rules.
    func finishHeaders(_ id: UInt32, _ endStream: Bool, _ selfDependent: Bool, _ block: [UInt8], _ out: inout [UInt8]) throws(HTTP2ConnectionError) {
        // Decode first, always: skipping a block would desynchronise the HPACK dynamic table.
        let decoded: HPACKDecodedBlock
        do { decoded = try decoder.decode(block) } catch {
            throw HTTP2ConnectionError(.compressionError, "header block could not be decoded: \(error.message)")
        }
        if let s = streams[id] {
            // Trailers from the client: they must end the stream; their content is not used.
            guard endStream, !s.remoteClosed, !selfDependent else {
                try streamError(id, .protocolError, &out)
                return
            }
            s.remoteClosed = true
            s.handle.deliverEnd()
            onRequestEnd?(s.handle)
            closeIfDone(id, &out)
            return
        }
        guard id & 1 == 1 else { throw HTTP2ConnectionError(.protocolError, "client stream ids must be odd, got \(id)") }
        guard id > lastPeerStream else {
            // Only a stream we reset may still see the peer's frames (sent before our reset
            // reached it); any other id at or below the last one is going backwards.
            if resetMemory.contains(id) { return }
            throw HTTP2ConnectionError(
                .protocolError, "HEADERS on stream \(id) after stream \(lastPeerStream): stream ids must increase (RFC 9113 §5.1.1)")
        }
        lastPeerStream = id
        if selfDependent {
            // RFC 9113 §5.3.1: a stream error, and the stream is never started.
            sendReset(id, .protocolError, &out)
            try count(.reset)
            return
        }
        if goingAway || peerGoingAway || !quota.hasRoom {
            sendReset(id, .refusedStream, &out)  // not the peer's doing: not counted
            return
        }
        if streams.count >= limits.maxConcurrentStreams {
            // Beyond what our SETTINGS allow: the peer ignores them.
            sendReset(id, .refusedStream, &out)
            try count(.reset)
            return
        }
        if decoded.listTooLarge {
            let message = "request header list exceeds \(limits.maxHeaderListSize) bytes (SETTINGS_MAX_HEADER_LIST_SIZE)"
            let fields = [
                HPACKHeaderField(name: ":status", value: "431", neverIndexed: false),
                HPACKHeaderField(name: "content-type", value: "application/grpc", neverIndexed: false),
                HPACKHeaderField(name: "grpc-status", value: "8", neverIndexed: false),
                HPACKHeaderField(name: "grpc-message", value: GRPCStatus.percentEncode(message), neverIndexed: false),
            ]
            writeHeaderBlock(id, encoder.encode(fields), endStream: true, &out)
            if !endStream { sendReset(id, .noError, &out) }
            try count(.reset)
            return
        }
        if Self.validateRequest(decoded.fields) != nil {
            // A malformed request is a stream error (RFC 9113 §8.1.1): only this stream ends.
            sendReset(id, .protocolError, &out)
            try count(.reset)
            return
        }
        let post = self.post
        let handle = HTTP2Stream(id: id, requestHeaders: decoded.fields, remoteAddress: remote, budget: sendBudget) { post(id, $0) }
        openStream(id, StreamState(handle: handle, sendWindow: peerInitialWindow, recvWindow: limits.initialStreamWindow, remoteClosed: endStream))
        if endStream { handle.deliverEnd() }  // kept by the handle until its handler reads
        admit(id)
    }

    /// PRIORITY: ignored (RFC 9113 deprecates the scheme), counted, and checked for a stream that
    /// depends on itself.
    func priority(_ f: HTTP2Frame, _ out: inout [UInt8]) throws(HTTP2ConnectionError) {
        guard f.streamId != 0 else { throw HTTP2ConnectionError(.protocolError, "PRIORITY on stream 0") }
        try count(.empty)
        guard f.payload.count == 5 else {
            try streamError(f.streamId, .frameSizeError, &out)
            return
        }
        guard Self.dependency(f.payload, at: 0) == f.streamId else { return }
        // A stream error (§5.3.1), but an idle stream cannot be reset: that one ends the connection.
        guard f.streamId <= lastPeerStream else {
            throw HTTP2ConnectionError(.protocolError, "PRIORITY: stream \(f.streamId) depends on itself (RFC 9113 §5.3.1)")
        }
        try streamError(f.streamId, .protocolError, &out)
    }

    /// Why a request header list is malformed (RFC 9113 §8.2–8.3), or nil.
    ///
    /// Names are compared with `isHeaderName` (lengths first): every stream passes here.
    static func validateRequest(_ fields: [HPACKHeaderField]) -> String? {
        var seenRegular = false
        // The four pseudo-headers seen, as bits (no set, no hashing).
        var pseudo: UInt8 = 0
        var emptyPath = false
        for f in fields {
            let name = f.name
            if name.utf8.first == UInt8(ascii: ":") {
                guard !seenRegular else { return "pseudo-header \(name) after a regular header" }
                let bit: UInt8
                if name.isHeaderName(":method") {
                    bit = 1
                } else if name.isHeaderName(":scheme") {
                    bit = 2
                } else if name.isHeaderName(":authority") {
                    bit = 4
                } else if name.isHeaderName(":path") {
                    bit = 8
                    emptyPath = f.value.isEmpty  // a second :path is refused as a duplicate below
                } else {
                    return "unknown pseudo-header \(name)"
                }
                guard pseudo & bit == 0 else { return "duplicate \(name)" }
                pseudo |= bit
            } else {
                seenRegular = true
                if Self.hasUpperCase(name) { return "upper-case header name \(name)" }
                if let problem = connectionSpecificProblem(name, f.value) { return problem }
            }
        }
        guard pseudo & (1 | 2 | 8) == 1 | 2 | 8 else { return "missing :method, :scheme or :path" }
        return emptyPath ? "empty :path" : nil
    }

    /// Whether `name` has an ASCII upper-case letter; over the bytes, where a walk of `utf8`'s
    /// indices cost each request's names about a thousand instructions.
    private static func hasUpperCase(_ name: String) -> Bool {
        name.withUTF8Bytes { $0.contains { b in b >= 0x41 && b <= 0x5a } }
    }

    /// Why `name` may not appear in an HTTP/2 request (RFC 9113 §8.2.2), or nil. The lengths are
    /// checked first: almost every name is none of these, and most differ in length from all.
    private static func connectionSpecificProblem(_ name: String, _ value: String) -> String? {
        let forbidden: Bool
        switch name.utf8.count {
        case 2: return name.isHeaderName("te") && value != "trailers" ? "te other than trailers" : nil
        case 7: forbidden = name.isHeaderName("upgrade")
        case 10: forbidden = name.isHeaderName("connection") || name.isHeaderName("keep-alive")
        case 16: forbidden = name.isHeaderName("proxy-connection")
        case 17: forbidden = name.isHeaderName("transfer-encoding")
        default: forbidden = false
        }
        return forbidden ? "connection-specific header \(name)" : nil
    }
}
