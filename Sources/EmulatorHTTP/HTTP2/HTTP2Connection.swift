import EmulatorCore

/// The server side of one HTTP/2 connection (RFC 9113): frames in, frames out, streams, HPACK
/// state and flow control in both directions, and the flood limits (`HTTP2FloodGuard`).
///
/// Confined to the event-loop thread (it is never shared); handlers talk to it only through
/// their `HTTP2Stream`, whose commands the loop hands to `handle(stream:_:into:)`.
final class HTTP2Connection {
    /// A queued piece of a stream's response, framed in order.
    enum Outbound {
        case headers([HPACKHeaderField], endStream: Bool)
        case data([UInt8], offset: Int, endStream: Bool)
    }

    /// One open stream: its handle, both windows, what it has buffered and what it still has to send.
    /// A class, changed in place: as a struct in `streams`, every change was a copy out of the
    /// dictionary and a write back (two hash lookups, and retains and releases of its handle and
    /// queue), several times per stream. Confined to the loop thread, as its connection is.
    final class StreamState {
        let handle: HTTP2Stream
        var sendWindow: Int
        var recvWindow: Int
        var unacked = 0
        var buffered = 0
        var remoteClosed: Bool
        var localClosed = false
        var outbound: [Outbound] = []
        var outHead = 0
        /// In `ready` (at most once there).
        var queuedToSend = false
        /// In `waitingForConnectionWindow` (at most once there).
        var waitsForConnectionWindow = false
        var hasOutbound: Bool { outHead < outbound.count }

        /// A new stream with its initial windows.
        init(handle: HTTP2Stream, sendWindow: Int, recvWindow: Int, remoteClosed: Bool) {
            self.handle = handle
            self.sendWindow = sendWindow
            self.recvWindow = recvWindow
            self.remoteClosed = remoteClosed
        }
    }

    /// Settings and limits.
    let limits: HTTP2Limits
    /// The peer's address (for handlers and logs).
    let remote: String
    /// Carries a stream handle's commands to the event loop.
    let post: @Sendable (UInt32, HTTP2StreamCommand) -> Void
    /// Starts the handler of a new request stream.
    let onStream: (HTTP2Stream, _ endStream: Bool) -> Void
    /// Told when a stream's request has ended (END_STREAM on DATA or trailers) after its handler
    /// was started, so a call whose handler was held back (`EventLoop`'s inline gRPC answers) can
    /// be answered now. Must not write to the connection's output: it runs inside `receive`.
    var onRequestEnd: ((HTTP2Stream) -> Void)?
    /// Monotonic nanoseconds (injected: the fuzzer and the tests use a clock of their own).
    let clock: () -> UInt64
    /// Open streams of every connection of the server together.
    let quota: HTTP2StreamQuota
    /// Response bytes the handlers of this connection have queued.
    let sendBudget: HTTP2SendBudget

    /// Splits received bytes into frames.
    var parser: HTTP2FrameParser
    /// Request header decompression (one dynamic table per connection).
    var decoder: HPACKDecoder
    /// Response header compression, used in frame order by `pump`.
    var encoder = HPACKEncoder()
    /// Open streams by id.
    var streams = StreamTable<StreamState>()
    /// Commands given on the loop thread itself (`queueFromLoop`), applied by the next `pump`.
    var fromLoop: [(UInt32, HTTP2StreamCommand)] = []
    /// Streams whose queued output can make progress, in turn order (`readyHead` is the next).
    var ready: [UInt32] = []
    /// The first entry of `ready` not yet taken.
    var readyHead = 0
    /// Streams waiting for the connection's send window (a stream waiting for its own window is
    /// in neither list: its WINDOW_UPDATE puts it back).
    var waitingForConnectionWindow: [UInt32] = []
    /// Streams whose handler waits for a free slot (`HTTP2Connection+Admission`), in order;
    /// `waitingHead` is the next.
    var waitingToStart: [UInt32] = []
    /// The first entry of `waitingToStart` not yet taken.
    var waitingHead = 0
    /// Handlers working on an unanswered request, with their start times (by stream id, in a
    /// `StreamTable`: every call starts and ends one, and a dictionary hashed the id twice).
    var working = StreamTable<UInt64>()
    /// The highest stream id the peer opened (GOAWAY names it).
    var lastPeerStream: UInt32 = 0
    /// Streams we reset lately: frames on them are ignored, not protocol errors.
    var resetMemory: HTTP2ResetMemory
    /// What the peer makes us do cheaply, counted.
    var floodGuard: HTTP2FloodGuard
    /// The peer's first SETTINGS arrived (nothing else may come before it).
    var sawSettings = false
    /// The peer acknowledged our SETTINGS.
    var peerAckedSettings = false
    /// A header block waiting for its CONTINUATIONs (and whether its priority names itself).
    var headerBlock: (stream: UInt32, endStream: Bool, selfDependent: Bool, bytes: [UInt8])?
    /// The peer's SETTINGS_INITIAL_WINDOW_SIZE (new streams' send window).
    var peerInitialWindow = 65_535
    /// The peer's SETTINGS_MAX_FRAME_SIZE (our frames never exceed it).
    var peerMaxFrameSize = 16_384
    /// How much DATA the peer lets us send on the connection.
    var connSendWindow = 65_535
    /// How much DATA the peer may still send on the connection.
    var connRecvWindow: Int
    /// Received DATA not yet given back with a connection WINDOW_UPDATE.
    var connUnacked = 0
    /// Request bytes delivered to handlers and not read yet.
    var totalBuffered = 0
    /// GOAWAY sent: no new streams; the connection closes once the open ones finish.
    private(set) var goingAway = false
    /// The peer sent GOAWAY.
    private(set) var peerGoingAway = false

