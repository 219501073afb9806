import EmulatorCore

/// The streams open on every HTTP/2 connection of one server together, against a process-wide
/// cap (`HTTPServerConfiguration.maxStreams`): each open stream holds a task and its buffers, so
/// many connections with many streams each must not add up without bound. Past the cap new
/// streams are refused with REFUSED_STREAM, which clients retry.
///
/// Shared by the server's event loops, so the counts are behind a `Mutex`. A check (`hasRoom`)
/// and the open that follows it are two steps: loops opening streams at the same moment can pass
/// the cap by at most one stream per loop. The fuzzing driver and tests give each connection its
/// own quota.
final class HTTP2StreamQuota: Sendable {
    /// The cap.
    let limit: Int
    private let counts = Mutex<(open: Int, closedSinceTrim: Int)>((0, 0))

    /// Creates a quota of `limit` streams.
    init(limit: Int) { self.limit = limit }

    /// Streams open now.
    var open: Int { counts.withLock { $0.open } }

    /// Streams closed since freed memory was last returned to the system.
    var closedSinceTrim: Int {
        get { counts.withLock { $0.closedSinceTrim } }
        set { counts.withLock { $0.closedSinceTrim = newValue } }
    }

    /// True when another stream may open.
    var hasRoom: Bool { counts.withLock { $0.open < limit } }

    /// A stream opened.
    func opened() { counts.withLock { $0.open += 1 } }

    /// `n` streams closed.
    func closed(_ n: Int) {
        guard n != 0 else { return }
        counts.withLock {
            $0.open -= n
            $0.closedSinceTrim += n
        }
    }
}
