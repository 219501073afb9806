import EmulatorCore

/// Where a streaming response writes its body, piece by piece, as it is produced (Server-Sent
/// Events). Over HTTP/1.1 each write becomes a chunk of a chunked body; over HTTP/2, DATA frames.
/// `write` suspends while the client is behind and throws once it has gone away.
public protocol HTTPBodyWriter: Sendable {
    /// Sends `bytes` as the next part of the body.
    func write(_ bytes: [UInt8]) async throws
}

/// The client of a streaming response went away (or the server is stopping).
public struct HTTPBodyClosed: Error, Sendable {
    /// Creates the error.
    public init() {}
}

/// The HTTP/1.1 writer: each write is posted to the event loop as a chunk and waits until the loop
/// has taken it with little output pending, so at most one chunk per response waits in memory.
/// State behind a `Mutex`; the loop acknowledges or fails it.
final class HTTP1BodyWriter: HTTPBodyWriter, @unchecked Sendable {
    struct State {
        var waiter: CheckedContinuation<Void, any Error>?
        var failed = false
    }

    private let state = Mutex(State())
    private let post: @Sendable (_ bytes: [UInt8], _ end: Bool) -> Void

    init(post: @escaping @Sendable (_ bytes: [UInt8], _ end: Bool) -> Void) { self.post = post }

    func write(_ bytes: [UInt8]) async throws {
        guard !bytes.isEmpty else { return }
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
            let failed = state.withLock { s -> Bool in
                if s.failed { return true }
                s.waiter = c
                return false
            }
            if failed { c.resume(throwing: HTTPBodyClosed()) } else { post(bytes, false) }
        }
    }

    /// Ends the body (the terminating chunk).
    func finish() { if !state.withLock({ $0.failed }) { post([], true) } }

    /// The loop took the last chunk.
    func acknowledge() {
        let w = state.withLock { s -> CheckedContinuation<Void, any Error>? in
            defer { s.waiter = nil }
            return s.waiter
        }
        w?.resume()
    }

    /// The connection is gone: the producer's next (or current) write throws.
    func fail() {
        let w = state.withLock { s -> CheckedContinuation<Void, any Error>? in
            s.failed = true
            defer { s.waiter = nil }
            return s.waiter
        }
        w?.resume(throwing: HTTPBodyClosed())
    }
}

/// The HTTP/2 writer: DATA frames on the stream, with its flow control.
struct HTTP2BodyWriter: HTTPBodyWriter {
    let stream: HTTP2Stream
    func write(_ bytes: [UInt8]) async throws {
        do { try await stream.write(data: bytes) } catch { throw HTTPBodyClosed() }
    }
}
