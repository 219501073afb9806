import EmulatorCore
import Foundation
import Testing

@testable import EmulatorHTTP

#if canImport(Glibc)
import Glibc
#endif

/// A raw TCP client for protocol-level tests. Its reads block a thread of their own
/// (`HTTPClient.onThread`), never the cooperative pool the server's responders run on: with
/// tests running in parallel on two cores, two blocked pool threads would starve the server.
final class RawClient: @unchecked Sendable {
    let fd: Int32
    init(port: Int, host: String = "127.0.0.1") throws {
        fd = try HTTPClient.connect(host: host, port: port, timeout: 5)
    }
    func send(_ s: String) throws { try HTTPClient.writeAll(fd, Array(s.utf8)) }
    /// Reads until `count` responses are complete or the peer closes; returns raw text.
    func read(responses count: Int, timeout: Double = 5) async -> String {
        (try? await HTTPClient.onThread { self.readBlocking(responses: count, timeout: timeout) }) ?? ""
    }

    func readBlocking(responses count: Int, timeout: Double) -> String {
        var data: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65536)
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            data.append(contentsOf: buf[0..<n])
            if String(decoding: data, as: UTF8.self).components(separatedBy: "HTTP/1.1 ").count - 1 >= count, completeBodies(data, count) { break }
        }
        return String(decoding: data, as: UTF8.self)
    }
    private func completeBodies(_ data: [UInt8], _ count: Int) -> Bool {
        var rest = data
        for _ in 0..<count {
            guard let resp = (try? HTTPClient.parseResponse(rest, isHead: false)) ?? nil else { return false }
            let text = String(decoding: rest, as: UTF8.self)
            guard let end = text.range(of: "\r\n\r\n") else { return false }
            let consumed = text[..<end.upperBound].utf8.count + resp.body.count
            rest = Array(rest.dropFirst(consumed))
        }
        return true
    }
    /// True when the server has closed the connection (read returns 0).
    /// Reads raw bytes until `text` appears (or 5 s pass); returns what arrived, as Latin-1-ish text.
    func readRaw(until text: String) async -> String {
        (try? await HTTPClient.onThread {
            var data: [UInt8] = []
            var buf = [UInt8](repeating: 0, count: 65536)
            let deadline = Date().addingTimeInterval(5)
            while Date() < deadline, !String(decoding: data, as: UTF8.self).contains(text) {
                let n = buf.withUnsafeMutableBytes { recv(self.fd, $0.baseAddress, $0.count, 0) }
                if n <= 0 { break }
                data.append(contentsOf: buf[0..<n])
            }
            return String(decoding: data, as: UTF8.self)
        }) ?? ""
    }

    func isClosed(within seconds: Double) async -> Bool {
        (try? await HTTPClient.onThread { self.isClosedBlocking(within: seconds) }) ?? false
    }

    func isClosedBlocking(within seconds: Double) -> Bool {
        var tv = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var buf = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { return true }
            if n < 0 { return false }
        }
    }
    deinit { close(fd) }
}

/// Starts a server for one test.
func withServer(
    _ edit: (inout HTTPServerConfiguration) -> Void = { _ in },
    listeners: [HTTPServerConfiguration.Listener] = [.init(host: "127.0.0.1", port: 0)],
    responder: @escaping HTTPResponder = echo,
    inline: HTTPInlineResponder? = nil,
    _ body: ([BoundAddress]) async throws -> Void
) async throws {
    var config = HTTPServerConfiguration(listeners: listeners)
    edit(&config)
    let server = HTTPServer(configuration: config, responder: responder, inline: inline)
    let bound = try server.start()
    do { try await body(bound) } catch {
        await server.shutdown()
        throw error
    }
    await server.shutdown()
}

/// Answers `METHOD target body` so tests can see what arrived.
let echo: HTTPResponder = { req in
    if req.path == "/slow" { try? await Task.sleep(nanoseconds: 300_000_000) }
    return .text("\(req.method) \(req.target) \(String(decoding: req.body, as: UTF8.self))")
}

