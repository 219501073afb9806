import EmulatorCore

/// Limits and settings of the server side of an HTTP/2 connection.
public struct HTTP2Limits: Sendable {
    /// SETTINGS_MAX_CONCURRENT_STREAMS: every real-time listener holds a stream for its lifetime.
    public var maxConcurrentStreams = 8192
    /// SETTINGS_INITIAL_WINDOW_SIZE: how much request body a stream may send before we read it.
    public var initialStreamWindow = 1 << 20
    /// The connection receive window we open right after SETTINGS (the protocol starts at 65,535).
    public var connectionWindow = 16 << 20
    /// SETTINGS_MAX_FRAME_SIZE we accept.
    public var maxFrameSize = 16_384
    /// SETTINGS_MAX_HEADER_LIST_SIZE: decoded request headers beyond this answer 431.
    public var maxHeaderListSize = 64 * 1024
    /// Largest encoded header block (HEADERS plus CONTINUATIONs) before the connection is ended.
    public var maxHeaderBlockBytes = 256 * 1024
    /// Request bytes buffered for handlers that have not read them; beyond it the connection
    /// window is no longer refilled, so a stream that never reads stalls only its own connection.
    public var maxBufferedInbound = 32 << 20
    /// Output waiting for the socket beyond which no more DATA is framed until it drains.
    public var outputBudget = 512 * 1024
    /// Creates the defaults.
    public init() {}
}

/// The server side of one HTTP/2 connection (RFC 9113): frames in, frames out, streams, HPACK
/// state and flow control in both directions.
///
/// Confined to the event-loop thread (it is never shared); handlers talk to it only through
/// their `HTTP2Stream`, whose commands the loop hands to `handle(stream:_:into:)`.
final class HTTP2Connection {
    enum Outbound {
        case headers([HPACKHeaderField], endStream: Bool)
        case data([UInt8], offset: Int, endStream: Bool)
    }

    struct StreamState {
        let handle: HTTP2Stream
        var sendWindow: Int
        var recvWindow: Int
        var unacked = 0
        var buffered = 0
        var remoteClosed = false
        var localClosed = false
        var outbound: [Outbound] = []
        var outHead = 0
        var hasOutbound: Bool { outHead < outbound.count }
    }

    let limits: HTTP2Limits
    let remote: String
    let post: @Sendable (UInt32, HTTP2StreamCommand) -> Void
    let onStream: (HTTP2Stream, _ endStream: Bool) -> Void

    var parser: HTTP2FrameParser
    var decoder: HPACKDecoder
    var encoder = HPACKEncoder()
    var streams: [UInt32: StreamState] = [:]
    var ready: [UInt32] = []
    var lastPeerStream: UInt32 = 0
    var sawSettings = false
    var headerBlock: (stream: UInt32, endStream: Bool, bytes: [UInt8])?
    var peerInitialWindow = 65_535
    var peerMaxFrameSize = 16_384
    var connSendWindow = 65_535
    var connRecvWindow: Int
    var connUnacked = 0
    var totalBuffered = 0
    /// GOAWAY sent: no new streams; the connection closes once the open ones finish.
    private(set) var goingAway = false
    /// The peer sent GOAWAY.
    private(set) var peerGoingAway = false

    /// Creates the connection. `post` carries a stream's commands to the loop; `onStream` starts
    /// the handler of a new request stream.
    init(limits: HTTP2Limits, remote: String, post: @escaping @Sendable (UInt32, HTTP2StreamCommand) -> Void,
         onStream: @escaping (HTTP2Stream, _ endStream: Bool) -> Void) {
        self.limits = limits
        self.remote = remote
        self.post = post
        self.onStream = onStream
        parser = HTTP2FrameParser(maxFrameSize: limits.maxFrameSize)
        decoder = HPACKDecoder(maxTableSize: 4096, maxHeaderListSize: limits.maxHeaderListSize)
        connRecvWindow = limits.connectionWindow
    }

    /// Open streams.
    var openStreamCount: Int { streams.count }

    /// Writes the server preface: our SETTINGS, then a WINDOW_UPDATE opening the connection window.
    func start(into out: inout [UInt8]) {
        HTTP2FrameWriter.settings(&out, [
            (HTTP2Setting.maxConcurrentStreams, UInt32(limits.maxConcurrentStreams)),
            (HTTP2Setting.initialWindowSize, UInt32(limits.initialStreamWindow)),
            (HTTP2Setting.maxHeaderListSize, UInt32(limits.maxHeaderListSize)),
            (HTTP2Setting.enablePush, 0),
        ])
        HTTP2FrameWriter.windowUpdate(&out, stream: 0, increment: UInt32(limits.connectionWindow - 65_535))
    }

    /// Handles received bytes (after the client preface). On a connection error, writes GOAWAY and
    /// returns the error: the caller closes the connection once the output is flushed.
    func receive(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) -> HTTP2ConnectionError? {
        parser.feed(bytes)
        do {
            while let frame = try parser.next() { try process(frame, &out) }
        } catch {
            HTTP2FrameWriter.goaway(&out, lastStream: lastPeerStream, code: error.code, debug: error.message)
            goingAway = true
            closeAll(HTTP2StreamClosed(code: nil, reason: "connection error: \(error)"))
            return error
        }
        return nil
    }

