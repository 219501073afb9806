import EmulatorCore
import Foundation
import Testing

@testable import EmulatorHTTP

/// The process-wide budget of buffered request bodies: one body past it is refused (503 with
/// `Retry-After`, gRPC `UNAVAILABLE`) while others hold their bytes, and the bytes come back when
/// a request is answered or its connection closes. Without the budget each body was bounded
/// alone, and a thousand connections each sending most of 32 MiB could hold 30 GiB.
@Suite(.serialized) struct RequestBodyBudgetTests {
    static let kib = 1024

    /// A POST with a body of `size` bytes; `sent` of them go with the head (all by default).
    static func post(_ path: String, size: Int, sent: Int? = nil, expect: Bool = false) -> [UInt8] {
        let head = "POST \(path) HTTP/1.1\r\nHost: t\r\nContent-Length: \(size)\r\n\(expect ? "Expect: 100-continue\r\n" : "")\r\n"
        return Array(head.utf8) + [UInt8](repeating: 0x20, count: sent ?? size)
    }

    /// DATA frames of at most 16 KiB (the default largest frame) carrying `bytes` on `stream`.
    static func data(_ stream: UInt32, _ bytes: [UInt8], end: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        var at = 0
        repeat {
            let upTo = min(bytes.count, at + 16 * kib)
            let last = upTo == bytes.count
            out += H2Harness.frame(HTTP2FrameType.data, last && end ? HTTP2Flag.endStream : 0, stream, Array(bytes[at..<upTo]))
            at = upTo
        } while at < bytes.count
        return out
    }

    /// Polls `condition` for up to `seconds`.
    static func eventually(_ seconds: Double = 5, _ condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        return condition()
    }

    /// Runs `body` against a server with a body budget of `budget` bytes whose responder answers
    /// the body's size, holding `/hold` requests until `gate` is set.
    static func withBudgetServer(
        _ budget: Int, gate: Mutex<Bool> = Mutex(true), _ body: (HTTPServer, Int) async throws -> Void
    ) async throws {
        var config = HTTPServerConfiguration(listeners: [.init(host: "127.0.0.1", port: 0)])
        config.maxBufferedBodyBytes = budget
        let server = HTTPServer(configuration: config) { req in
            if req.path == "/hold" {
                while !gate.withLock({ $0 }) { try? await Task.sleep(nanoseconds: 10_000_000) }
            }
            return .text("\(req.body.count)")
        }
        let port = try server.start()[0].port
        do { try await body(server, port) } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }

    @Test func aChargeCountsOnlyBodiesPastTheFreeSizeAndTakesNothingWhenRefused() {
        let budget = RequestBodyBudget(limit: 200 * Self.kib)
        var a = RequestBodyCharge(budget: budget), b = RequestBodyCharge(budget: budget)
        var ok = a.cover(RequestBodyBudget.freeBytes)
        #expect(ok && budget.inUse == 0, "a small body rides free")
        ok = a.cover(150 * Self.kib)
        #expect(ok && budget.inUse == 150 * Self.kib)
        ok = b.cover(100 * Self.kib)
        #expect(!ok && b.bytes == 0 && budget.inUse == 150 * Self.kib, "refused: nothing taken")
        ok = b.cover(10 * Self.kib)
        #expect(ok, "small bodies still pass when the budget is full")
        ok = b.cover(Int.max)
        #expect(!ok && budget.inUse == 150 * Self.kib, "an absurd size is refused, not trapped on")
        ok = a.cover(100 * Self.kib)
        #expect(ok && budget.inUse == 100 * Self.kib, "a smaller charge gives back the difference")
        ok = b.cover(100 * Self.kib)
        #expect(ok && budget.inUse == 200 * Self.kib)
        a.release()
        b.release()
        #expect(budget.inUse == 0)
    }

    @Test func aBodyPastTheBudgetIs503WhileAnotherIsHeldAndPassesOnceItIsAnswered() async throws {
        let gate = Mutex(false)
        try await Self.withBudgetServer(1 << 20, gate: gate) { server, port in
            let held = try RawClient(port: port)
            try HTTPClient.writeAll(held.fd, Self.post("/hold", size: 768 * Self.kib))
            #expect(await Self.eventually { server.bodyBudget.inUse == 768 * Self.kib }, "the body is charged while its handler runs")

            let refused = try RawClient(port: port)
            try HTTPClient.writeAll(refused.fd, Self.post("/x", size: 512 * Self.kib, sent: 0))
            let answer = await refused.read(responses: 1)
            #expect(answer.hasPrefix("HTTP/1.1 503"), "\(answer.prefix(200))")
            #expect(answer.contains("Retry-After: 1") && answer.contains("UNAVAILABLE") && answer.contains("maxBufferedBodyBytes"))
            #expect(await refused.isClosed(within: 3))

            // Refused before the client sends the body it asked leave to send.
            let asking = try RawClient(port: port)
            try HTTPClient.writeAll(asking.fd, Self.post("/x", size: 512 * Self.kib, sent: 0, expect: true))
            let noContinue = await asking.read(responses: 1)
            #expect(noContinue.hasPrefix("HTTP/1.1 503") && !noContinue.contains("100 Continue"))

            let small = try RawClient(port: port)
            try HTTPClient.writeAll(small.fd, Self.post("/x", size: 1000))
            #expect(await small.read(responses: 1).hasSuffix("\r\n\r\n1000"), "a small body is not counted")

            gate.withLock { $0 = true }
            #expect(await held.read(responses: 1).hasSuffix("\r\n\r\n\(768 * Self.kib)"))
            #expect(await Self.eventually { server.bodyBudget.inUse == 0 }, "answered: the bytes are given back")
            let next = try RawClient(port: port)
            try HTTPClient.writeAll(next.fd, Self.post("/x", size: 512 * Self.kib))
            #expect(await next.read(responses: 1).hasSuffix("\r\n\r\n\(512 * Self.kib)"))
            #expect(await Self.eventually { server.bodyBudget.inUse == 0 })
        }
    }

