import EmulatorCore

/// Counts what a peer makes an HTTP/2 connection do for it cheaply (frames that cost the sender a
/// few bytes and us a task, an answer or a scan), per kind, with token buckets: each kind allows
/// a burst and then a steady rate. A peer past either gets GOAWAY ENHANCE_YOUR_CALM, as nghttp2
/// and nginx do against rapid reset (CVE-2023-44487) and the 2019 flood family (CVE-2019-9512
/// ping, 9515 settings, 9518 empty frames).
///
/// A value type owned by one `HTTP2Connection` (confined to the event-loop thread). Time comes
/// from the connection's injected monotonic clock, so the fuzzer and the tests are deterministic.
struct HTTP2FloodGuard {
    /// What is being counted.
    enum Kind: Int, CaseIterable {
        /// Streams reset early: RST_STREAM from the peer, and streams we had to reset or refuse
        /// because of what the peer sent (each opened stream is a task started for nothing).
        case reset
        /// Frames we must answer: PING and SETTINGS (not their acknowledgements).
        case answered
        /// Frames that carry no progress: DATA with no payload that does not end its stream,
        /// empty CONTINUATION or HEADERS fragments, PRIORITY, and frame types we do not know.
        case empty

        /// A name for GOAWAY's debug data.
        var name: String {
            switch self {
            case .reset: return "stream resets"
            case .answered: return "PING and SETTINGS frames"
            case .empty: return "empty, PRIORITY or unknown frames"
            }
        }
    }

    /// Bucket sizes and refill rates per kind, in millitokens (integers: no drift).
    private let capacity: [Int]
    private let refillPerMs: [Int]
    /// Tokens left per kind, in millitokens.
    private var milli: [Int]
    private var last: UInt64

    /// Creates full buckets at `now` (monotonic nanoseconds). Rates are clamped to a billion, so
    /// the arithmetic cannot overflow whatever a configuration says.
    init(reset: HTTP2FloodRate, answered: HTTP2FloodRate, empty: HTTP2FloodRate, now: UInt64) {
        let rates = [reset, answered, empty]
        capacity = rates.map { max(0, min($0.burst, 1_000_000_000)) * 1000 }
        refillPerMs = rates.map { max(0, min($0.perSecond, 1_000_000_000)) }
        milli = capacity
        last = now
    }

    /// Takes one token of `kind`; false when the bucket is empty (the peer is flooding).
    mutating func take(_ kind: Kind, now: UInt64) -> Bool {
        let elapsed = MonotonicClock.elapsed(since: last, now)
        if elapsed >= 1_000_000 {
            // Whole elapsed milliseconds times the rate per second = millitokens (an hour at
            // most counts, far more than any bucket holds).
            let ms = Int(min(elapsed, 3_600_000_000_000) / 1_000_000)
            last += UInt64(ms) * 1_000_000
            for i in milli.indices { milli[i] = min(capacity[i], milli[i] + ms * refillPerMs[i]) }
        }
        let i = kind.rawValue
        guard milli[i] >= 1000 else { return false }
        milli[i] -= 1000
        return true
    }
}