    /// Creates the connection. `post` carries a stream's commands to the loop; `onStream` starts
    /// the handler of a new request stream; `quota` is shared with the server's other connections.
    init(
        limits: HTTP2Limits, remote: String, quota: HTTP2StreamQuota? = nil, clock: @escaping () -> UInt64 = MonotonicClock.nanoseconds,
        post: @escaping @Sendable (UInt32, HTTP2StreamCommand) -> Void, onStream: @escaping (HTTP2Stream, _ endStream: Bool) -> Void
    ) {
        self.limits = limits
        self.remote = remote
        self.post = post
        self.onStream = onStream
        self.clock = clock
        self.quota = quota ?? HTTP2StreamQuota(limit: limits.maxConcurrentStreams)
        sendBudget = HTTP2SendBudget(limit: limits.queuedOutputBudget)
        parser = HTTP2FrameParser(maxFrameSize: limits.maxFrameSize)
        decoder = HPACKDecoder(maxTableSize: 4096, maxHeaderListSize: limits.maxHeaderListSize)
        connRecvWindow = limits.connectionWindow
        resetMemory = HTTP2ResetMemory(capacity: limits.rememberedResets)
        floodGuard = HTTP2FloodGuard(reset: limits.resets, answered: limits.answeredFrames, empty: limits.emptyFrames, now: clock())
    }

    /// Open streams.
    var openStreamCount: Int { streams.count }

    /// True when some stream has output that can be framed now, or commands given on the loop
    /// wait for `pump`.
    var hasReadyOutput: Bool { readyHead < ready.count || !fromLoop.isEmpty }