    @Test func anUnfinishedBodyHoldsItsBytesUntilItsConnectionCloses() async throws {
        try await Self.withBudgetServer(1 << 20) { server, port in
            var partial: RawClient? = try RawClient(port: port)
            try HTTPClient.writeAll(partial!.fd, Self.post("/x", size: 768 * Self.kib, sent: 100 * Self.kib))
            #expect(await Self.eventually { server.bodyBudget.inUse == 768 * Self.kib }, "charged as soon as the head is in")

            // Chunked: each announced chunk is charged as it starts.
            let chunked = try RawClient(port: port)
            try chunked.send("POST /x HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n50000\r\n")  // 320 KiB: past the 1 MiB
            let answer = await chunked.read(responses: 1)
            #expect(answer.hasPrefix("HTTP/1.1 503"), "\(answer.prefix(200))")

            partial = nil  // closes the socket
            #expect(await Self.eventually { server.bodyBudget.inUse == 0 }, "closed: the bytes are given back")
            let next = try RawClient(port: port)
            try HTTPClient.writeAll(next.fd, Self.post("/x", size: 768 * Self.kib))
            #expect(await next.read(responses: 1).hasSuffix("\r\n\r\n\(768 * Self.kib)"))
        }
    }

    @Test(.timeLimit(.minutes(1))) func anHTTP2BodyPastTheBudgetIs503AndItsBytesComeBack() async throws {
        let budget = RequestBodyBudget(limit: 256 * Self.kib)
        let h = H2Harness()
        h.feed(H2Harness.settings())
        // One body holds 200 KiB; another declares 100 KiB more, a third sends it undeclared.
        h.feed(h.request(1, extra: [("content-type", "application/json"), ("content-length", "\(200 * Self.kib)")]))
        h.feed(h.request(3, extra: [("content-type", "application/json"), ("content-length", "\(100 * Self.kib)")]))
        h.feed(h.request(5, extra: [("content-type", "application/json")]))
        #expect(h.opened.count == 3)
        let echo: HTTPResponder = { .text("\($0.body.count)") }
        let first = Task { await HTTP2RequestAdapter.serve(h.opened[0], responder: echo, maxBodyBytes: 1 << 20, budget: budget) }
        #expect(await Self.eventually { budget.inUse == 200 * Self.kib }, "a declared length is charged before the bytes come")
        await HTTP2RequestAdapter.serve(h.opened[1], responder: echo, maxBodyBytes: 1 << 20, budget: budget)
        let third = Task { await HTTP2RequestAdapter.serve(h.opened[2], responder: echo, maxBodyBytes: 1 << 20, budget: budget) }
        h.feed(Self.data(5, [UInt8](repeating: 0x20, count: 112 * Self.kib)))
        await third.value
        h.apply()
        let statuses = h.frames().filter { $0.type == HTTP2FrameType.headers }.map { ($0.streamId, h.headers($0)[":status"]) }
        #expect(statuses.contains { $0 == (3, "503") } && statuses.contains { $0 == (5, "503") }, "\(statuses)")
        #expect(budget.inUse == 200 * Self.kib, "the refused bodies gave their bytes back")
        h.feed(H2Harness.frame(HTTP2FrameType.rstStream, 0, 1, [0, 0, 0, 8]))  // the peer cancels
        await first.value
        #expect(budget.inUse == 0, "a reset body gives its bytes back")
    }

    @Test(.timeLimit(.minutes(1))) func aGRPCMessagePastTheBudgetIsUnavailableAndItsBytesComeBack() async throws {
        let budget = RequestBodyBudget(limit: 256 * Self.kib)
        let h = H2Harness()
        h.feed(H2Harness.settings())
        h.feed(h.request(1))
        h.feed(h.request(3))
        let (first, second) = (GRPCServerCall(stream: h.opened[0], budget: budget), GRPCServerCall(stream: h.opened[1], budget: budget))
        // A 200 KiB message is charged whole once its length prefix is in, though 150 KiB have come;
        // another announcing 100 KiB does not fit beside it and is refused at its first bytes.
        let announcing: (Int) -> [UInt8] = { n in [0, UInt8(n >> 24 & 0xff), UInt8(n >> 16 & 0xff), UInt8(n >> 8 & 0xff), UInt8(n & 0xff)] }
        h.feed(Self.data(1, announcing(200 * Self.kib) + [UInt8](repeating: 1, count: 150 * Self.kib)))
        h.feed(Self.data(3, announcing(100 * Self.kib) + [UInt8](repeating: 1, count: 16 * Self.kib)))
        let waiting = Task { try await first.receive() }
        #expect(await Self.eventually { budget.inUse == 200 * Self.kib + 5 })
        do {
            _ = try await second.receive()
            Issue.record("a message past the budget was buffered")
        } catch let status as GRPCStatus {
            #expect(status.code == 14 && status.message.contains("maxBufferedBodyBytes"), "\(status)")
        }
        #expect(budget.inUse == 200 * Self.kib + 5, "the refused call took nothing")
        second.releaseReceived()
        h.feed(Self.data(1, [UInt8](repeating: 1, count: 50 * Self.kib), end: true))
        #expect(try await waiting.value?.count == 200 * Self.kib)
        #expect(budget.inUse == 0, "a complete message is the handler's: its bytes are given back")
    }
}