    /// Starts a graceful shutdown: GOAWAY(NO_ERROR) naming the last stream we will serve; open
    /// streams are told, so long-lived ones can end.
    func goAway(into out: inout [UInt8], debug: String = "server shutting down") {
        guard !goingAway else { return }
        goingAway = true
        HTTP2FrameWriter.goaway(&out, lastStream: lastPeerStream, code: .noError, debug: debug)
        for s in streams.values { s.handle.goAway() }
    }

    /// The connection is gone: every stream fails, waking its handler.
    func closeAll(_ reason: HTTP2StreamClosed) {
        let all = streams.values
        streams = [:]
        ready = []
        for s in all { s.handle.fail(reason) }
    }

    // MARK: Frames

    private func process(_ f: HTTP2Frame, _ out: inout [UInt8]) throws(HTTP2ConnectionError) {
        if let block = headerBlock {
            guard f.type == HTTP2FrameType.continuation, f.streamId == block.stream else {
                throw HTTP2ConnectionError(.protocolError, "expected CONTINUATION for stream \(block.stream), got \(HTTP2FrameType.name(f.type))")
            }
            headerBlock!.bytes.append(contentsOf: f.payload)
            guard headerBlock!.bytes.count <= limits.maxHeaderBlockBytes else {
                throw HTTP2ConnectionError(.enhanceYourCalm, "header block exceeds \(limits.maxHeaderBlockBytes) bytes")
            }
            if f.has(HTTP2Flag.endHeaders) {
                let b = headerBlock!
                headerBlock = nil
                try finishHeaders(b.stream, b.endStream, b.bytes, &out)
            }
            return
        }
        guard sawSettings || f.type == HTTP2FrameType.settings && !f.has(HTTP2Flag.ack) else {
            throw HTTP2ConnectionError(.protocolError, "the client preface must be followed by SETTINGS, got \(HTTP2FrameType.name(f.type))")
        }
        switch f.type {
        case HTTP2FrameType.data: try data(f, &out)
        case HTTP2FrameType.headers: try headers(f, &out)
        case HTTP2FrameType.priority:
            guard f.streamId != 0 else { throw HTTP2ConnectionError(.protocolError, "PRIORITY on stream 0") }
            if f.payload.count != 5 { streamError(f.streamId, .frameSizeError, &out) }
        case HTTP2FrameType.rstStream: try rstStream(f)
        case HTTP2FrameType.settings: try settings(f, &out)
        case HTTP2FrameType.pushPromise: throw HTTP2ConnectionError(.protocolError, "clients must not send PUSH_PROMISE")
        case HTTP2FrameType.ping:
            guard f.streamId == 0 else { throw HTTP2ConnectionError(.protocolError, "PING on stream \(f.streamId)") }
            guard f.payload.count == 8 else { throw HTTP2ConnectionError(.frameSizeError, "PING payload of \(f.payload.count) bytes (must be 8)") }
            // Every ping is answered, however often: policing pings only disconnects clients.
            if !f.has(HTTP2Flag.ack) { HTTP2FrameWriter.append(&out, type: HTTP2FrameType.ping, flags: HTTP2Flag.ack, stream: 0, payload: f.payload) }
        case HTTP2FrameType.goaway:
            guard f.streamId == 0 else { throw HTTP2ConnectionError(.protocolError, "GOAWAY on stream \(f.streamId)") }
            guard f.payload.count >= 8 else { throw HTTP2ConnectionError(.frameSizeError, "GOAWAY payload of \(f.payload.count) bytes") }
            peerGoingAway = true
        case HTTP2FrameType.windowUpdate: try windowUpdate(f, &out)
        case HTTP2FrameType.continuation:
            throw HTTP2ConnectionError(.protocolError, "CONTINUATION without a preceding HEADERS")
        default:
            break  // Unknown frame types are ignored (RFC 9113 §4.1).
        }
    }

    /// The payload without padding (PADDED flag: one length byte, then that many bytes at the end).
    func unpadded(_ f: HTTP2Frame, extra: Int = 0) throws(HTTP2ConnectionError) -> ArraySlice<UInt8> {
        var start = 0, end = f.payload.count
        if f.has(HTTP2Flag.padded) {
            guard end >= 1 else { throw HTTP2ConnectionError(.frameSizeError, "\(HTTP2FrameType.name(f.type)) frame too short for its padding length") }
            let pad = Int(f.payload[0])
            start = 1
            guard pad <= end - 1 - extra else {
                throw HTTP2ConnectionError(.protocolError, "\(HTTP2FrameType.name(f.type)) padding of \(pad) bytes exceeds the payload")
            }
            end -= pad
        }
        guard end - start >= extra else { throw HTTP2ConnectionError(.frameSizeError, "\(HTTP2FrameType.name(f.type)) frame too short") }
        return f.payload[(start + extra)..<end]
    }

