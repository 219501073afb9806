import EmulatorCore

/// An incremental HTTP/1.x request parser: a pure state machine with no I/O. Feed it bytes in
/// any chunking; `next()` yields complete requests in order. The same input always gives the same
/// requests however it is split (the byte-replay tests check this).
///
/// A request whose head the `streamingPolicy` accepts (uploads) is returned as soon as its head
/// is complete, with an empty body; its body then comes out of `nextBodyPart()` piece by piece,
/// de-chunked and limited by the size the policy gave, while `isStreamingBody` is true. Every
/// other request keeps `maxBodyBytes` and arrives whole.
public struct HTTPRequestParser: Sendable {
    /// What `next()` found.
    public enum Event: Sendable {
        /// A complete request.
        case request(HTTPRequest)
        /// The head of a request with `Expect: 100-continue` arrived and its body has not; the
        /// server should send `100 Continue` (reported once per request).
        case expectContinue
        /// More bytes are needed.
        case needMore
        /// The input is invalid; the connection must be answered with `status` and closed.
        case error(HTTPParseError)
    }

    private enum ChunkState: Sendable {
        case size
        case data(Int)
        case dataCRLF
        case trailers
    }

    private let maxHeaderBytes: Int
    private let maxBodyBytes: Int
    private var buffer: [UInt8] = []
    private var start = 0  // first unconsumed byte
    private var scan = 0  // where the search for the end of the head, or of a chunk line, resumes
    private var trailerBytes = 0  // the trailer section so far, limited like a head
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var chunk: ChunkState = .size
    private var continueSent = false
    private var failed: HTTPParseError?
    /// Bytes of the current body so far (also those already handed out by `nextBodyPart`).
    private var bodyTotal = 0
    /// The current request's body limit: `maxBodyBytes`, or what the streaming policy gave.
    private var bodyLimit = 0
    private let streamingPolicy: HTTPBodyStreamingPolicy?
    /// The current request was returned at its head; its body goes out through `nextBodyPart`.
    private var streamed = false
    /// The streamed body's framing ended while its last bytes were being handed out.
    private var streamComplete = false

    /// Creates a parser with the given limits; `streamingPolicy` picks the requests whose body is
    /// streamed (and their own limit).
    public init(maxHeaderBytes: Int = 64 * 1024, maxBodyBytes: Int = 32 * 1024 * 1024, streamingPolicy: HTTPBodyStreamingPolicy? = nil) {
        self.maxHeaderBytes = maxHeaderBytes
        self.maxBodyBytes = maxBodyBytes
        self.streamingPolicy = streamingPolicy
    }

    /// True from the moment a streamed request is returned until its body has ended (or failed).
    public var isStreamingBody: Bool { streamed && failed == nil }

