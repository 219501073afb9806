import Testing

@testable import EmulatorHTTP

/// Replays the bytes a real gRPC client (grpcio, recorded by Fixtures/record_grpc_session.py)
/// sent: the same streams, headers and request messages must come out whether the bytes arrive
/// whole, one at a time, or in odd chunks.
@Suite struct HTTP2ReplayTests {
    struct Seen: Equatable {
        var path: String
        var authority: String?
        var body: [UInt8]
    }

    func replay(chunk: Int) async throws -> [Seen] {
        let h = H2Harness()
        let bytes = Array(GRPCSessionCapture.clientBytes.dropFirst(Connection.http2Preface.count))
        var i = 0
        while i < bytes.count {
            let end = min(bytes.count, i + chunk)
            #expect(h.feed(Array(bytes[i..<end])) == nil)
            i = end
        }
        var out: [Seen] = []
        for s in h.opened {
            var body: [UInt8] = []
            while let c = try await s.read() { body += c }
            out.append(Seen(path: s.path, authority: s.header(":authority"), body: body))
        }
        return out
    }

    @Test func realClientSessionParsesTheSameWhateverTheChunking() async throws {
        #expect(Array(GRPCSessionCapture.clientBytes.prefix(24)) == Connection.http2Preface)
        let whole = try await replay(chunk: Int.max / 2)
        #expect(
            whole.map(\.path) == [
                "/google.firestore.v1.Firestore/Commit", "/google.firestore.v1.Firestore/BatchGetDocuments",
                "/google.firestore.v1.Firestore/RunQuery",
            ])
        // Every body is exactly one uncompressed length-prefixed message.
        for s in whole {
            #expect(s.body.count > 5 && s.body[0] == 0)
            let n = Int(s.body[1]) << 24 | Int(s.body[2]) << 16 | Int(s.body[3]) << 8 | Int(s.body[4])
            #expect(n == s.body.count - 5)
        }
        for chunk in [1, 2, 7, 100] { #expect(try await replay(chunk: chunk) == whole) }
    }
}
