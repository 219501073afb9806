import EmulatorCore
import Foundation
import Testing

@testable import EmulatorHTTP

#if canImport(Glibc)
import Glibc
#endif

/// The name of the calling thread (Linux keeps 15 bytes).
private func threadName() -> String {
    ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
}

/// Several event loops (`HTTPServerConfiguration.eventLoops`) and answers given on the loop
/// (`HTTPInlineResponder`): connections are spread over the loops, the connection cap counts all
/// of them, what the inline responder takes is answered on a loop thread and the rest on the pool,
/// in request order, and shutdown ends every loop.
@Suite(.serialized) struct HTTPServerLoopsTests {
    /// Answers with the name of the thread the handler ran on; `/stream` streams three parts.
    static let responder: HTTPResponder = { req in
        if req.path == "/stream" {
            var r = HTTPResponse(status: 200)
            r.stream = { w in for part in ["one\n", "two\n", "three\n"] { try? await w.write(Array(part.utf8)) } }
            return r
        }
        if req.path == "/sleep" { try? await Task.sleep(nanoseconds: 20_000_000) }
        return .text("\(req.method) \(threadName())")
    }

    /// Takes GET and HEAD of `/a` (answering with its thread's name), declines everything else.
    static let inline: HTTPInlineResponder = { req in
        if req.path == "/n" { return .text("n=\(req.rawQuery);") }
        guard req.path == "/a", req.method == "GET" || req.method == "HEAD" else { return nil }
        return .text("inline \(req.method) \(threadName())")
    }

    /// The bodies of `count` HTTP/1.1 answers read from `c` (each `.text`, so no CRLF inside).
    static func bodies(_ c: RawClient, _ count: Int) async -> [String] {
        let text = await c.read(responses: count)
        return text.components(separatedBy: "\r\n\r\n").dropFirst().map { $0.components(separatedBy: "HTTP/1.1")[0] }
    }

    @Test func inlineAnswersComeFromTheLoopsAndTheRestFromThePool() async throws {
        try await withServer({ $0.eventLoops = 3 }, responder: Self.responder, inline: Self.inline) { bound in
            var names = Set<String>()
            for _ in 0..<6 {
                let c = try RawClient(port: bound[0].port)
                // Pipelined: inline, declined (suspends on the pool), inline again, another method.
                try c.send("GET /a HTTP/1.1\r\n\r\nGET /sleep HTTP/1.1\r\n\r\nGET /a HTTP/1.1\r\n\r\nPOST /a HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
                let bodies = await Self.bodies(c, 4)
                #expect(bodies.count == 4, "\(bodies)")
                guard bodies.count == 4 else { continue }
                #expect(bodies[0].hasPrefix("inline GET http-loop-") && bodies[2] == bodies[0], "\(bodies)")
                #expect(bodies[1].hasPrefix("GET ") && !bodies[1].contains("http-loop"), "\(bodies)")
                #expect(bodies[3].hasPrefix("POST ") && !bodies[3].contains("http-loop"), "\(bodies)")
                names.insert(bodies[0])
            }
            #expect(names.count == 3, "six connections are handed out over the three loops in turn: \(names)")
        }
    }

    @Test func anInlineAnswerKeepsHTTPsFraming() async throws {
        try await withServer(responder: Self.responder, inline: Self.inline) { bound in
            // HEAD: the GET's headers, no body; the next request on the connection still works.
            let c = try RawClient(port: bound[0].port)
            try c.send("HEAD /a HTTP/1.1\r\n\r\nGET /a HTTP/1.1\r\n\r\n")
            let text = await c.read(responses: 2)
            let parts = text.components(separatedBy: "HTTP/1.1 200")
            #expect(parts.count == 3, "\(text)")
            #expect(parts.count == 3 && parts[1].contains("Content-Length: ") && parts[1].hasSuffix("\r\n\r\n"), "\(text)")
            #expect(text.contains("inline GET http-loop-0"), "\(text)")
            // Connection: close is honoured: answered, then closed.
            let d = try RawClient(port: bound[0].port)
            try d.send("GET /a HTTP/1.1\r\nConnection: close\r\n\r\n")
            #expect(await d.read(responses: 1).contains("Connection: close"))
            #expect(await d.isClosed(within: 3))
        }
    }

    /// Many pipelined requests answered inline come back complete and in order, though the loop
    /// answers them `EventLoop.inlineAnswersPerTurn` at a time, between its other connections.
    @Test func pipelinedInlineAnswersComeInPartsAndInOrder() async throws {
        try await withServer(responder: Self.responder, inline: Self.inline) { bound in
            let count = 10 * EventLoop.inlineAnswersPerTurn + 3
            let c = try RawClient(port: bound[0].port), other = try RawClient(port: bound[0].port)
            try c.send((0..<count).map { "GET /n?\($0) HTTP/1.1\r\n\r\n" }.joined())
            try other.send("GET /a HTTP/1.1\r\n\r\n")
            let text = await c.read(responses: count, timeout: 10)
            let numbers = text.components(separatedBy: "n=").dropFirst().compactMap { Int($0.prefix { $0 != ";" }) }
            #expect(numbers == Array(0..<count))
            #expect(await other.read(responses: 1).contains("inline GET"))
        }
    }

    @Test func aStreamedAnswerFromAnotherLoopKeepsItsOrder() async throws {
        try await withServer({ $0.eventLoops = 2 }, responder: Self.responder, inline: Self.inline) { bound in
            for _ in 0..<4 {
                let c = try RawClient(port: bound[0].port)
                try c.send("GET /stream HTTP/1.1\r\n\r\n")
                let text = await c.readRaw(until: "0\r\n\r\n")
                #expect(text.contains("4\r\none\n\r\n4\r\ntwo\n\r\n6\r\nthree\n\r\n0\r\n\r\n"), "\(text)")
            }
        }
    }

    @Test func theConnectionCapCountsEveryLoop() async throws {
        try await withServer(
            {
                $0.eventLoops = 2
                $0.maxConnections = 2
            }, responder: Self.responder
        ) { bound in
            let a = try RawClient(port: bound[0].port), b = try RawClient(port: bound[0].port)
            for c in [a, b] {
                try c.send("GET /a HTTP/1.1\r\n\r\n")
                #expect(await c.read(responses: 1).hasPrefix("HTTP/1.1 200"))
            }
            let extra = try RawClient(port: bound[0].port)
            #expect(await extra.read(responses: 1).hasPrefix("HTTP/1.1 503"))
            #expect(await extra.isClosed(within: 3))
            a.send(close: ())
            // A closed connection frees its place on whichever loop it was.
            var served = false
            for _ in 0..<50 where !served {
                let next = try RawClient(port: bound[0].port)
                try next.send("GET /a HTTP/1.1\r\n\r\n")
                served = await next.read(responses: 1).hasPrefix("HTTP/1.1 200")
                if !served { try await Task.sleep(nanoseconds: 20_000_000) }
            }
            #expect(served)
        }
    }

    @Test func theLoopCountIsBounded() {
        var c = HTTPServerConfiguration(listeners: [])
        c.eventLoops = 0
        #expect(c.resolvedEventLoops == 1)
        c.eventLoops = 1000
        #expect(c.resolvedEventLoops == HTTPServerConfiguration.maxEventLoops)
        c.eventLoops = nil
        #expect((1...HTTPServerConfiguration.maxEventLoops).contains(c.resolvedEventLoops))
    }
}

extension RawClient {
    /// Shuts the connection down (the server sees its end of input).
    fileprivate func send(close: Void) { shutdown(fd, Int32(SHUT_RDWR)) }
}