    /// Appends received bytes.
    public mutating func feed(_ bytes: some Collection<UInt8>) {
        if start > 0 && start == buffer.count {
            // A large body's buffer is not kept for the rest of a keep-alive connection.
            buffer.removeAll(keepingCapacity: buffer.capacity <= 64 * 1024)
            scan = 0
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Appends received bytes from a raw buffer.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        feed(bytes.bindMemory(to: UInt8.self))
    }

    /// Bytes received and not yet returned as part of a request.
    public var bufferedByteCount: Int { buffer.count - start }

    /// True when bytes of an unfinished request are buffered.
    public var hasPartialRequest: Bool { head != nil || start < buffer.count }

    /// The bytes the body of the request being read whole will take, as far as its framing has
    /// said: its `Content-Length` as soon as the head is in, or (chunked) the chunks announced so
    /// far. 0 before a head, between requests, and for a streamed body (it is not buffered).
    public var announcedBodyBytes: Int {
        guard let h = head, !h.streamsBody else { return 0 }
        switch h.framing {
        case .length(let n): return n
        case .chunked:
            if case .data(let remaining) = chunk { return bodyTotal + remaining }
            return bodyTotal
        }
    }

    /// Parses as far as the buffered bytes allow.
    public mutating func next() -> Event {
        if let failed { return .error(failed) }
        let e = step()
        if case .error(let err) = e { failed = err }
        return e
    }

    /// What `nextBodyPart()` found.
    public enum BodyPart: Sendable, Equatable {
        /// The next bytes of the streamed body (never empty).
        case bytes([UInt8])
        /// The body is complete; the parser reads the next request's head again.
        case end
        /// More bytes are needed.
        case needMore
        /// The body is invalid or too large; the connection must be closed after the answer.
        case error(HTTPParseError)
    }

    /// The next piece of a streamed body (only meaningful while `isStreamingBody`): the bytes
    /// buffered so far, de-chunked, up to the end of the body.
    public mutating func nextBodyPart() -> BodyPart {
        if let failed { return .error(failed) }
        guard streamed, let h = head else { return .end }
        if streamComplete { return finishStreamedBody() }
        switch h.framing {
        case .length(let n):
            let take = min(buffer.count - start, n - bodyTotal)
            if take > 0 {
                let out = Array(buffer[start..<(start + take)])
                start += take
                bodyTotal += take
                streamComplete = bodyTotal == n
                return .bytes(out)
            }
            return bodyTotal == n ? finishStreamedBody() : .needMore
        case .chunked:
            let e = readChunks()
            if case .error(let err) = e {
                failed = err
                return .error(err)
            }
            if case .request = e { streamComplete = true }
            if !body.isEmpty {
                defer { body = [] }
                return .bytes(body)
            }
            return streamComplete ? finishStreamedBody() : .needMore
        }
    }

    private mutating func finishStreamedBody() -> BodyPart {
        head = nil
        streamed = false
        streamComplete = false
        scan = start
        trailerBytes = 0
        compact()
        return .end
    }

    private mutating func step() -> Event {
        if streamed { return .needMore }  // the body goes out through `nextBodyPart`
        if head == nil {
            guard let end = findHeadEnd() else {
                // The last 3 bytes may begin the terminator: only more than that proves the head too
                // long, so a head of exactly the limit passes however its terminator is split.
                if buffer.count - start - 3 > maxHeaderBytes { return .error(.headersTooLarge) }
                if bareLineFeed { return .error(.badRequest("bare LF in request head")) }
                return .needMore
            }
            if end - start > maxHeaderBytes { return .error(.headersTooLarge) }
            let parsed = buffer.withUnsafeBufferPointer { HTTPRequestHead.parse(UnsafeBufferPointer(rebasing: $0[start..<end])) }
            switch parsed {
            case .failure(let e): return .error(e)
            case .success(var h):
                start = end + 4
                scan = start
                body = []
                bodyTotal = 0
                chunk = .size
                continueSent = false
                bodyLimit = maxBodyBytes
                if let policy = streamingPolicy, let limit = policy(h.request()) {
                    h.streamsBody = true
                    bodyLimit = max(0, limit)
                }
                if case .length(let n) = h.framing, n > bodyLimit { return .error(.bodyTooLarge) }
                head = h
            }
        }
        guard let h = head else { return .needMore }
        if h.streamsBody {
            if h.expectsContinue && !continueSent && buffer.count == start {
                continueSent = true
                return .expectContinue
            }
            streamed = true
            streamComplete = false
            return .request(h.request())
        }
        switch h.framing {
        case .length(let n):
            let available = buffer.count - start
            if available < n {
                if h.expectsContinue && !continueSent && available == 0 {
                    continueSent = true
                    return .expectContinue
                }
                return .needMore
            }
            body = Array(buffer[start..<(start + n)])
            start += n
            bodyTotal = n
        case .chunked:
            switch readChunks() {
            case .error(let e): return .error(e)
            case .needMore:
                if h.expectsContinue && !continueSent && body.isEmpty {
                    continueSent = true
                    return .expectContinue
                }
                return .needMore
            default: break
            }
        }
        head = nil
        scan = start
        trailerBytes = 0
        compact()
        let request = h.request(body: body)
        body = []
        return .request(request)
    }

    private mutating func compact() {
        if start == buffer.count && buffer.capacity > 64 * 1024 {
            buffer = []  // everything consumed: give a large body's memory back now
            scan = 0
            start = 0
        } else if start > 64 * 1024 && start > buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            scan -= start
            start = 0
        }
    }

