import Foundation
import Testing

@testable import EmulatorHTTP

#if canImport(Glibc)
import Glibc
#endif

/// Answers with the peer address, so a test can tell whether requests shared a connection.
let peer: HTTPResponder = { req in .text(req.remoteAddress ?? "?") }

@Suite(.serialized) struct HTTPConnectionPoolTests {
    @Test func reusesOneConnectionForSequentialRequests() async throws {
        try await withServer(responder: peer) { bound in
            let pool = HTTPConnectionPool()
            var peers: Set<[UInt8]> = []
            for _ in 0..<5 {
                let r = try await pool.send(HTTPRequest(method: "POST", target: "/x", body: Array("{}".utf8)), host: "127.0.0.1", port: bound[0].port)
                #expect(r.status == 200)
                peers.insert(r.body)
            }
            #expect(peers.count == 1)
            #expect(pool.idleCount == 1)
            pool.forget(host: "127.0.0.1", port: bound[0].port)
            #expect(pool.idleCount == 0)
        }
    }

    /// The server drops an idle kept-alive connection (idle timeout); the next request notices
    /// and goes out on a fresh connection instead of failing.
    @Test func replacesAConnectionThePeerClosedWhileIdle() async throws {
        try await withServer({ $0.idleTimeout = 0.2 }, responder: peer) { bound in
            let pool = HTTPConnectionPool()
            let first = try await pool.send(HTTPRequest(method: "GET", target: "/a"), host: "127.0.0.1", port: bound[0].port)
            try await Task.sleep(nanoseconds: 600_000_000)
            let second = try await pool.send(HTTPRequest(method: "GET", target: "/b"), host: "127.0.0.1", port: bound[0].port)
            #expect(first.status == 200 && second.status == 200)
            #expect(first.body != second.body)
        }
    }

    /// A peer that answers `Connection: close` (our server never does on its own) is not pooled,
    /// nor is an HTTP/1.0 peer that does not say keep-alive.
    @Test func closingPeersAreNotPooled() async throws {
        for answer in [
            "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nbye",
            "HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\nbye",
        ] {
            let port = try oneShotServer(answer)
            let pool = HTTPConnectionPool()
            let r = try await pool.send(HTTPRequest(method: "GET", target: "/"), host: "127.0.0.1", port: port)
            #expect(String(decoding: r.body, as: UTF8.self) == "bye")
            #expect(pool.idleCount == 0)
        }
    }

    /// A peer may answer before it has read the whole body (a handler that ignores the body, an
    /// early 413) and close; the close resets the connection under the client's write. The answer
    /// already sent is what the caller gets, not "writing the request failed: Broken pipe".
    @Test func returnsAnAnswerSentBeforeTheBodyWasRead() async throws {
        let body = [UInt8](repeating: UInt8(ascii: "x"), count: 16 * 1024 * 1024)
        let answer = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nbye"
        let pooled = try await HTTPConnectionPool().send(
            HTTPRequest(method: "POST", target: "/", body: body),
            host: "127.0.0.1", port: try oneShotServer(answer))
        #expect(pooled.status == 200 && String(decoding: pooled.body, as: UTF8.self) == "bye")
        let direct = try await HTTPClient.send(
            HTTPRequest(method: "GET", target: "/", body: body), host: "127.0.0.1", port: try oneShotServer(answer))
        #expect(direct.status == 200 && String(decoding: direct.body, as: UTF8.self) == "bye")
    }

    /// Listens on a free loopback port, answers one connection with `answer` and closes it.
    func oneShotServer(_ answer: String) throws -> Int {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, len) } }
        listen(listener, 1)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &len) } }
        let t = Thread {
            let fd = accept(listener, nil, nil)
            var buf = [UInt8](repeating: 0, count: 4096)
            _ = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            try? HTTPClient.writeAll(fd, Array(answer.utf8))
            close(fd)
            close(listener)
        }
        t.start()
        return Int(UInt16(bigEndian: addr.sin_port))
    }
}