    /// Writes the server preface: our SETTINGS, then a WINDOW_UPDATE opening the connection window.
    func start(into out: inout [UInt8]) {
        HTTP2FrameWriter.settings(
            &out,
            [
                (HTTP2Setting.maxConcurrentStreams, UInt32(clamping: limits.maxConcurrentStreams)),
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

    /// The connection is gone: every stream fails, waking its handler, and their memory is freed.
    func closeAll(_ reason: HTTP2StreamClosed) {
        let all = streams.values
        quota.closed(streams.count)
        streams = StreamTable()
        fromLoop = []
        ready = []
        readyHead = 0
        waitingForConnectionWindow = []
        waitingToStart = []
        waitingHead = 0
        working = StreamTable()
        totalBuffered = 0
        sendBudget.close()
        for s in all { s.handle.fail(reason) }
    }

    // MARK: Streams

    /// Registers a new stream.
    func openStream(_ id: UInt32, _ state: StreamState) {
        streams[id] = state
        quota.opened()
    }

    /// Forgets a stream (its buffered input no longer counts against the connection window).
    /// The caller fails its handle.
    @discardableResult
    func forgetStream(_ id: UInt32) -> StreamState? {
        guard let s = streams.removeValue(forKey: id) else { return nil }
        totalBuffered -= s.buffered
        quota.closed(1)
        answered(id)
        return s
    }

    /// Sends RST_STREAM on `id` and remembers it, so frames already on their way are ignored.
    func sendReset(_ id: UInt32, _ code: HTTP2ErrorCode, _ out: inout [UInt8]) {
        HTTP2FrameWriter.rstStream(&out, stream: id, code: code)
        resetMemory.insert(id)
    }

    /// Counts one frame of `kind`; past its limit the connection ends with ENHANCE_YOUR_CALM.
    func count(_ kind: HTTP2FloodGuard.Kind) throws(HTTP2ConnectionError) {
        guard floodGuard.take(kind, now: clock()) else {
            throw HTTP2ConnectionError(.enhanceYourCalm, "too many \(kind.name)")
        }
    }

    // MARK: Frames

    private func process(_ f: HTTP2Frame, _ out: inout [UInt8]) throws(HTTP2ConnectionError) {
        if var block = headerBlock {
            guard f.type == HTTP2FrameType.continuation, f.streamId == block.stream else {
                throw HTTP2ConnectionError(.protocolError, "expected CONTINUATION for stream \(block.stream), got \(HTTP2FrameType.name(f.type))")
            }
            if f.payload.isEmpty && !f.has(HTTP2Flag.endHeaders) { try count(.empty) }
            headerBlock = nil  // keeps the bytes uniquely referenced while they grow
            block.bytes.append(contentsOf: f.payload)
            guard block.bytes.count <= limits.maxHeaderBlockBytes else {
                throw HTTP2ConnectionError(.enhanceYourCalm, "header block exceeds \(limits.maxHeaderBlockBytes) bytes")
            }
            if f.has(HTTP2Flag.endHeaders) {
                try finishHeaders(block.stream, block.endStream, block.selfDependent, block.bytes, &out)
            } else {
                headerBlock = block
            }
            return
        }
        guard sawSettings || f.type == HTTP2FrameType.settings && !f.has(HTTP2Flag.ack) else {
            throw HTTP2ConnectionError(.protocolError, "the client preface must be followed by SETTINGS, got \(HTTP2FrameType.name(f.type))")
        }
        switch f.type {
        case HTTP2FrameType.data: try data(f, &out)
        case HTTP2FrameType.headers: try headers(f, &out)
        case HTTP2FrameType.priority: try priority(f, &out)
        case HTTP2FrameType.rstStream: try rstStream(f)
        case HTTP2FrameType.settings: try settings(f, &out)
        case HTTP2FrameType.pushPromise: throw HTTP2ConnectionError(.protocolError, "clients must not send PUSH_PROMISE")
        case HTTP2FrameType.ping:
            guard f.streamId == 0 else { throw HTTP2ConnectionError(.protocolError, "PING on stream \(f.streamId)") }
            guard f.payload.count == 8 else { throw HTTP2ConnectionError(.frameSizeError, "PING payload of \(f.payload.count) bytes (must be 8)") }
            // Answered while the peer reads the answers (the loop stops reading a connection
            // whose output is not drained) and up to a generous rate.
            if f.has(HTTP2Flag.ack) {
                try count(.empty)  // we never send PINGs: an acknowledgement is noise
            } else {
                try count(.answered)
                HTTP2FrameWriter.append(&out, type: HTTP2FrameType.ping, flags: HTTP2Flag.ack, stream: 0, payload: f.payload)
            }
        case HTTP2FrameType.goaway:
            guard f.streamId == 0 else { throw HTTP2ConnectionError(.protocolError, "GOAWAY on stream \(f.streamId)") }
            guard f.payload.count >= 8 else { throw HTTP2ConnectionError(.frameSizeError, "GOAWAY payload of \(f.payload.count) bytes") }
            if peerGoingAway { try count(.empty) }
            peerGoingAway = true
        case HTTP2FrameType.windowUpdate: try windowUpdate(f, &out)
        case HTTP2FrameType.continuation:
            throw HTTP2ConnectionError(.protocolError, "CONTINUATION without a preceding HEADERS")
        default:
            try count(.empty)  // Unknown frame types are ignored (RFC 9113 §4.1), and counted.
        }
    }

    /// The payload without padding (PADDED flag: one length byte, then that many bytes at the end).
    func unpadded(_ f: HTTP2Frame, extra: Int = 0) throws(HTTP2ConnectionError) -> ArraySlice<UInt8> {
        var start = 0, end = f.payload.count
        if f.has(HTTP2Flag.padded) {
            guard end >= 1 else {
                throw HTTP2ConnectionError(.frameSizeError, "\(HTTP2FrameType.name(f.type)) frame too short for its padding length")
            }
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
        if body.isEmpty && !f.has(HTTP2Flag.endStream) { try count(.empty) }
        let length = f.payload.count
        connRecvWindow -= length
        guard connRecvWindow >= 0 else {
            throw HTTP2ConnectionError(.flowControlError, "DATA exceeds the connection flow-control window")
        }
        connUnacked += length
        defer { refillConnection(&out) }
        guard let s = streams[f.streamId] else {
            if f.streamId > lastPeerStream { throw HTTP2ConnectionError(.protocolError, "DATA on idle stream \(f.streamId)") }
            return  // A stream we already closed or reset: counted against the window, then dropped.
        }
        if s.remoteClosed {
            try streamError(f.streamId, .streamClosed, &out)
            return
        }
        s.recvWindow -= length
        guard s.recvWindow >= 0 else {
            try streamError(f.streamId, .flowControlError, &out)
            return
        }
        s.unacked += length - body.count  // padding is never read by the handler
        s.buffered += body.count
        totalBuffered += body.count
        if f.has(HTTP2Flag.endStream) { s.remoteClosed = true }
        if !body.isEmpty { s.handle.deliver(Array(body)) }
        if s.remoteClosed {
            s.handle.deliverEnd()
            onRequestEnd?(s.handle)
            closeIfDone(f.streamId, &out)
        }
    }
}