@Suite(.serialized) struct HTTPServerTests {
    @Test func servesOverKeepAliveAndReportsRealPort() async throws {
        try await withServer { bound in
            #expect(bound[0].port > 0)
            let c = try RawClient(port: bound[0].port)
            try c.send("GET /a?x=1 HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(await c.read(responses: 1).contains("GET /a?x=1 "))
            try c.send("POST /b HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi")
            #expect(await c.read(responses: 1).hasSuffix("POST /b hi"))
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        try await withServer { bound in
            let c = try RawClient(port: bound[0].port)
            try c.send("GET /slow HTTP/1.1\r\n\r\nGET /2 HTTP/1.1\r\n\r\nPOST /3 HTTP/1.1\r\nContent-Length: 1\r\n\r\nz")
            let text = await c.read(responses: 3)
            let order = ["GET /slow", "GET /2", "POST /3 z"].map { text.range(of: $0)?.lowerBound }
            #expect(order.allSatisfy { $0 != nil })
            #expect(order[0]! < order[1]! && order[1]! < order[2]!)
        }
    }

    @Test func chunkedBodyAnd100Continue() async throws {
        try await withServer { bound in
            let c = try RawClient(port: bound[0].port)
            try c.send("POST /e HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n")
            #expect(await c.read(responses: 1, timeout: 1).hasPrefix("HTTP/1.1 100 Continue"))
            try c.send("abcPOST /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nxy\r\n0\r\n\r\n")
            let text = await c.read(responses: 2)
            #expect(text.contains("POST /e abc"))
            #expect(text.contains("POST /c xy"))
        }
    }

    @Test func headHasNoBodyButKeepsLength() async throws {
        try await withServer { bound in
            let r = try await HTTPClient.send(HTTPRequest(method: "HEAD", target: "/h"), host: "127.0.0.1", port: bound[0].port)
            #expect(r.status == 200)
            #expect(r.body.isEmpty)
            #expect(r.headers["Content-Length"] == String("HEAD /h ".utf8.count))
        }
    }

    @Test func malformedRequestGets400AndClose() async throws {
        try await withServer { bound in
            let c = try RawClient(port: bound[0].port)
            try c.send("GARBAGE\r\n\r\n")
            #expect(await c.read(responses: 1).hasPrefix("HTTP/1.1 400 Bad Request"))
            #expect(await c.isClosed(within: 2))
        }
    }

    @Test func limitsAnswer431And413() async throws {
        try await withServer({
            $0.maxHeaderBytes = 1024
            $0.maxBodyBytes = 100
        }) { bound in
            let c = try RawClient(port: bound[0].port)
            try c.send("GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 2000) + "\r\n\r\n")
            #expect(await c.read(responses: 1).hasPrefix("HTTP/1.1 431"))
            let d = try RawClient(port: bound[0].port)
            try d.send("POST / HTTP/1.1\r\nContent-Length: 101\r\n\r\n")
            #expect(await d.read(responses: 1).hasPrefix("HTTP/1.1 413"))
        }
    }

    @Test func slowClientTimesOutWhileOthersAreServed() async throws {
        try await withServer({ $0.headerTimeout = 0.3 }) { bound in
            let slow = try RawClient(port: bound[0].port)
            try slow.send("GET / HTTP/1.1\r\nX-Slow: ")
            let fast = try await HTTPClient.send(HTTPRequest(method: "GET", target: "/ok"), host: "127.0.0.1", port: bound[0].port)
            #expect(fast.status == 200)
            #expect(await slow.read(responses: 1, timeout: 3).hasPrefix("HTTP/1.1 408"))
            #expect(await slow.isClosed(within: 2))
        }
    }

    @Test func idleKeepAliveConnectionsAreClosed() async throws {
        try await withServer({ $0.idleTimeout = 0.3 }) { bound in
            let c = try RawClient(port: bound[0].port)
            try c.send("GET / HTTP/1.1\r\n\r\n")
            _ = await c.read(responses: 1)
            #expect(await c.isClosed(within: 3))
        }
    }

    @Test func connectionCloseAndHTTP10Close() async throws {
        try await withServer { bound in
            let c = try RawClient(port: bound[0].port)
            try c.send("GET / HTTP/1.1\r\nConnection: close\r\n\r\n")
            #expect(await c.read(responses: 1).contains("Connection: close"))
            #expect(await c.isClosed(within: 2))
            let d = try RawClient(port: bound[0].port)
            try d.send("GET / HTTP/1.0\r\n\r\n")
            _ = await d.read(responses: 1)
            #expect(await d.isClosed(within: 2))
        }
    }

    @Test func gracefulShutdownFinishesInFlightRequests() async throws {
        let server = HTTPServer(configuration: HTTPServerConfiguration(listeners: [.init(host: "127.0.0.1", port: 0)]), responder: echo)
        let port = try server.start()[0].port
        async let slow = HTTPClient.send(HTTPRequest(method: "GET", target: "/slow"), host: "127.0.0.1", port: port)
        try await Task.sleep(nanoseconds: 100_000_000)
        await server.shutdown()
        #expect(try await slow.status == 200)
        #expect(throws: HTTPServerError.self) {
            try HTTPClient.sendBlocking(HTTPRequest(method: "GET", target: "/"), host: "127.0.0.1", port: port, timeout: 1)
        }
    }

    @Test func servesIPv6AndSeveralListeners() async throws {
        try await withServer(listeners: [.init(host: "127.0.0.1", port: 0), .init(host: "::1", port: 0)]) { bound in
            #expect(bound.count == 2 && bound[0].port != bound[1].port)
            let r4 = try await HTTPClient.send(HTTPRequest(method: "GET", target: "/v4"), host: "127.0.0.1", port: bound[0].port)
            let r6 = try await HTTPClient.send(HTTPRequest(method: "GET", target: "/v6"), host: "::1", port: bound[1].port)
            #expect(r4.status == 200 && r6.status == 200)
        }
    }

    @Test func busyPortErrorNamesTheAddress() async throws {
        try await withServer { bound in
            let other = HTTPServer(
                configuration: HTTPServerConfiguration(listeners: [.init(host: "127.0.0.1", port: bound[0].port)]), responder: echo)
            do {
                _ = try other.start()
                Issue.record("second bind succeeded")
            } catch let e as HTTPServerError {
                #expect(e.description == "cannot listen on 127.0.0.1:\(bound[0].port): Address already in use")
            }
        }
    }

    @Test func thousandConcurrentKeepAliveConnections() async throws {
        try await withServer { bound in
            let port = bound[0].port
            let clients = try (0..<1000).map { _ in try RawClient(port: port) }
            for (i, c) in clients.enumerated() { try c.send("GET /\(i) HTTP/1.1\r\n\r\n") }
            var ok = 0
            for (i, c) in clients.enumerated() where await c.read(responses: 1).contains("GET /\(i) ") { ok += 1 }
            for (i, c) in clients.enumerated() { try c.send("GET /again\(i) HTTP/1.1\r\n\r\n") }
            for (i, c) in clients.enumerated() where await c.read(responses: 1).contains("GET /again\(i) ") { ok += 1 }
            #expect(ok == 2000)
        }
    }

    @Test func http2AndHTTP1ShareOnePortAndIdleHTTP2ConnectionsClose() async throws {
        try await withServer({ $0.idleTimeout = 0.3 }) { bound in
            // HTTP/1.1 on the port as before.
            let h1 = try RawClient(port: bound[0].port)
            try h1.send("GET /one HTTP/1.1\r\n\r\n")
            #expect(await h1.read(responses: 1).contains("GET /one "))
            // The preface, then nothing at all: the server's SETTINGS come, then GOAWAY at the idle timeout.
            let h2 = try RawClient(port: bound[0].port)
            try h2.send("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
            #expect(await h2.isClosed(within: 3), "a silent HTTP/2 connection is closed after the idle timeout")
            // A plain HTTP request over HTTP/2 reaches the same responder.
            let c = try RawClient(port: bound[0].port)
            var enc = HPACKEncoder()
            var bytes = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
            HTTP2FrameWriter.settings(&bytes, [])
            HTTP2FrameWriter.append(
                &bytes, type: HTTP2FrameType.headers, flags: HTTP2Flag.endHeaders | HTTP2Flag.endStream, stream: 1,
                payload: enc.encode(
                    [(":method", "GET"), (":scheme", "http"), (":path", "/over-h2"), (":authority", "t")]
                        .map { HPACKHeaderField(name: $0.0, value: $0.1) }))
            try HTTPClient.writeAll(c.fd, bytes)
            let answer = await c.readRaw(until: "GET /over-h2 ")
            #expect(answer.contains("GET /over-h2 "))
        }
    }

    @Test func streamingResponsesAreChunkedAndStopWhenTheClientLeaves() async throws {
        let stopped = Mutex(false)
        let responder: HTTPResponder = { req in
            var r = HTTPResponse(status: 200)
            r.headers.add("Content-Type", "text/event-stream")
            if req.path == "/forever" {
                r.stream = { w in
                    do {
                        while true {
                            try await w.write(Array("tick\n".utf8))
                            try await Task.sleep(nanoseconds: 20_000_000)
                        }
                    } catch {}
                    stopped.withLock { $0 = true }
                }
            } else {
                r.stream = { w in
                    for part in ["one\n", "two\n", "three\n"] { try? await w.write(Array(part.utf8)) }
                }
            }
            return r
        }
        try await withServer(responder: responder) { bound in
            let c = try RawClient(port: bound[0].port)
            try c.send("GET /three HTTP/1.1\r\n\r\n")
            let text = await c.readRaw(until: "0\r\n\r\n")
            #expect(text.contains("Transfer-Encoding: chunked") && text.contains("4\r\none\n\r\n") && text.contains("6\r\nthree\n\r\n"))
            #expect(text.hasSuffix("0\r\n\r\n"))
            try c.send("GET /after HTTP/1.1\r\n\r\n")  // the connection is usable again
            #expect(await c.readRaw(until: "three").contains("three"))
            let f = try RawClient(port: bound[0].port)
            try f.send("GET /forever HTTP/1.1\r\n\r\n")
            #expect(await f.readRaw(until: "tick").contains("tick"))
            shutdown(f.fd, Int32(SHUT_RDWR))
            await waitUntil { stopped.withLock { $0 } }
            #expect(stopped.withLock { $0 }, "the producer ends once the client has gone")
        }
    }

    /// A quiet event stream (no write due for a while) must not outlive its client: the producer's
    /// task is cancelled as soon as the client closes, not at its next write.
    @Test func aQuietStreamIsCancelledWhenTheClientCloses() async throws {
        let cancelled = Mutex(false)
        let responder: HTTPResponder = { _ in
            var r = HTTPResponse(status: 200)
            r.headers.add("Content-Type", "text/event-stream")
            r.stream = { w in
                try? await w.write(Array("hello\n".utf8))
                do { try await Task.sleep(nanoseconds: 60_000_000_000) } catch { cancelled.withLock { $0 = true } }
            }
            return r
        }
        try await withServer(responder: responder) { bound in
            let c = try RawClient(port: bound[0].port)
            try c.send("GET /events HTTP/1.1\r\n\r\n")
            #expect(await c.readRaw(until: "hello").contains("hello"))
            shutdown(c.fd, Int32(SHUT_RDWR))
            await waitUntil { cancelled.withLock { $0 } }
            #expect(cancelled.withLock { $0 }, "the producer is cancelled once the client has closed")
        }
    }
}

/// Polls `condition` every 50 ms for up to 5 s (tests then check it once more).
private func waitUntil(_ condition: () -> Bool) async {
    for _ in 0..<100 where !condition() {
        try? await Task.sleep(nanoseconds: 50_000_000)
    }
}
