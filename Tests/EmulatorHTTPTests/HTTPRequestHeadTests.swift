import Testing

@testable import EmulatorHTTP

/// `HTTPRequestHead.parse` against the line-splitting reader it replaced (kept here, verbatim but
/// for its names, as the reference): the same verdict, the same message and the same fields for
/// every generated head. The generator builds heads from fragments that reach each check: spaces
/// in the request line, bare CR and LF, token and non-token bytes, a `?` in the target, versions,
/// the framing fields, `Expect`, repeated `Host`, tabs and spaces around values, DEL and bytes
/// above 127.
@Suite struct HTTPRequestHeadTests {
    /// The reference's result, in the fields both readers give.
    struct Reference: Equatable {
        var method: String
        var target: String
        var version: String
        var headers: HTTPHeaders
        var framing: HTTPRequestHead.Framing
        var expectsContinue: Bool

        static func parse(_ bytes: ArraySlice<UInt8>) -> Result<Reference, HTTPParseError> {
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
            guard requestLine[0].allSatisfy(isTokenByte) else { return .failure(.badRequest("invalid method")) }
            // A known method is one of the literals (no new string per request); the rest are refused below.
            let known = knownMethods.first { requestLine[0].elementsEqual($0.utf8) }
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
                guard name.allSatisfy(isTokenByte) else { return .failure(.badRequest("invalid header name")) }
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
            var framing: HTTPRequestHead.Framing = .length(0)
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
            return .success(Reference(method: method, target: target, version: version, headers: headers, framing: framing, expectsContinue: expects))
        }

        static let knownMethods = ["GET", "POST", "PATCH", "PUT", "DELETE", "HEAD", "OPTIONS"]

