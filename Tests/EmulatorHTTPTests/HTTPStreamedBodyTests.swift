import EmulatorCore
import Foundation
import Testing

@testable import EmulatorHTTP

#if canImport(Glibc)
import Glibc
#endif

/// Feeds `chunks` to a parser that streams every POST body (limit `limit`) and returns its events:
/// `head METHOD target`, `part <bytes>`, `end`, `request ...` (buffered), `error N`.
private func streamAll(_ chunks: [[UInt8]], limit: Int = 1 << 20, maxBody: Int = 16) -> [String] {
    var p = HTTPRequestParser(maxHeaderBytes: 1024, maxBodyBytes: maxBody, streamingPolicy: { $0.method == "POST" ? limit : nil })
    var out: [String] = []
    for c in chunks {
        p.feed(c)
        loop: while true {
            if p.isStreamingBody {
                switch p.nextBodyPart() {
                case .bytes(let b): out.append("part " + String(decoding: b, as: UTF8.self))
                case .end: out.append("end")
                case .needMore: break loop
                case .error(let e):
                    out.append("error \(e.status)")
                    return out
                }
                continue
            }
            switch p.next() {
            case .request(let r):
                out.append(
                    p.isStreamingBody ? "head \(r.method) \(r.target)" : "request \(r.method) \(r.target) \(String(decoding: r.body, as: UTF8.self))")
            case .expectContinue: out.append("100-continue")
            case .needMore: break loop
            case .error(let e):
                out.append("error \(e.status)")
                return out
            }
        }
    }
    return out
}

/// Joins consecutive `part` events, so results do not depend on how the input was split.
private func merged(_ events: [String]) -> [String] {
    var out: [String] = []
    for e in events {
        if e.hasPrefix("part "), let last = out.last, last.hasPrefix("part ") {
            out[out.count - 1] = last + e.dropFirst(5)
        } else {
            out.append(e)
        }
    }
    return out
}

@Suite struct HTTPStreamedBodyParserTests {
    @Test func aStreamedRequestComesOutAtItsHeadThenItsBodyInParts() {
        let input = Array("POST /up HTTP/1.1\r\nContent-Length: 20\r\n\r\n0123456789abcdefghijGET /next HTTP/1.1\r\n\r\n".utf8)
        let expected = ["head POST /up", "part 0123456789abcdefghij", "end", "request GET /next "]
        #expect(merged(streamAll([input])) == expected)
        #expect(merged(streamAll(input.map { [$0] })) == expected)  // a byte at a time
        // The body limit is the policy's, not maxBodyBytes (16): 20 bytes pass.
        let chunked = Array("POST /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n".utf8)
        #expect(merged(streamAll([chunked])) == ["head POST /c", "part hello", "end"])
        #expect(merged(streamAll(chunked.map { [$0] })) == ["head POST /c", "part hello", "end"])
    }

    @Test func streamedBodiesKeepTheirOwnLimitAndOthersKeepTheServers() {
        #expect(streamAll([Array("POST /up HTTP/1.1\r\nContent-Length: 11\r\n\r\n".utf8)], limit: 10) == ["error 413"])
        let chunked = Array("POST /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n12345678\r\n8\r\n12345678\r\n0\r\n\r\n".utf8)
        #expect(streamAll([chunked], limit: 10).last == "error 413")
        #expect(streamAll([Array("PUT /x HTTP/1.1\r\nContent-Length: 17\r\n\r\n".utf8)]) == ["error 413"])
        #expect(streamAll([Array("POST /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n".utf8)]) == ["head POST /c", "error 400"])
    }

    @Test func expectContinueComesBeforeTheStreamedHead() {
        #expect(
            streamAll([Array("POST /e HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n".utf8), Array("ok".utf8)])
                == ["100-continue", "head POST /e", "part ok", "end"])
    }
}

/// Reads a streamed body slowly, then answers with its length and a checksum.
private let slowCounter: HTTPResponder = { req in
    guard let reader = req.bodyStream else { return .text("buffered \(req.body.count)") }
    var total = 0, reads = 0
    var sum: UInt64 = 0
    do {
        while let chunk = try await reader.read() {
            total += chunk.count
            reads += 1
            for b in chunk { sum = sum &+ UInt64(b) }
            // Falls behind the client now and then, so the server has to stop reading it.
            if req.path == "/slow" && reads % 8 == 0 { try? await Task.sleep(nanoseconds: 1_000_000) }
        }
    } catch let e as HTTPBodyError {
        return .text("failed \(e.status)", status: e.status)
    } catch {
        return .text("failed", status: 500)
    }
    return .text("streamed \(total) \(sum)")
}

@Suite(.serialized) struct HTTPStreamedBodyServerTests {
    private static func uploads(_ config: inout HTTPServerConfiguration) {
        config.maxBodyBytes = 1024
        config.streamingPolicy = { $0.path.hasPrefix("/up") || $0.path == "/slow" || $0.path == "/early" ? 64 << 20 : nil }
    }