    private func data(_ f: HTTP2Frame, _ out: inout [UInt8]) throws(HTTP2ConnectionError) {
        guard f.streamId != 0 else { throw HTTP2ConnectionError(.protocolError, "DATA on stream 0") }
        let body = try unpadded(f)
        let length = f.payload.count
        connRecvWindow -= length
        guard connRecvWindow >= 0 else {
            throw HTTP2ConnectionError(.flowControlError, "DATA exceeds the connection flow-control window")
        }
        connUnacked += length
        defer { refillConnection(&out) }
        guard var s = streams[f.streamId] else {
            if f.streamId > lastPeerStream { throw HTTP2ConnectionError(.protocolError, "DATA on idle stream \(f.streamId)") }
            return  // A stream we already closed or reset: counted against the window, then dropped.
        }
        if s.remoteClosed {
            streamError(f.streamId, .streamClosed, &out)
            return
        }
        s.recvWindow -= length
        guard s.recvWindow >= 0 else {
            streamError(f.streamId, .flowControlError, &out)
            return
        }
        s.unacked += length - body.count  // padding is never read by the handler
        s.buffered += body.count
        totalBuffered += body.count
        if f.has(HTTP2Flag.endStream) { s.remoteClosed = true }
        streams[f.streamId] = s
        if !body.isEmpty { s.handle.deliver(Array(body)) }
        if s.remoteClosed {
            s.handle.deliverEnd()
            closeIfDone(f.streamId, &out)
        }
    }

    private func headers(_ f: HTTP2Frame, _ out: inout [UInt8]) throws(HTTP2ConnectionError) {
        guard f.streamId != 0 else { throw HTTP2ConnectionError(.protocolError, "HEADERS on stream 0") }
        // A PRIORITY flag adds 5 bytes of priority data before the fragment; priorities are ignored.
        let fragment = try unpadded(f, extra: f.has(HTTP2Flag.priority) ? 5 : 0)
        if f.has(HTTP2Flag.endHeaders) {
            try finishHeaders(f.streamId, f.has(HTTP2Flag.endStream), Array(fragment), &out)
        } else {
            guard fragment.count <= limits.maxHeaderBlockBytes else {
                throw HTTP2ConnectionError(.enhanceYourCalm, "header block exceeds \(limits.maxHeaderBlockBytes) bytes")
            }
            headerBlock = (f.streamId, f.has(HTTP2Flag.endStream), Array(fragment))
        }
    }

    private func finishHeaders(_ id: UInt32, _ endStream: Bool, _ block: [UInt8], _ out: inout [UInt8]) throws(HTTP2ConnectionError) {
        // Decode first, always: skipping a block would desynchronise the HPACK dynamic table.
        let decoded: HPACKDecodedBlock
        do { decoded = try decoder.decode(block) } catch {
            throw HTTP2ConnectionError(.compressionError, "header block could not be decoded: \(error.message)")
        }
        if var s = streams[id] {
            // Trailers from the client: they must end the stream; their content is not used.
            guard endStream, !s.remoteClosed else {
                streamError(id, .protocolError, &out)
                return
            }
            s.remoteClosed = true
            streams[id] = s
            s.handle.deliverEnd()
            closeIfDone(id, &out)
            return
        }
        guard id & 1 == 1 else { throw HTTP2ConnectionError(.protocolError, "client stream ids must be odd, got \(id)") }
        guard id > lastPeerStream else { return }  // closed earlier (e.g. trailers after our reset)
        lastPeerStream = id
        if goingAway || peerGoingAway || streams.count >= limits.maxConcurrentStreams {
            HTTP2FrameWriter.rstStream(&out, stream: id, code: .refusedStream)
            return
        }
        if decoded.listTooLarge {
            let message = "request header list exceeds \(limits.maxHeaderListSize) bytes (SETTINGS_MAX_HEADER_LIST_SIZE)"
            let fields = [HPACKHeaderField(name: ":status", value: "431", neverIndexed: false),
                          HPACKHeaderField(name: "content-type", value: "application/grpc", neverIndexed: false),
                          HPACKHeaderField(name: "grpc-status", value: "8", neverIndexed: false),
                          HPACKHeaderField(name: "grpc-message", value: GRPCStatus.percentEncode(message), neverIndexed: false)]
            writeHeaderBlock(id, encoder.encode(fields), endStream: true, &out)
            if !endStream { HTTP2FrameWriter.rstStream(&out, stream: id, code: .noError) }
            return
        }
        if Self.validateRequest(decoded.fields) != nil {
            // A malformed request is a stream error (RFC 9113 §8.1.1): only this stream ends.
            HTTP2FrameWriter.rstStream(&out, stream: id, code: .protocolError)
            return
        }
        let post = self.post
        let handle = HTTP2Stream(id: id, requestHeaders: decoded.fields, remoteAddress: remote) { post(id, $0) }
        streams[id] = StreamState(handle: handle, sendWindow: peerInitialWindow, recvWindow: limits.initialStreamWindow, remoteClosed: endStream)
        onStream(handle, endStream)
        if endStream { handle.deliverEnd() }
    }
}
