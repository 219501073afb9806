import EmulatorCore

/// The head of one HTTP/1.x request (request line and header fields) and how its body is framed,
/// read from the head's bytes in one pass over contiguous memory.
///
/// A value type, built once per request by `HTTPRequestParser`. `parse` gives the same verdicts,
/// in the same order, as the line-splitting reader it replaced (`HTTPRequestHeadTests` compares
/// the two over generated heads); it only stopped paying for a list of lines, generic slices and a
/// second pass over the target for its `?` (about 14,000 instructions of a document GET).
struct HTTPRequestHead: Sendable {
    /// How the body is delimited.
    enum Framing: Sendable, Equatable {
        /// `Content-Length` bytes (0 without either field).
        case length(Int)
        /// `Transfer-Encoding: chunked`.
        case chunked
    }

    /// One of `knownMethods`.
    var method: String
    /// The request target as sent.
    var target: String
    /// `target` before its first `?` (found while the target was checked).
    var path: String
    /// What follows that `?` ("" without one).
    var rawQuery: String
    /// "HTTP/1.1" or "HTTP/1.0".
    var version: String
    /// The header fields in order.
    var headers: HTTPHeaders
    /// How the body is delimited.
    var framing: Framing
    /// An HTTP/1.1 request sent `Expect: 100-continue`.
    var expectsContinue: Bool
    /// The body is handed out in pieces (`nextBodyPart`), not buffered.
    var streamsBody = false

    /// The request this head starts, with `body`.
    func request(body: [UInt8] = []) -> HTTPRequest {
        HTTPRequest(method: method, target: target, path: path, rawQuery: rawQuery, headers: headers, body: body, version: version)
    }

    /// The methods served; any other is answered 501. The most frequent first.
    static let knownMethods: [StaticString] = ["GET", "POST", "PATCH", "PUT", "DELETE", "HEAD", "OPTIONS"]

    /// Reads a head: `bytes` run from the request line to just before the blank line that ends
    /// the head (the parser found it).
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<HTTPRequestHead, HTTPParseError> {
        let n = bytes.count
        // Line ends first, over the whole head: a bare CR or LF anywhere is the verdict, whatever
        // else is wrong. Every CR checked here is followed by LF, so later passes find a line's end
        // by its CR alone.
        var lines = 1
        var i = 0
        while i < n {
            let b = bytes[i]
            if b == 13 {
                guard i + 1 < n, bytes[i + 1] == 10 else { return .failure(.badRequest("bare CR in request head")) }
                lines += 1
                i += 2
                continue
            }
            if b == 10 { return .failure(.badRequest("bare LF in request head")) }
            i += 1
        }
        let lineEnd = lineEnd(bytes, from: 0)
        // The request line: exactly two spaces.
        var spaces = 0
        var firstSpace = lineEnd, secondSpace = lineEnd
        for k in 0..<lineEnd where bytes[k] == 32 {
            spaces += 1
            if spaces == 1 { firstSpace = k } else if spaces == 2 { secondSpace = k }
        }
        guard spaces == 2, firstSpace > 0, secondSpace > firstSpace + 1 else { return .failure(.badRequest("malformed request line")) }
        for k in 0..<firstSpace where !isTokenByte(bytes[k]) { return .failure(.badRequest("invalid method")) }
        // A known method is one of the literals (no new string per request); the rest are refused below.
        let known = knownMethod(bytes, 0, firstSpace)
        let method = known ?? string(bytes, 0, firstSpace)
        var question = -1
        for k in (firstSpace + 1)..<secondSpace {
            let b = bytes[k]
            guard b > 32 && b < 127 else { return .failure(.badRequest("invalid request target")) }
            if b == UInt8(ascii: "?") && question < 0 { question = k }
        }
        let target = string(bytes, firstSpace + 1, secondSpace)
        let slash = bytes[firstSpace + 1] == UInt8(ascii: "/")
        guard slash || (method == "OPTIONS" && target == "*") else {
            return .failure(.badRequest("request target must start with '/'"))
        }
        let version: String
        if ASCIIBytes.equals(bytes, secondSpace + 1, lineEnd, "HTTP/1.1") {
            version = "HTTP/1.1"
        } else if ASCIIBytes.equals(bytes, secondSpace + 1, lineEnd, "HTTP/1.0") {
            version = "HTTP/1.0"
        } else {
            let other = string(bytes, secondSpace + 1, lineEnd)
            guard other.hasPrefix("HTTP/"), other.count == 8 else { return .failure(.badRequest("malformed HTTP version")) }
            let v = other.dropFirst(5)
            if v.first?.isNumber == true && v.last?.isNumber == true && v.dropFirst().first == "." { return .failure(.versionNotSupported) }
            return .failure(.badRequest("malformed HTTP version"))
        }
        guard known != nil else { return .failure(.notImplemented("method \(method)")) }
        var headers = HTTPHeaders(reservingCapacity: lines - 1)
        // What framing and policy read, noted as the fields go by: most requests have none of them.
        var hosts = 0
        // One `Content-Length` and no `Transfer-Encoding` is how nearly every body is framed.
        var lengths = 0, codings = 0
        var length: String?
        var expect: String?
        var start = lineEnd + 2
        while start < n + 2 && lines > 1 {
            let end = Self.lineEnd(bytes, from: start)
            var colon = start
            while colon < end && bytes[colon] != UInt8(ascii: ":") { colon += 1 }
            guard colon < end, colon > start else { return .failure(.badRequest("malformed header line")) }
            for k in start..<colon where !isTokenByte(bytes[k]) { return .failure(.badRequest("invalid header name")) }
            var lo = colon + 1, hi = end
            while lo < hi && (bytes[lo] == 32 || bytes[lo] == 9) { lo += 1 }
            while hi > lo && (bytes[hi - 1] == 32 || bytes[hi - 1] == 9) { hi -= 1 }
            for k in lo..<hi {
                let b = bytes[k]
                guard b == 9 || b >= 32 && b != 127 else { return .failure(.badRequest("invalid header value")) }
            }
            let name = string(bytes, start, colon)
            let value = string(bytes, lo, hi)
            if ASCIIBytes.equalsIgnoringCase(bytes, start, colon, "host") {
                hosts += 1
            } else if ASCIIBytes.equalsIgnoringCase(bytes, start, colon, "content-length") {
                lengths += 1
                length = value
            } else if ASCIIBytes.equalsIgnoringCase(bytes, start, colon, "transfer-encoding") {
                codings += 1
            } else if expect == nil, ASCIIBytes.equalsIgnoringCase(bytes, start, colon, "expect") {
                expect = value
            }
            headers.add(name, value)
            start = end + 2
        }
        // RFC 9112 §3.2 requires exactly one Host: a missing one is tolerated (raw-socket tools
        // omit it), but two are refused, whatever their values, so no later layer ever has to
        // choose between them (one could pass the DNS-rebinding check while another is used).
        guard hosts <= 1 else { return .failure(.badRequest("more than one Host header")) }
        var framing: Framing = .length(0)
        if lengths == 1, codings == 0, let length, let n = plainLength(length) {
            // What the general reading below gives for one field of 1 to 18 digits, without
            // collecting, splitting and deduplicating values (about 9,000 instructions a write).
            framing = .length(n)
        } else if lengths > 0 || codings > 0 {
            switch Self.framing(headers) {
            case .failure(let e): return .failure(e)
            case .success(let f): framing = f
            }
        }
        let expects = expect?.lowercased() == "100-continue" && version == "HTTP/1.1"
        let path = question < 0 ? target : string(bytes, firstSpace + 1, question)
        let rawQuery = question < 0 ? "" : string(bytes, question + 1, secondSpace)
        return .success(
            HTTPRequestHead(
                method: method, target: target, path: path, rawQuery: rawQuery, version: version, headers: headers, framing: framing,
                expectsContinue: expects))
    }

