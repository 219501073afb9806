import EmulatorCore
import Foundation
import Testing

@testable import EmulatorHTTP

#if canImport(Glibc)
import Glibc
#endif

/// The server's limits over real sockets (issue 22): a client that does not read its answers
/// stops being served, connections beyond the cap are answered 503, two Host headers are refused.
@Suite(.serialized) struct HTTPServerLimitsTests {
    @Test func aSecondHostHeaderIs400AndCloses() async throws {
        try await withServer { bound in
            let c = try RawClient(port: bound[0].port)
            try c.send("GET /a HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\n\r\n")
            let text = await c.read(responses: 1)
            #expect(text.hasPrefix("HTTP/1.1 400"))
            #expect(text.contains("more than one Host header"))
            #expect(await c.isClosed(within: 3))
        }
    }

    @Test func pipelinedRequestsWaitWhileAnswersAreUnread() async throws {
        let served = Mutex(0)
        let big: HTTPResponder = { _ in
            served.withLock { $0 += 1 }
            return HTTPResponse(status: 200, body: [UInt8](repeating: 0x61, count: 1 << 20))
        }
        try await withServer({ $0.outputBudget = 256 * 1024 }, responder: big) { bound in
            let c = try RawClient(port: bound[0].port)
            var small: Int32 = 4096
            setsockopt(c.fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
            var flags = fcntl(c.fd, F_GETFL)
            flags |= O_NONBLOCK
            _ = fcntl(c.fd, F_SETFL, flags)
            // 200 requests for 1 MiB each, never read: at most a few are answered meanwhile.
            let request = Array("GET /big HTTP/1.1\r\nHost: t\r\n\r\n".utf8)
            var sent = 0
            let all = [[UInt8]](repeating: request, count: 200).flatMap { $0 }
            let deadline = Date().addingTimeInterval(1.5)
            while sent < all.count && Date() < deadline {
                let n = all[sent...].withUnsafeBytes { Glibc.send(c.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if n > 0 { sent += n } else { try await Task.sleep(nanoseconds: 10_000_000) }
            }
            try await Task.sleep(nanoseconds: 500_000_000)
            let count = served.withLock { $0 }
            #expect(count >= 1 && count <= 8, "\(count) answers of 1 MiB made for a client that reads none")
            // Another client is served at once.
            let other = try RawClient(port: bound[0].port)
            try other.send("GET /x HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            #expect(await other.read(responses: 1).hasPrefix("HTTP/1.1 200"))
        }
    }

    @Test func connectionsBeyondTheCapAreAnswered503() async throws {
        try await withServer({ $0.maxConnections = 2 }) { bound in
            let a = try RawClient(port: bound[0].port), b = try RawClient(port: bound[0].port)
            try a.send("GET /a HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(await a.read(responses: 1).hasPrefix("HTTP/1.1 200"))
            let extra = try RawClient(port: bound[0].port)
            let text = await extra.read(responses: 1)
            #expect(text.hasPrefix("HTTP/1.1 503"))
            #expect(text.contains("maxConnections") && text.contains("UNAVAILABLE"))
            #expect(await extra.isClosed(within: 3))
            try b.send("GET /b HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(await b.read(responses: 1).hasPrefix("HTTP/1.1 200"))
        }
    }

    @Test func theDefaultCapStaysUnderTheDescriptorLimit() {
        var lim = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &lim)
        let cap = EventLoop.connectionCap(nil)
        #expect(cap <= HTTPServerConfiguration.defaultMaxConnections)
        #expect(cap <= max(8, Int(clamping: lim.rlim_cur) / 4 * 3))
        #expect(EventLoop.connectionCap(50_000) == 50_000, "a configured cap is used as given")
    }
}