        static func isTokenByte(_ b: UInt8) -> Bool {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
            default: return "!#$%&'*+-.^_`|~".utf8.contains(b)
            }
        }
    }

    /// What the new reader gives, in the reference's form, with its own split of the target.
    static func parsed(_ bytes: [UInt8]) -> Result<(Reference, path: String, rawQuery: String), HTTPParseError> {
        bytes.withUnsafeBufferPointer { HTTPRequestHead.parse($0) }.map { h in
            (
                Reference(
                    method: h.method, target: h.target, version: h.version, headers: h.headers, framing: h.framing,
                    expectsContinue: h.expectsContinue), h.path, h.rawQuery
            )
        }
    }

    static let requestLines = [
        "GET /a HTTP/1.1", "GET /a?b=1&c HTTP/1.1", "POST /p?? HTTP/1.0", "OPTIONS * HTTP/1.1", "OPTIONS *x HTTP/1.1", "GET * HTTP/1.1",
        "BREW / HTTP/1.1", "G@T / HTTP/1.1", "GET  / HTTP/1.1", " GET / HTTP/1.1", "GET / HTTP/1.1 ", "GET /", "GET / HTTP/2.0",
        "GET / HTTP/1.12", "GET / HTTX/1.1", "GET / http/1.1", "GET / HTTP/a.b", "GET / ", "get / HTTP/1.1", "DELETE /x%20y HTTP/1.1",
        "", "GET /\u{7f} HTTP/1.1", "GET /é HTTP/1.1", "PATCH /?q HTTP/1.1", "HEAD /a/b:commit HTTP/1.0",
    ]
    static let names = [
        "Host", "host", "HOST", "Content-Length", "content-length", "Transfer-Encoding", "transfer-encoding", "Expect", "EXPECT",
        "X-A", "Connection", "Bad Name", "X\u{7f}", "", "a;b", "Authorization", "Hos", "Hostx", "Content-Lengt",
    ]
    static let values = [
        "x", "127.0.0.1:8080", "  spaced  ", "\tt\t", "", "5", "0", "007", "123456789012345678", "1234567890123456789", "3, 3", "1, 2",
        "-4", "+4", "4 ", "12345678901234567890", "chunked", "gzip",
        "Chunked , chunked", "100-continue", "100-CONTINUE", "a\u{7f}b", "é", "close", "keep-alive", "a:b", "v\u{1}",
    ]
    static let breaks = ["\r\n", "\r\n", "\r\n", "\r\n", "\n", "\r", "\r\r\n"]

    static func head(_ rng: inout SplitMix) -> [UInt8] {
        func pick(_ list: [String]) -> String { list[Int(rng.next() % UInt64(list.count))] }
        var s = pick(requestLines)
        for _ in 0..<Int(rng.next() % 5) {
            s += pick(breaks)
            switch rng.next() % 8 {
            case 0: s += pick(names) + pick([":", " :", ":: "]) + pick(values)
            case 1: s += pick(values)
            case 2, 3:
                // Framing fields often, so that the one-`Content-Length` shortcut meets its edges.
                s +=
                    pick(["Content-Length", "content-length", "CONTENT-LENGTH", "Transfer-Encoding"]) + ":" + pick([" ", "", "\t"])
                    + pick(["5", "0", "007", "123456789012345678", "1234567890123456789", "5,5", "5 , 6", "x", "", "chunked", " 9 "])
            default: s += pick(names) + ":" + pick([" ", "", "\t", "  "]) + pick(values) + pick(["", " ", "\t"])
            }
        }
        var bytes = Array(s.utf8)
        if rng.next() % 10 == 0, !bytes.isEmpty { bytes[Int(rng.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: rng.next()) }
        return bytes
    }

    /// The token test is a switch now (WebChannel's form names use it too); every byte agrees.
    @Test func tokenBytesAreTheReferenceSet() {
        for b in 0...255 { #expect(HTTPRequestHead.isTokenByte(UInt8(b)) == Reference.isTokenByte(UInt8(b)), "\(b)") }
    }

    @Test func agreesWithTheLineSplittingReader() {
        var rng = SplitMix(seed: 2911)
        var verdicts: [String: Int] = [:]
        for _ in 0..<20_000 {
            let bytes = Self.head(&rng)
            let reference = Reference.parse(bytes[...])
            let new = Self.parsed(bytes)
            switch (reference, new) {
            case (.success(let r), .success(let n)):
                #expect(r == n.0, "\(String(decoding: bytes, as: UTF8.self).debugDescription)")
                let q = r.target.utf8.firstIndex(of: UInt8(ascii: "?"))
                #expect(n.path == (q.map { String(Substring(r.target.utf8[..<$0])) } ?? r.target))
                #expect(n.rawQuery == (q.map { String(Substring(r.target.utf8[r.target.utf8.index(after: $0)...])) } ?? ""))
                verdicts["ok", default: 0] += 1
                if case .length(let n) = r.framing, n > 0 { verdicts["ok with a body length", default: 0] += 1 }
            case (.failure(let r), .failure(let n)):
                #expect(r == n, "\(String(decoding: bytes, as: UTF8.self).debugDescription)")
                verdicts[r.message, default: 0] += 1
            default:
                Issue.record("\(String(decoding: bytes, as: UTF8.self).debugDescription): reference \(reference), new \(new)")
            }
        }
        // The generator reaches every verdict (so the comparison above covers each check).
        for message in [
            "ok", "Bad request: bare CR in request head.", "Bad request: bare LF in request head.", "Bad request: malformed request line.",
            "Bad request: invalid method.", "Bad request: invalid request target.", "Bad request: request target must start with '/'.",
            "Bad request: malformed HTTP version.", "Only HTTP/1.0 and HTTP/1.1 are supported.", "Not implemented: method BREW.",
            "Bad request: malformed header line.", "Bad request: invalid header name.", "Bad request: invalid header value.",
            "Bad request: more than one Host header.", "Bad request: both Content-Length and Transfer-Encoding.",
            "Not implemented: transfer coding gzip.", "Bad request: invalid Content-Length.",
        ] {
            #expect(verdicts[message, default: 0] > 0, "never reached: \(message)")
        }
        #expect(verdicts["ok", default: 0] > 1000)
        #expect(verdicts["ok with a body length", default: 0] > 50)  // the one-field fast path
    }
}
