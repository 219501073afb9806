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

    /// The methods served; any other is answered 501. The most frequent first: `knownMethod`
    /// tries them in order.
    public static let knownMethods = ["GET", "POST", "PATCH", "PUT", "DELETE", "HEAD", "OPTIONS"]

    /// The `knownMethods` entry spelled by `bytes`, or nil.
    static func knownMethod(_ bytes: ArraySlice<UInt8>) -> String? {
        for m in knownMethods where bytes.elementsEqual(m.utf8) { return m }
        return nil
    }

    private enum Framing: Sendable {
        case length(Int)
        case chunked
    }

    private struct Head: Sendable {
        var method: String
        var target: String
        var version: String
        var headers: HTTPHeaders
        var framing: Framing
        var expectsContinue: Bool
        /// The body is handed out in pieces (`nextBodyPart`), not buffered.
        var streamsBody = false
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
    private var head: Head?
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
            switch parseHead(buffer[start..<end]) {
            case .failure(let e): return .error(e)
            case .success(var h):
                start = end + 4
                scan = start
                body = []
                bodyTotal = 0
                chunk = .size
                continueSent = false
                bodyLimit = maxBodyBytes
                if let policy = streamingPolicy,
                    let limit = policy(HTTPRequest(method: h.method, target: h.target, headers: h.headers, version: h.version))
                {
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
            return .request(HTTPRequest(method: h.method, target: h.target, headers: h.headers, version: h.version))
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
        let request = HTTPRequest(method: h.method, target: h.target, headers: h.headers, body: body, version: h.version)
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
        var i = max(scan, start)
        let n = buffer.count
        while i + 3 < n {
            if buffer[i] == 13 && buffer[i + 1] == 10 && buffer[i + 2] == 13 && buffer[i + 3] == 10 { return i }
            // A LF without CR would never end the head: fail now instead of waiting for a timeout.
            if buffer[i + 1] == 10 && buffer[i] != 13 {
                bareLineFeed = true
                return nil
            }
            i += 1
        }
        scan = max(start, n - 3)
        return nil
    }

    private func parseHead(_ bytes: ArraySlice<UInt8>) -> Result<Head, HTTPParseError> {
        var lines: [ArraySlice<UInt8>] = []
        var lineStart = bytes.startIndex
        var i = bytes.startIndex
        while i < bytes.endIndex {
            if bytes[i] == 13 {
                guard i + 1 < bytes.endIndex, bytes[i + 1] == 10 else { return .failure(.badRequest("bare CR in request head")) }
                lines.append(bytes[lineStart..<i])
                i += 2
                lineStart = i
                continue
            }
            if bytes[i] == 10 { return .failure(.badRequest("bare LF in request head")) }
            i += 1
        }
        lines.append(bytes[lineStart..<bytes.endIndex])
        let requestLine = lines[0].split(separator: 32, omittingEmptySubsequences: false)
        guard requestLine.count == 3, !requestLine[0].isEmpty, !requestLine[1].isEmpty else {
            return .failure(.badRequest("malformed request line"))
        }
        guard requestLine[0].allSatisfy(Self.isTokenByte) else { return .failure(.badRequest("invalid method")) }
        // A known method is one of the literals (no new string per request); the rest are refused below.
        let known = Self.knownMethod(requestLine[0])
        let method = known ?? String(decoding: requestLine[0], as: UTF8.self)
        guard requestLine[1].allSatisfy({ $0 > 32 && $0 < 127 }) else { return .failure(.badRequest("invalid request target")) }
        let target = String(decoding: requestLine[1], as: UTF8.self)
        guard target.hasPrefix("/") || (method == "OPTIONS" && target == "*") else {
            return .failure(.badRequest("request target must start with '/'"))
        }
        let versionBytes = requestLine[2]
        let version: String
        if versionBytes.elementsEqual("HTTP/1.1".utf8) {
            version = "HTTP/1.1"
        } else if versionBytes.elementsEqual("HTTP/1.0".utf8) {
            version = "HTTP/1.0"
        } else {
            version = String(decoding: versionBytes, as: UTF8.self)
        }
        guard version.hasPrefix("HTTP/"), version.count == 8 else { return .failure(.badRequest("malformed HTTP version")) }
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            let v = version.dropFirst(5)
            if v.first?.isNumber == true && v.last?.isNumber == true && v.dropFirst().first == "." { return .failure(.versionNotSupported) }
            return .failure(.badRequest("malformed HTTP version"))
        }
        guard known != nil else { return .failure(.notImplemented("method \(method)")) }
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: 58), colon > line.startIndex else {
                return .failure(.badRequest("malformed header line"))
            }
            let name = line[line.startIndex..<colon]
            guard name.allSatisfy(Self.isTokenByte) else { return .failure(.badRequest("invalid header name")) }
            var v = line[(colon + 1)...]
            while let f = v.first, f == 32 || f == 9 { v = v.dropFirst() }
            while let l = v.last, l == 32 || l == 9 { v = v.dropLast() }
            guard v.allSatisfy({ $0 == 9 || $0 >= 32 && $0 != 127 }) else { return .failure(.badRequest("invalid header value")) }
            headers.add(String(decoding: name, as: UTF8.self), String(decoding: v, as: UTF8.self))
        }
        // RFC 9112 §3.2 requires exactly one Host: a missing one is tolerated (raw-socket tools
        // omit it), but two are refused, whatever their values, so no later layer ever has to
        // choose between them (one could pass the DNS-rebinding check while another is used).
        guard headers.count(of: "Host") <= 1 else { return .failure(.badRequest("more than one Host header")) }
        // Looked up as lists only when present: most requests have neither.
        let te = headers.count(of: "Transfer-Encoding") == 0 ? [] : headers.values("Transfer-Encoding")
        let cl = headers.count(of: "Content-Length") == 0 ? [] : headers.values("Content-Length")
        var framing: Framing = .length(0)
        if !te.isEmpty {
            guard cl.isEmpty else { return .failure(.badRequest("both Content-Length and Transfer-Encoding")) }
            let codings = te.joined(separator: ",").split(separator: ",").map { $0.trimming(" \t").lowercased() }
            guard codings == ["chunked"] else { return .failure(.notImplemented("transfer coding \(te.joined(separator: ","))")) }
            framing = .chunked
        } else if !cl.isEmpty {
            let values = Set(cl.flatMap { $0.split(separator: ",").map { $0.trimming(" \t") } })
            guard values.count == 1, let text = values.first, !text.isEmpty, text.utf8.count <= 18,
                text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let n = Int(text)
            else {
                return .failure(.badRequest("invalid Content-Length"))
            }
            framing = .length(n)  // checked against the request's limit once the policy has seen the head
        }
        let expects = headers["Expect"]?.lowercased() == "100-continue" && version == "HTTP/1.1"
        return .success(Head(method: method, target: target, version: version, headers: headers, framing: framing, expectsContinue: expects))
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

    static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
        default: return "!#$%&'*+-.^_`|~".utf8.contains(b)
        }
    }
}