    /// The framing that `Transfer-Encoding` and `Content-Length` give, or why they give none.
    private static func framing(_ headers: HTTPHeaders) -> Result<Framing, HTTPParseError> {
        let te = headers.values("Transfer-Encoding")
        let cl = headers.values("Content-Length")
        if !te.isEmpty {
            guard cl.isEmpty else { return .failure(.badRequest("both Content-Length and Transfer-Encoding")) }
            let codings = te.joined(separator: ",").split(separator: ",").map { $0.trimming(" \t").lowercased() }
            guard codings == ["chunked"] else { return .failure(.notImplemented("transfer coding \(te.joined(separator: ","))")) }
            return .success(.chunked)
        }
        guard !cl.isEmpty else { return .success(.length(0)) }
        let values = Set(cl.flatMap { $0.split(separator: ",").map { $0.trimming(" \t") } })
        guard values.count == 1, let text = values.first, !text.isEmpty, text.utf8.count <= 18,
            text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let n = Int(text)
        else {
            return .failure(.badRequest("invalid Content-Length"))
        }
        return .success(.length(n))  // checked against the request's limit once the policy has seen the head
    }

    /// A `Content-Length` value of 1 to 18 ASCII digits (already trimmed of spaces and tabs),
    /// or nil for anything the general reading must judge.
    static func plainLength(_ value: String) -> Int? {
        let u = value.utf8
        guard u.count >= 1, u.count <= 18 else { return nil }
        var n = 0
        for b in u {
            guard b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") else { return nil }
            n = n * 10 + Int(b - UInt8(ascii: "0"))  // 18 digits cannot overflow
        }
        return n
    }

    /// The index of the CR that ends the line starting at `from`, or the end of the head.
    private static func lineEnd(_ bytes: UnsafeBufferPointer<UInt8>, from: Int) -> Int {
        var i = from
        while i < bytes.count && bytes[i] != 13 { i += 1 }
        return i
    }

    /// `bytes[lo..<hi]` as a string (invalid UTF-8 repaired, as header values always were).
    private static func string(_ bytes: UnsafeBufferPointer<UInt8>, _ lo: Int, _ hi: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[lo..<hi]), as: UTF8.self)
    }

    /// The `knownMethods` entry spelled by `bytes[lo..<hi]`, or nil.
    static func knownMethod(_ bytes: UnsafeBufferPointer<UInt8>, _ lo: Int, _ hi: Int) -> String? {
        for m in knownMethods where ASCIIBytes.equals(bytes, lo, hi, m) { return m.description }
        return nil
    }

    /// Whether `b` may appear in a token (a method or a header name), RFC 9110 §5.6.2.
    static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
            UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default: return false
        }
    }
}
