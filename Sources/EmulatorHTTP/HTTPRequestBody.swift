import EmulatorCore

/// Decides from a request's head (its body still empty) whether the body is streamed to the
/// handler as it arrives, and returns the most bytes such a body may have; nil keeps the server's
/// ordinary limit and a body read whole before the handler runs.
public typealias HTTPBodyStreamingPolicy = @Sendable (HTTPRequest) -> Int?

/// A request body that the handler reads while it arrives (uploads of any size), chunk by chunk.
public protocol HTTPRequestBodyReader: Sendable {
    /// The next bytes of the body (never empty), or nil at its end. Throws `HTTPBodyError` when
    /// the body is invalid, too large, stalled, or the client went away.
    func read() async throws -> [UInt8]?
}

/// Why a streamed request body could not be read to its end.
public struct HTTPBodyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The status an answer would carry (400 bad framing, 408 stalled, 413 too large, 499 gone).
    public var status: Int
    /// What went wrong.
    public var message: String

    /// Creates the error.
    public init(status: Int, message: String) {
        self.status = status
        self.message = message
    }

    /// `status message`.
    public var description: String { "\(status) \(message)" }
}

extension HTTPRequest {
    /// Reads the whole body, whether streamed (up to `limit` bytes, else 413) or already in `body`.
    public func collectBody(limit: Int) async throws -> [UInt8] {
        guard let reader = bodyStream else { return body }
        var out: [UInt8] = []
        while let chunk = try await reader.read() {
            guard out.count <= limit - chunk.count else {
                throw HTTPBodyError(status: 413, message: "Request body exceeds \(limit) bytes.")
            }
            out.append(contentsOf: chunk)
        }
        return out
    }
}

/// The HTTP/1.1 streamed body: the event loop offers the bytes it parses, the handler reads
/// them. Holds at most about `highWater` bytes: past it the loop stops reading the socket, and it
/// resumes when the handler has taken half (`resume` wakes the loop). State behind a `Mutex`.
final class HTTP1RequestBody: HTTPRequestBodyReader, Sendable {
    struct State {
        var chunks: [[UInt8]] = []
        var head = 0  // first chunk not yet read
        var buffered = 0
        var ended = false
        var error: HTTPBodyError?
        var waiter: CheckedContinuation<[UInt8]?, any Error>?
        /// The loop stopped reading for want of room.
        var paused = false
    }

    /// Bytes held before the loop stops reading this connection.
    static let highWater = 1 << 20

    private let state = Mutex(State())
    private let resume: @Sendable () -> Void

    /// Creates the body; `resume` asks the loop to read again.
    init(resume: @escaping @Sendable () -> Void) { self.resume = resume }

    /// Loop side: appends received body bytes. Returns false when the loop should pause reading.
    func offer(_ bytes: [UInt8]) -> Bool {
        let (w, room): (CheckedContinuation<[UInt8]?, any Error>?, Bool) = state.withLock { s in
            guard s.error == nil, !s.ended else { return (nil, true) }
            if let w = s.waiter {
                s.waiter = nil
                return (w, true)
            }
            s.chunks.append(bytes)
            s.buffered += bytes.count
            if s.buffered >= Self.highWater { s.paused = true }
            return (nil, !s.paused)
        }
        w?.resume(returning: bytes)
        return room
    }

    /// Loop side: the body is complete.
    func finish() {
        let w = state.withLock { s -> CheckedContinuation<[UInt8]?, any Error>? in
            s.ended = true
            defer { s.waiter = nil }
            return s.waiter
        }
        w?.resume(returning: nil)
    }

    /// Loop side: the body cannot complete (bad framing, too large, stalled, connection gone).
    /// What arrived before is still read first (a resumable upload keeps a broken chunk's bytes).
    func fail(_ error: HTTPBodyError) {
        let w = state.withLock { s -> CheckedContinuation<[UInt8]?, any Error>? in
            guard !s.ended, s.error == nil else { return nil }
            s.error = error
            defer { s.waiter = nil }
            return s.waiter
        }
        w?.resume(throwing: error)
    }

    /// True once every byte arrived (whether or not the handler read them all).
    var isComplete: Bool { state.withLock { $0.ended } }

    /// Handler side: the next chunk, waiting for the loop when none is buffered.
    func read() async throws -> [UInt8]? {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<[UInt8]?, any Error>) in
            enum Outcome { case chunk([UInt8], resume: Bool), end, failed(HTTPBodyError), wait }
            let outcome: Outcome = state.withLock { s in
                if s.head < s.chunks.count {
                    let chunk = s.chunks[s.head]
                    s.chunks[s.head] = []
                    s.head += 1
                    if s.head == s.chunks.count {
                        s.chunks.removeAll(keepingCapacity: true)
                        s.head = 0
                    }
                    s.buffered -= chunk.count
                    var wake = false
                    if s.paused && s.buffered <= Self.highWater / 2 {
                        s.paused = false
                        wake = true
                    }
                    return .chunk(chunk, resume: wake)
                }
                if let e = s.error { return .failed(e) }
                if s.ended { return .end }
                s.waiter = c
                return .wait
            }
            switch outcome {
            case .chunk(let bytes, let wake):
                c.resume(returning: bytes)
                if wake { resume() }
            case .end: c.resume(returning: nil)
            case .failed(let e): c.resume(throwing: e)
            case .wait: break
            }
        }
    }
}
