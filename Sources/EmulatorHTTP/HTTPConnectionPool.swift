import EmulatorCore

#if canImport(Glibc)
import Glibc
#endif

/// Keeps loopback HTTP/1.1 connections open between requests (keep-alive), so the functions host
/// and workers do not pay a TCP handshake, a TIME_WAIT socket and an accept per call.
///
/// Idle sockets wait in a per-`host:port` list behind a `Mutex`; each request takes one (or
/// connects), runs on its own thread like `HTTPClient.send`, and puts the socket back when the
/// response allows. A socket the peer closed while idle is detected before use, or by the
/// request failing before any response byte, and the request is then sent once more on a fresh
/// connection (the peer never saw it).
public final class HTTPConnectionPool: Sendable {
    private let idle: Mutex<[String: [Int32]]> = Mutex([:])
    /// The most idle sockets kept per destination; extra ones are closed.
    public let maxIdlePerDestination: Int

    /// The pool the functions host and the worker library share within one process.
    public static let shared = HTTPConnectionPool()

    /// Creates an empty pool.
    public init(maxIdlePerDestination: Int = 64) { self.maxIdlePerDestination = maxIdlePerDestination }

    deinit { closeAll() }

    /// Sends `request` to `host:port` over a pooled connection and reads the whole response.
    /// `timeout` bounds connecting, and each read and write.
    public func send(_ request: HTTPRequest, host: String, port: Int, timeout: Double = 30) async throws -> HTTPResponse {
        try await HTTPClient.onThread { [self] in try sendBlocking(request, host: host, port: port, timeout: timeout) }
    }

    /// The same, blocking the calling thread.
    public func sendBlocking(_ request: HTTPRequest, host: String, port: Int, timeout: Double = 30) throws -> HTTPResponse {
        let key = "\(host)|\(port)"
        while true {
            let pooled = take(key)
            let fd = try pooled ?? HTTPClient.connect(host: host, port: port, timeout: timeout)
            if pooled != nil { Self.setTimeouts(fd, timeout) }
            do {
                let (response, reusable) = try HTTPClient.exchange(fd, request, host: host, port: port, keepAlive: true)
                if reusable { give(key, fd) } else { close(fd) }
                return response
            } catch is HTTPClient.StaleConnection where pooled != nil {
                close(fd)  // dropped while idle: the peer never saw the request; try the next one
            } catch is HTTPClient.StaleConnection {
                close(fd)  // a fresh connection: the peer took the request and closed without a word
                throw HTTPServerError("\(host):\(port) closed the connection without answering")
            } catch {
                close(fd)
                throw error
            }
        }
    }

    /// Closes the idle sockets to `host:port` (a peer that went away).
    public func forget(host: String, port: Int) {
        let fds = idle.withLock { $0.removeValue(forKey: "\(host)|\(port)") ?? [] }
        for fd in fds { close(fd) }
    }

    /// Closes every idle socket.
    public func closeAll() {
        let fds = idle.withLock { d -> [Int32] in
            defer { d = [:] }
            return d.values.flatMap { $0 }
        }
        for fd in fds { close(fd) }
    }

    /// How many idle sockets the pool holds (for tests).
    public var idleCount: Int { idle.withLock { $0.values.reduce(0) { $0 + $1.count } } }

    /// An idle socket for `key` that the peer has not closed, or nil.
    private func take(_ key: String) -> Int32? {
        while let fd = idle.withLock({ d -> Int32? in d[key]?.popLast() }) {
            // Readable while idle means EOF (or stray bytes): either way it cannot carry a request.
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&p, 1, 0) == 0 { return fd }
            close(fd)
        }
        return nil
    }

    private func give(_ key: String, _ fd: Int32) {
        let kept = idle.withLock { d -> Bool in
            guard d[key, default: []].count < maxIdlePerDestination else { return false }
            d[key, default: []].append(fd)
            return true
        }
        if !kept { close(fd) }
    }

    private static func setTimeouts(_ fd: Int32, _ timeout: Double) {
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }
}