    private var bareLineFeed = false

    private mutating func findHeadEnd() -> Int? {
        let from = max(scan, start)
        let n = buffer.count
        // Over the buffer's memory: subscripting the array checked bounds on every byte.
        let found: (end: Int?, bareLF: Bool) = buffer.withUnsafeBufferPointer { p in
            var i = from
            while i + 3 < n {
                if p[i + 1] == 10 {
                    // A LF without CR would never end the head: fail now instead of waiting for a timeout.
                    if p[i] != 13 { return (nil, true) }
                    if p[i + 2] == 13 && p[i + 3] == 10 { return (i, false) }
                }
                i += 1
            }
            return (nil, false)
        }
        if found.bareLF { bareLineFeed = true }
        if found.end == nil && !found.bareLF { scan = max(start, n - 3) }
        return found.end
    }

    /// Consumes chunked framing; `.request` placeholder means "body complete".
    private mutating func readChunks() -> Event {
        while true {
            switch chunk {
            case .size:
                // Each line limit is checked whether or not the CRLF has arrived (a last CR may be
                // half of it), so the answer does not depend on how the input was split.
                guard let eol = findCRLF(from: start) else {
                    if buffer.count - start - 1 > Self.maxChunkSizeLine { return .error(.badRequest("chunk size line too long")) }
                    return .needMore
                }
                guard eol - start <= Self.maxChunkSizeLine else { return .error(.badRequest("chunk size line too long")) }
                var line = buffer[start..<eol]
                if let semi = line.firstIndex(of: 59) { line = line[..<semi] }  // chunk extensions
                while let l = line.last, l == 32 || l == 9 { line = line.dropLast() }
                guard !line.isEmpty, line.count <= 15, let size = Int(String(decoding: line, as: UTF8.self), radix: 16), size >= 0 else {
                    return .error(.badRequest("invalid chunk size"))
                }
                start = eol + 2
                if size == 0 {
                    chunk = .trailers
                    continue
                }
                guard bodyTotal <= bodyLimit - size else { return .error(.bodyTooLarge) }
                chunk = .data(size)
            case .data(let remaining):
                let available = buffer.count - start
                if available == 0 { return .needMore }
                let take = min(available, remaining)
                body.append(contentsOf: buffer[start..<(start + take)])
                start += take
                bodyTotal += take
                chunk = take == remaining ? .dataCRLF : .data(remaining - take)
                if take < remaining { return .needMore }
            case .dataCRLF:
                guard buffer.count - start >= 2 else { return .needMore }
                guard buffer[start] == 13, buffer[start + 1] == 10 else { return .error(.badRequest("missing CRLF after chunk data")) }
                start += 2
                chunk = .size
            case .trailers:
                guard let eol = findCRLF(from: start) else {
                    if trailerBytes + buffer.count - start - 1 > maxHeaderBytes { return .error(.headersTooLarge) }
                    return .needMore
                }
                trailerBytes += eol - start
                guard trailerBytes <= maxHeaderBytes else { return .error(.headersTooLarge) }
                let empty = eol == start
                start = eol + 2
                if empty { return .request(HTTPRequest(method: "", target: "/")) }
            }
        }
    }

    /// The longest chunk-size line (size and extensions) accepted.
    static let maxChunkSizeLine = 4096

    /// The first CRLF at or after `from`. A miss remembers where it stopped, so a line arriving a
    /// byte at a time is scanned once, not once per byte (64 KiB that way took 1.6 s of CPU).
    private mutating func findCRLF(from: Int) -> Int? {
        var i = max(from, scan)
        while i + 1 < buffer.count {
            if buffer[i] == 13 && buffer[i + 1] == 10 { return i }
            i += 1
        }
        scan = max(from, buffer.count - 1)
        return nil
    }
}
