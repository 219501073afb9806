import EmulatorCore
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// A minimal HTTP/1.1 client (one request per connection, `Connection: close`), used by tests and
/// by the functions host to reach worker processes on loopback. Blocking socket I/O runs on a
/// background thread; the call is `async`.
public enum HTTPClient {
    /// Sends `request` to `host:port` and reads the whole response (Content-Length, chunked or
    /// close-delimited). `timeout` bounds connecting, and each read and write.
    public static func send(_ request: HTTPRequest, host: String, port: Int, timeout: Double = 30) async throws -> HTTPResponse {
        try await onThread { try sendBlocking(request, host: host, port: port, timeout: timeout) }
    }

    /// The same, blocking the calling thread.
    public static func sendBlocking(_ request: HTTPRequest, host: String, port: Int, timeout: Double = 30) throws -> HTTPResponse {
        let fd = try connect(host: host, port: port, timeout: timeout)
        defer { close(fd) }
        return try exchange(fd, request, host: host, port: port, keepAlive: false).response
    }

    /// Runs `body` on a fresh thread and resumes with its result: blocking socket I/O must not
    /// occupy the cooperative pool that serves requests (a worker calling back into the emulator
    /// would otherwise be able to starve it).
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { cont in
            BackgroundThread.detach(name: "http-client", stackSize: 512 * 1024) {
                do { cont.resume(returning: try body()) } catch { cont.resume(throwing: error) }
            }
        }
    }

    /// Why an exchange on a kept-alive connection failed before any response byte arrived: the
    /// peer had closed it while idle, so the request was not processed and may be sent again.
    struct StaleConnection: Error {}

    /// Writes `request` on the connected socket `fd` and reads one whole response. With
    /// `keepAlive`, asks the peer to keep the connection and reports whether it may be reused.
    static func exchange(
        _ fd: Int32, _ request: HTTPRequest, host: String, port: Int,
        keepAlive: Bool
    ) throws -> (response: HTTPResponse, reusable: Bool) {
        var head = "\(request.method) \(request.target) HTTP/1.1\r\n"
        var headers = request.headers
        if headers["Host"] == nil { headers.add("Host", host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)") }
        headers.set("Connection", keepAlive ? "keep-alive" : "close")
        if !request.body.isEmpty || ["POST", "PUT", "PATCH"].contains(request.method) {
            headers.set("Content-Length", String(request.body.count))
        }
        for (n, v) in headers { head += "\(n): \(v)\r\n" }
        head += "\r\n"
        let isHead = request.method == "HEAD"
        do {
            try writeAll(fd, Array(head.utf8) + request.body, staleOnReset: keepAlive)
        } catch let error as HTTPServerError {
            // The peer may answer before reading the whole body (a handler that ignores it, an
            // early 413) and close, which resets the connection under this write. Its answer is
            // already waiting in the receive buffer, and it is the answer, as curl reads it.
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 0) > 0, let early = try? readResponse(fd, host: host, port: port, isHead: isHead, keepAlive: false) else {
                throw error
            }
            return (early.response, false)
        }
        return try readResponse(fd, host: host, port: port, isHead: isHead, keepAlive: keepAlive)
    }

    /// Reads one whole response from `fd`; with `keepAlive`, also whether the connection may be reused.
    static func readResponse(
        _ fd: Int32, host: String, port: Int, isHead: Bool,
        keepAlive: Bool
    ) throws -> (response: HTTPResponse, reusable: Bool) {
        var data: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                data.append(contentsOf: buf[0..<n])
            } else if n == 0 {
                break
            } else if errno == EINTR {
                continue
            } else {
                if errno == EAGAIN || errno == EWOULDBLOCK { throw HTTPServerError("timed out reading the response from \(host):\(port)") }
                if keepAlive && data.isEmpty && errno == ECONNRESET { throw StaleConnection() }
                throw HTTPServerError("reading from \(host):\(port) failed: \(Socket.errorText())")
            }
            if let response = (try? parseResponse(data, isHead: isHead)) ?? nil {
                // HTTP/1.0 peers close unless they say keep-alive; HTTP/1.1 peers keep unless they say close.
                let connection = response.headers["Connection"]?.lowercased() ?? ""
                let http10 = data.starts(with: Array("HTTP/1.0".utf8))
                let keeps = http10 ? connection.contains("keep-alive") : !connection.contains("close")
                return (response, keepAlive && keeps)
            }
        }
        if keepAlive && data.isEmpty { throw StaleConnection() }
        guard let response = try parseResponse(data, isHead: isHead, atEOF: true) else {
            throw HTTPServerError("connection to \(host):\(port) closed before a complete response")
        }
        return (response, false)
    }

    static func connect(host: String, port: Int, timeout: Double) throws -> Int32 {
        var last = "no address"
        for (family, addr) in try Socket.resolve(host: host, port: port, passive: false) {
            let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { continue }
            var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1e6))
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            let rc = addr.withUnsafeBytes { p in Glibc.connect(fd, p.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(addr.count)) }  // trap-ok: a sockaddr is never empty
            if rc == 0 {
                var one: Int32 = 1
                setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                return fd
            }
            last = Socket.errorText()
            close(fd)
        }
        throw HTTPServerError("cannot connect to \(host):\(port): \(last)")
    }

    /// Writes every byte. With `staleOnReset`, a reset or closed peer before anything was written
    /// is `StaleConnection` (a kept-alive connection the peer dropped while idle).
    static func writeAll(_ fd: Int32, _ bytes: [UInt8], staleOnReset: Bool = false) throws {
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + off, bytes.count - off, Int32(MSG_NOSIGNAL)) }  // trap-ok: the loop runs only for a non-empty buffer
            if n > 0 {
                off += n
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                if staleOnReset && off == 0 && (errno == EPIPE || errno == ECONNRESET) { throw StaleConnection() }
                throw HTTPServerError("writing the request failed: \(Socket.errorText())")
            }
        }
    }

    /// Parses a complete response from `data`, or nil when more bytes are needed.
    static func parseResponse(_ data: [UInt8], isHead: Bool, atEOF: Bool = false) throws -> HTTPResponse? {
        guard let end = find(data, [13, 10, 13, 10]) else { return nil }
        let lines = String(decoding: data[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ", maxSplits: 2)
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw HTTPServerError("malformed status line") }
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            guard let c = line.firstIndex(of: ":") else { continue }
            headers.add(String(line[..<c]), line[line.index(after: c)...].trimming(" \t"))
        }
        let bodyStart = end + 4
        if (100..<200).contains(status) {
            // Skip interim responses such as 100 Continue.
            return try parseResponse(Array(data[bodyStart...]), isHead: isHead, atEOF: atEOF)
        }
        if isHead || status == 204 || status == 304 { return HTTPResponse(status: status, headers: headers) }
        if headers["Transfer-Encoding"]?.lowercased().contains("chunked") == true {
            var body: [UInt8] = []
            var i = bodyStart
            while true {
                guard let eol = find(data, [13, 10], from: i) else { return nil }
                let sizeText = String(decoding: data[i..<eol], as: UTF8.self).split(separator: ";").first ?? ""
                guard let size = Int(sizeText.trimming(" "), radix: 16) else { throw HTTPServerError("bad chunk size") }
                i = eol + 2
                if size == 0 { return HTTPResponse(status: status, headers: headers, body: body) }
                guard data.count >= i + size + 2 else { return nil }
                body.append(contentsOf: data[i..<(i + size)])
                i += size + 2
            }
        }
        if let cl = headers["Content-Length"], let n = Int(cl) {
            guard data.count >= bodyStart + n else { return nil }
            return HTTPResponse(status: status, headers: headers, body: Array(data[bodyStart..<(bodyStart + n)]))
        }
        return atEOF ? HTTPResponse(status: status, headers: headers, body: Array(data[bodyStart...])) : nil
    }

    static func find(_ data: [UInt8], _ pattern: [UInt8], from: Int = 0) -> Int? {
        guard data.count >= pattern.count else { return nil }
        var i = from
        while i + pattern.count <= data.count {
            if data[i] == pattern[0] && Array(data[i..<(i + pattern.count)]) == pattern { return i }
            i += 1
        }
        return nil
    }
}
