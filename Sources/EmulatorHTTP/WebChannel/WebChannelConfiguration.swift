import EmulatorCore

/// Timings and bounds of a `WebChannelServer`. Time is read through `now` (monotonic
/// nanoseconds) and ids come from `makeSessionId`, so tests can drive both.
public struct WebChannelConfiguration: Sendable {
    /// A session with no backchannel and no request for this long is reaped (the client went
    /// away without terminating it); its stream is closed.
    public var sessionTimeout: Duration = .seconds(180)
    /// A streaming backchannel silent for this long gets a `["noop"]` (clients abort a GET after
    /// 45 s without bytes).
    public var keepAliveInterval: Duration = .seconds(25)
    /// A long-poll backchannel with nothing to send ends with a `["noop"]` after this long (or the
    /// client's `TO`, when shorter).
    public var longPollTimeout: Duration = .seconds(25)
    /// Data waiting for a backchannel that takes nothing for this long drops the session (a
    /// client that never reads, as a gRPC listener that falls too far behind).
    public var stallTimeout: Duration = .seconds(60)
    /// A backchannel ends once it has written this many bytes the client has not acknowledged,
    /// so that the next GET's `AID` lets the server forget them.
    public var maxUnacknowledgedBytes = 1 << 20
    /// A stream's `send` waits while this many bytes wait for the backchannel.
    public var sendBufferBytes = 1 << 20
    /// Queued bytes beyond which a session is dropped at once (a client that writes but never
    /// reads its answers).
    public var maxQueuedBytes = 32 << 20
    /// Bytes per chunk written to the backchannel (arrays are never split).
    public var chunkBytes = 256 << 10
    /// Open sessions per server; a handshake beyond evicts the oldest session that never
    /// attached a backchannel, or answers `RESOURCE_EXHAUSTED` when every session has attached one.
    public var maxSessions = 20_000
    /// Open sessions per peer (client address without its port); a handshake beyond evicts that
    /// peer's oldest never-attached session, or answers `RESOURCE_EXHAUSTED`. A browser tab holds
    /// one or two sessions (Listen, Write) and a test suite on one machine seldom holds hundreds at
    /// once, so 1,000 stays far above real use; at a twentieth of `maxSessions`, one remote address
    /// cannot take the whole table even with every session attached.
    public var maxSessionsPerPeer = 1_000
    /// A session that has not attached a backchannel this long after its handshake is reaped
    /// (clients open the backchannel within milliseconds; a handshake alone is the cheapest way to
    /// hold a session). Far below `sessionTimeout`, yet generous, so a GET delayed by a busy
    /// machine or a browser's per-host connection limit still finds its session; one later gets
    /// `Unknown SID` and the client opens a new session.
    public var unattachedTimeout: Duration = .seconds(60)
    /// How often the maintenance pass runs (reaping, keep-alives, long-poll ends).
    public var tick: Duration = .seconds(1)
    /// The keep-alive the handshake announces (`["c",SID,"",8,12,<ms>]`): clients give up on a
    /// silent backchannel after 1.5 times this.
    public var announcedKeepAliveMilliseconds = 30_000
    /// Monotonic time in nanoseconds.
    public var now: @Sendable () -> UInt64 = { MonotonicClock.nanoseconds() }
    /// A new session id: URL-safe and unguessable (another page must not be able to post into a
    /// session it did not open).
    public var makeSessionId: @Sendable () -> String = { WebChannelConfiguration.randomId() }

    /// The defaults.
    public init() {}

    /// 22 URL-safe characters from 128 bits of the system's secure generator.
    public static func randomId() -> String {
        var g = SystemRandomNumberGenerator()
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(22)
        for _ in 0..<3 {
            var bits: UInt64 = g.next()
            for _ in 0..<min(10, 22 - out.count) {  // 10 characters of 6 bits from each 64-bit draw
                out.append(alphabet[Int(bits & 63)])
                bits >>= 6
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension Duration {
    /// The duration in whole nanoseconds (saturating; negative durations are 0).
    var nanoseconds: UInt64 {
        let (s, a) = components
        guard s >= 0 else { return 0 }
        let (ns, overflow) = UInt64(s).multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? UInt64.max : ns.addingReportingOverflow(UInt64(max(0, a / 1_000_000_000))).partialValue
    }
}