    @Test func aLargeBodyStreamsThroughASlowHandlerAndOtherRoutesKeepTheLimit() async throws {
        try await withServer(Self.uploads, responder: slowCounter) { bound in
            let size = 4 << 20
            var body = [UInt8](repeating: 0, count: size)
            for i in 0..<size { body[i] = UInt8(truncatingIfNeeded: i &* 31) }
            let expectedSum = body.reduce(UInt64(0)) { $0 &+ UInt64($1) }
            let r = try await HTTPClient.send(
                HTTPRequest(method: "POST", target: "/slow", body: body), host: "127.0.0.1", port: bound[0].port, timeout: 60)
            #expect(String(decoding: r.body, as: UTF8.self) == "streamed \(size) \(expectedSum)")
            let small = try await HTTPClient.send(
                HTTPRequest(method: "POST", target: "/up", body: Array("abc".utf8)), host: "127.0.0.1", port: bound[0].port)
            #expect(String(decoding: small.body, as: UTF8.self) == "streamed 3 294")
            let other = try await HTTPClient.send(
                HTTPRequest(method: "POST", target: "/other", body: [UInt8](repeating: 1, count: 2048)), host: "127.0.0.1", port: bound[0].port)
            #expect(other.status == 413)
        }
    }

    @Test func keepAliveContinuesAfterAStreamedBodyAndChunkedUploadsWork() async throws {
        try await withServer(Self.uploads, responder: slowCounter) { bound in
            let c = try RawClient(port: bound[0].port)
            try c.send("POST /up HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\nGET /after HTTP/1.1\r\n\r\n")
            let text = await c.read(responses: 2)
            #expect(text.contains("streamed 5 495"))
            #expect(text.contains("buffered 0"))
        }
    }

    @Test func anEarlyAnswerClosesTheConnectionAndABrokenUploadFailsTheRead() async throws {
        let seen = Mutex<[String]>([])
        let responder: HTTPResponder = { req in
            if req.path == "/early" { return .text("refused", status: 403) }
            let r = await slowCounter(req)
            seen.withLock { $0.append(String(decoding: r.body, as: UTF8.self)) }
            return r
        }
        try await withServer(Self.uploads, responder: responder) { bound in
            let c = try RawClient(port: bound[0].port)
            try c.send("POST /early HTTP/1.1\r\nContent-Length: 50000000\r\n\r\n" + String(repeating: "x", count: 100_000))
            let text = await c.read(responses: 1)
            #expect(text.hasPrefix("HTTP/1.1 403"))
            #expect(text.contains("Connection: close"))
            #expect(await c.isClosed(within: 3))

            let d = try RawClient(port: bound[0].port)
            try d.send("POST /up HTTP/1.1\r\nContent-Length: 1000\r\n\r\nonly part of it")
            shutdown(d.fd, Int32(SHUT_WR))
            for _ in 0..<200 where seen.withLock({ $0.isEmpty }) { try await Task.sleep(nanoseconds: 10_000_000) }
            #expect(seen.withLock { $0 } == ["failed 400"])
        }
    }

    @Test func aStalledUploadTimesOut() async throws {
        try await withServer(
            {
                Self.uploads(&$0)
                $0.idleTimeout = 0.3
            }, responder: slowCounter
        ) { bound in
            let c = try RawClient(port: bound[0].port)
            try c.send("POST /up HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc")
            let text = await c.read(responses: 1, timeout: 5)
            #expect(text.hasPrefix("HTTP/1.1 408"))
            #expect(text.contains("failed 408"))
        }
    }

    @Test func fixedLengthStreamingResponsesSendContentLengthAndNoChunks() async throws {
        let responder: HTTPResponder = { req in
            var r = HTTPResponse(status: 200)
            r.streamContentLength = req.path == "/short" ? 10 : 6
            r.stream = { w in
                try? await w.write(Array("abc".utf8))
                try? await w.write(Array("def".utf8))
            }
            return r
        }
        try await withServer(responder: responder) { bound in
            let c = try RawClient(port: bound[0].port)
            try c.send("GET /ok HTTP/1.1\r\n\r\nHEAD /ok HTTP/1.1\r\n\r\n")
            let text = await c.readRaw(until: "Content-Length: 6\r\n\r\nabcdefHTTP/1.1 200 OK")
            #expect(text.contains("Content-Length: 6\r\n\r\nabcdef"))
            #expect(!text.contains("chunked"))
            // A body that falls short of its length ends the connection (it cannot be framed).
            let d = try RawClient(port: bound[0].port)
            try d.send("GET /short HTTP/1.1\r\n\r\n")
            #expect(await d.isClosed(within: 3))
        }
    }
}
