extension HTTPResponse {
    /// The response as bytes on the wire. `head` omits the body (but keeps its length);
    /// 1xx, 204 and 304 carry neither body nor length. The server owns framing headers.
    func wireBytes(head: Bool, close: Bool) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128 + body.count)
        appendStatusAndHeaders(to: &out)
        let bodyless = status == 204 || status == 304 || (100..<200).contains(status)
        // HEAD of a fixed-length stream (a download) announces the length its GET would send.
        let length = stream != nil ? (streamContentLength ?? body.count) : body.count
        if !bodyless { Self.appendContentLength(length, to: &out) }
        if close { out.append(contentsOf: "Connection: close\r\n".utf8) }
        out.append(contentsOf: "\r\n".utf8)
        if !head && !bodyless { out.append(contentsOf: body) }
        return out
    }

    /// The head of a streaming response over HTTP/1.1: a chunked body (no length is known).
    func streamingHead(close: Bool) -> [UInt8] {
        var out: [UInt8] = []
        appendStatusAndHeaders(to: &out)
        if let n = streamContentLength {
            Self.appendContentLength(n, to: &out)
        } else {
            out.append(contentsOf: "Transfer-Encoding: chunked\r\n".utf8)
        }
        if close { out.append(contentsOf: "Connection: close\r\n".utf8) }
        out.append(contentsOf: "\r\n".utf8)
        return out
    }

    /// One chunk of a chunked body (`size in hex CRLF bytes CRLF`), or the last one when empty.
    static func chunk(_ bytes: [UInt8]) -> [UInt8] {
        if bytes.isEmpty { return Array("0\r\n\r\n".utf8) }
        var out = Array(String(bytes.count, radix: 16).utf8)
        out.append(contentsOf: [13, 10])
        out.append(contentsOf: bytes)
        out.append(contentsOf: [13, 10])
        return out
    }

    /// `Content-Length: n` and CRLF, without formatting a string (every response writes it).
    private static func appendContentLength(_ n: Int, to out: inout [UInt8]) {
        out.append(contentsOf: "Content-Length: ".utf8)
        out.append(contentsOf: String(n).utf8)
        out.append(contentsOf: "\r\n".utf8)
    }

    /// The status line and the handler's headers, without the framing ones (the server owns
    /// Content-Length, Connection and Transfer-Encoding).
    private func appendStatusAndHeaders(to out: inout [UInt8]) {
        if status == 200 {
            out.append(contentsOf: "HTTP/1.1 200 OK\r\n".utf8)  // most responses: no formatting
        } else {
            out.append(contentsOf: "HTTP/1.1 \(status) \(HTTPResponse.reasonPhrase(status))\r\n".utf8)
        }
        for (name, value) in headers {
            if name.caseInsensitiveEquals("Content-Length") || name.caseInsensitiveEquals("Connection")
                || name.caseInsensitiveEquals("Transfer-Encoding")
            {
                continue
            }
            out.append(contentsOf: name.utf8)
            out.append(contentsOf: ": ".utf8)
            // Never let a header value break the framing (a value without CR or LF, the usual
            // case, is copied whole; no filtered copy is made).
            if value.utf8.allSatisfy({ $0 != 13 && $0 != 10 }) {
                out.append(contentsOf: value.utf8)
            } else {
                out.append(contentsOf: value.utf8.filter { $0 != 13 && $0 != 10 })
            }
            out.append(contentsOf: "\r\n".utf8)
        }
    }
}
