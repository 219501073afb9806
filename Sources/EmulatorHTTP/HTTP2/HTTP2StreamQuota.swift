/// The streams open on every HTTP/2 connection of one server together, against a process-wide
/// cap (`HTTPServerConfiguration.maxStreams`): each open stream holds a task and its buffers, so
/// many connections with many streams each must not add up without bound. Past the cap new
/// streams are refused with REFUSED_STREAM, which clients retry.
///
/// Confined to the event-loop thread, like the connections that share it (the fuzzing driver
/// and tests give each connection its own).
final class HTTP2StreamQuota {
    /// The cap.
    let limit: Int
    /// Streams open now.
    private(set) var open = 0
    /// Streams closed since the loop last returned freed memory to the system.
    var closedSinceTrim = 0

    /// Creates a quota of `limit` streams.
    init(limit: Int) { self.limit = limit }

    /// True when another stream may open.
    var hasRoom: Bool { open < limit }

    /// A stream opened.
    func opened() { open += 1 }

    /// `n` streams closed.
    func closed(_ n: Int) {
        open -= n
        closedSinceTrim += n
    }
}
