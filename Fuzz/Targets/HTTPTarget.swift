import EmulatorHTTP

/// The `http` target: the request parser fed in chunks, every request routed.
///
/// Chunk sizes come from the input itself (the byte at the start of a chunk picks its length,
/// 1...64), so a given input always splits the same way. The same input is also parsed in one
/// piece, and the two runs must yield the same requests: the parser promises that chunking
/// never changes what it parses.
public enum HTTPTarget {
    /// The head limit: small, so that inputs of a few kilobytes reach it.
    static let maxHeaderBytes = 1024
    /// The body limit, small for the same reason.
    static let maxBodyBytes = 4096

    /// Runs the target on `data`.
    public static func run(_ data: [UInt8]) throws(FuzzViolation) {
        var chunked = HTTPRequestParser(maxHeaderBytes: maxHeaderBytes, maxBodyBytes: maxBodyBytes)
        var inChunks: [String] = []
        var failedInChunks = false
        var i = 0
        while i < data.count {
            let n = 1 + Int(data[i] % 64)
            chunked.feed(data[i..<min(data.count, i + n)])
            i += n
            failedInChunks = drain(&chunked, into: &inChunks) || failedInChunks
        }
        var whole = HTTPRequestParser(maxHeaderBytes: maxHeaderBytes, maxBodyBytes: maxBodyBytes)
        whole.feed(data)
        var inOnePiece: [String] = []
        let failedInOnePiece = drain(&whole, into: &inOnePiece)
        guard inChunks == inOnePiece, failedInChunks == failedInOnePiece else {
            throw FuzzViolation(
                .http,
                "chunked parse gave \(inChunks.count) request(s) (error: \(failedInChunks)), "
                    + "one-piece parse \(inOnePiece.count) (error: \(failedInOnePiece))")
        }
        // Streaming every POST body (uploads) must give the same requests, body for body.
        var streaming = HTTPRequestParser(
            maxHeaderBytes: maxHeaderBytes, maxBodyBytes: maxBodyBytes,
            streamingPolicy: { $0.method == "POST" ? maxBodyBytes : nil })
        var streamed: [String] = []
        var failedStreaming = false
        var current: HTTPRequest?
        i = 0
        while i < data.count && !failedStreaming {
            let n = 1 + Int(data[i] % 64)
            streaming.feed(data[i..<min(data.count, i + n)])
            i += n
            failedStreaming = drainStreaming(&streaming, current: &current, into: &streamed)
        }
        guard streamed == inOnePiece, failedStreaming == failedInOnePiece else {
            throw FuzzViolation(
                .http,
                "streamed bodies gave \(streamed.count) request(s) (error: \(failedStreaming)), "
                    + "buffered \(inOnePiece.count) (error: \(failedInOnePiece))")
        }
    }

    /// Like `drain`, for a parser that streams bodies: a streamed request (`current`: its head and
    /// body so far) counts once its body ended.
    static func drainStreaming(_ parser: inout HTTPRequestParser, current: inout HTTPRequest?, into requests: inout [String]) -> Bool {
        while true {
            if parser.isStreamingBody {
                switch parser.nextBodyPart() {
                case .bytes(let b): current?.body += b
                case .end:
                    if let r = current { requests.append(summary(r)) }
                    current = nil
                case .needMore: return false
                case .error: return true
                }
                continue
            }
            switch parser.next() {
            case .request(let req):
                if parser.isStreamingBody { current = req } else { requests.append(summary(req)) }
            case .expectContinue: continue
            case .needMore: return false
            case .error: return true
            }
        }
    }

    /// Takes every event the parser has, routing each request; appends a summary of each request
    /// to `requests` and returns true when the parser reported an error.
    static func drain(_ parser: inout HTTPRequestParser, into requests: inout [String]) -> Bool {
        while true {
            switch parser.next() {
            case .request(let req):
                route(req)
                requests.append(summary(req))
            case .expectContinue: continue
            case .needMore: return false
            case .error: return true
            }
        }
    }

    /// What the rest of the server reads from a request: query items, the decoded path, a route.
    static func route(_ req: HTTPRequest) {
        _ = req.queryItems
        _ = PercentEncoding.decode(req.path)
        if case .found(_, let match) = FuzzRouter.router.resolve(method: req.method, path: req.path) {
            for segments in match.wildcardSegments.values { _ = segments.joined(separator: "/") }
        }
    }

    /// Everything the parser decided about a request, as one comparable string.
    static func summary(_ req: HTTPRequest) -> String {
        var s = "\(req.method) \(req.target) \(req.version)\n"
        for (name, value) in req.headers { s += "\(name): \(value)\n" }
        return s + "\n" + String(decoding: req.body, as: UTF8.self) + "|\(req.body.count)"
    }
}
