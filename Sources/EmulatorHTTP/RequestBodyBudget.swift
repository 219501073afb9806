import EmulatorCore

/// The request-body bytes buffered for handlers on every connection of one server together,
/// against a process-wide limit (`HTTPServerConfiguration.maxBufferedBodyBytes`). Each body is
/// bounded on its own (`maxBodyBytes`), but a thousand connections, or HTTP/2 streams, each
/// holding most of one would add up to gigabytes; past the budget a new body is refused with
/// 503 and `Retry-After` instead (`EventLoop+BodyBudget`, `HTTP2RequestAdapter`, `GRPCServerCall`).
///
/// Bodies of at most `freeBytes` are not counted: each connection may hold that much unread
/// input anyway (the read-ahead), so they are bounded by the connection cap, and a budget full of
/// large bodies still leaves the small requests it protects room to run.
///
/// Shared by the server's event loops and the HTTP/2 handlers' tasks, so the count is behind a
/// `Mutex` (only `let`s, so the compiler checks `Sendable`); a reservation checks and takes in one
/// step, so the limit is never passed.
final class RequestBodyBudget: Sendable {
    /// The most bytes held at once.
    let limit: Int
    private let held = Mutex(0)

    /// Bodies this small are not counted (the HTTP/1.1 read-ahead, `EventLoop.readAhead`).
    static let freeBytes = 64 * 1024

    /// Creates a budget of `limit` bytes.
    init(limit: Int) { self.limit = max(0, limit) }

    /// Takes `n` more bytes when they fit; false (nothing taken) when they would pass the limit.
    func reserve(_ n: Int) -> Bool {
        guard n > 0 else { return true }
        return held.withLock { h -> Bool in
            // `h <= limit` always holds, so the subtraction cannot overflow, whatever `n` a peer announced.
            guard n <= limit - h else { return false }
            h += n
            return true
        }
    }

    /// Gives back `n` bytes taken earlier.
    func release(_ n: Int) {
        guard n > 0 else { return }
        held.withLock { $0 = max(0, $0 - n) }
    }

    /// Bytes held now.
    var inUse: Int { held.withLock { $0 } }

    /// Why a body was refused (the 503's message, gRPC's `grpc-message`).
    var refusalMessage: String {
        "The server holds too many request bodies at once (maxBufferedBodyBytes: \(limit) bytes); retry shortly."
    }

    /// The answer to a body that does not fit: 503 `UNAVAILABLE` with `Retry-After: 1`, as for a
    /// connection beyond the cap. Not 413: the body is within `maxBodyBytes` and the same request
    /// succeeds once others have been answered; not 429: the cause is everyone's load, not this
    /// client's rate. Client SDKs retry 503 / `UNAVAILABLE`.
    var refusal: HTTPResponse {
        var r = EventLoop.errorResponse(status: 503, message: refusalMessage)
        r.headers.add("Retry-After", "1")
        return r
    }
}
