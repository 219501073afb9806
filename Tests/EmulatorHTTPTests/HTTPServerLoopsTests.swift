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

/// Several event loops (`HTTPServerConfiguration.eventLoops`) and reads answered on the loop
/// (`answerReadsOnLoop`): connections are spread over the loops, the connection cap counts all of
/// them, GET and HEAD run on a loop thread and other methods on the pool, streamed answers keep
/// their order, and shutdown ends every loop.
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

    @Test func readsRunOnTheLoopsAndEveryConnectionIsServed() async throws {
        try await withServer(
            {
                $0.eventLoops = 3
                $0.answerReadsOnLoop = true
            }, responder: Self.responder
        ) { bound in
            var names = Set<String>()
            for _ in 0..<6 {
                let c = try RawClient(port: bound[0].port)
                try c.send("GET /a HTTP/1.1\r\n\r\nGET /sleep HTTP/1.1\r\n\r\nPOST /b HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
                let text = await c.read(responses: 3)
                let bodies = text.components(separatedBy: "\r\n\r\n").dropFirst().map { $0.components(separatedBy: "HTTP/1.1")[0] }
                #expect(bodies.count == 3, "\(text)")
                guard bodies.count == 3 else { continue }
                // A GET that suspends (a timer) resumes on its loop too.
                #expect(bodies[0].hasPrefix("GET http-loop-") && bodies[1] == bodies[0], "\(bodies)")
                #expect(bodies[2].hasPrefix("POST ") && !bodies[2].contains("http-loop"), "\(bodies)")
                names.insert(bodies[0])
            }
            #expect(names.count == 3, "six connections are handed out over the three loops in turn: \(names)")
        }
    }

    @Test func aStreamedAnswerFromTheLoopKeepsItsOrder() async throws {
        try await withServer(
            {
                $0.eventLoops = 2
                $0.answerReadsOnLoop = true
            }, responder: Self.responder
        ) { bound in
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
