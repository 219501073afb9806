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
final class HTTP1BodyWriter: HTTPBodyWriter, Sendable {
    /// The waiting producer and whether the connection is gone.
    struct State {
        var waiter: CheckedContinuation<Void, any Error>?
        var failed = false
        var producer: Task<Void, Never>?
        var written = 0
    }

    private let state = Mutex(State())
    private let post: @Sendable (_ bytes: [UInt8], _ end: Bool) -> Void
    /// The body's announced length (`HTTPResponse.streamContentLength`); nil for chunked framing.
    let declaredLength: Int?

    /// Creates the writer; `post` hands chunks to the event loop.
    init(declaredLength: Int? = nil, post: @escaping @Sendable (_ bytes: [UInt8], _ end: Bool) -> Void) {
        self.declaredLength = declaredLength
        self.post = post
    }

    /// Each write is a chunk of a chunked body (no length was announced).
    var chunked: Bool { declaredLength == nil }

    /// False when a fixed-length body ended short of its announced length.
    var deliveredDeclaredLength: Bool {
        guard let n = declaredLength else { return true }
        return state.withLock { $0.written } == n
    }

    /// Posts a chunk and waits until the loop took it. A fixed-length body refuses bytes past its
    /// announced length.
    func write(_ bytes: [UInt8]) async throws {
        guard !bytes.isEmpty else { return }
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
            let failed = state.withLock { s -> Bool in
                if s.failed { return true }
                if let n = declaredLength, bytes.count > n - s.written { return true }
                s.written += bytes.count
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

    /// Runs the response's producer as `task`, cancelled when the connection goes away: a
    /// producer waiting for its next event (a change feed that is quiet) would otherwise hold its
    /// subscription until its next write fails.
    func cancelOnFailure(_ task: Task<Void, Never>) {
        let failed = state.withLock { s -> Bool in
            s.producer = task
            return s.failed
        }
        if failed { task.cancel() }
    }

    /// The connection is gone: the producer's next (or current) write throws, and its task is
    /// cancelled.
    func fail() {
        let (w, producer) = state.withLock { s -> (CheckedContinuation<Void, any Error>?, Task<Void, Never>?) in
            s.failed = true
            defer { s.waiter = nil }
            return (s.waiter, s.producer)
        }
        w?.resume(throwing: HTTPBodyClosed())
        producer?.cancel()
    }
}

/// The HTTP/2 writer: DATA frames on the stream, with its flow control.
struct HTTP2BodyWriter: HTTPBodyWriter {
    /// The response's stream.
    let stream: HTTP2Stream
    /// Sends the bytes as DATA (with the stream's flow control).
    func write(_ bytes: [UInt8]) async throws {
        do { try await stream.write(data: bytes) } catch { throw HTTPBodyClosed() }
    }
}
