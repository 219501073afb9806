#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where services get the time. Injected everywhere; no service reads the wall clock itself.
public protocol EmulatorClock: Sendable {
    /// The current time as this clock sees it.
    func now() -> Timestamp
}

/// The machine's real-time clock.
public struct WallClock: EmulatorClock {
    /// Creates the wall clock.
    public init() {}
    /// Reads CLOCK_REALTIME.
    public func now() -> Timestamp {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Timestamp(seconds: Int64(ts.tv_sec), nanos: Int32(ts.tv_nsec))
    }
}

/// A per-project clock the admin API can freeze, set and advance.
///
/// In `system` mode it is the wall clock plus an offset (so `advance` works without freezing);
/// in `frozen` mode it returns a fixed time until told otherwise. State is behind a `Mutex`.
public final class ProjectClock: EmulatorClock {
    /// How the clock currently tells time.
    public enum Mode: Sendable, Equatable {
        /// Wall clock plus `offsetNanos`.
        case system(offsetNanos: Int64)
        /// A fixed instant.
        case frozen(Timestamp)
    }

    private let base: any EmulatorClock
    private let state: Mutex<Mode>

    /// Creates a clock in system mode over `base` (the wall clock unless a test injects one).
    public init(base: any EmulatorClock = WallClock()) {
        self.base = base
        self.state = Mutex(.system(offsetNanos: 0))
    }

    /// The current time.
    public func now() -> Timestamp {
        switch state.withLock({ $0 }) {
        case .system(let offset): return base.now().adding(nanoseconds: offset)
        case .frozen(let t): return t
        }
    }

    /// The current mode.
    public var mode: Mode { state.withLock { $0 } }

    /// Follows the wall clock again (drops any offset).
    public func useSystemTime() { state.withLock { $0 = .system(offsetNanos: 0) } }

    /// Stops the clock at `time`; refused (INVALID_ARGUMENT) outside the years Firestore stores.
    public func freeze(at time: Timestamp) throws {
        try Self.requireInRange(time)
        state.withLock { $0 = .frozen(time) }
    }

    /// Moves the clock forward (or back, for negative values) by `seconds` in either mode.
    /// Refused, with the clock unchanged, when the time would leave years 1 to 9999, or when, while
    /// following the system time, the offset would pass what 64 bits of nanoseconds hold (about
    /// 292 years): repeated advances once overflowed it and took the process down.
    public func advance(seconds: Double) throws {
        guard seconds.isFinite, abs(seconds) <= Self.maxOffsetSeconds else {
            throw EmulatorError.invalidArgument("'seconds' must be a finite number of at most \(Int(Self.maxOffsetSeconds)) (292 years)")
        }
        let nanos = Int64((seconds * 1e9).rounded())
        let base = base.now()
        try state.withLock { mode in
            switch mode {
            case .system(let offset):
                let (sum, overflow) = offset.addingReportingOverflow(nanos)
                guard !overflow, sum.magnitude <= UInt64(Self.maxOffsetSeconds * 1e9) else {
                    throw EmulatorError.invalidArgument(
                        "the clock follows the system time at most 292 years away; freeze it to move further")
                }
                try Self.requireInRange(base.adding(nanoseconds: sum))
                mode = .system(offsetNanos: sum)
            case .frozen(let t):
                let moved = t.adding(seconds: seconds)
                try Self.requireInRange(moved)
                mode = .frozen(moved)
            }
        }
    }

    /// The largest offset from the system time, and the largest single advance, in seconds: what
    /// an `Int64` of nanoseconds holds, rounded down to a whole number of 365-day years (292).
    public static let maxOffsetSeconds: Double = 292 * 365 * 86_400

    private static func requireInRange(_ t: Timestamp) throws {
        guard t.isInFirestoreRange else {
            throw EmulatorError.invalidArgument(
                "the clock must stay between \(Timestamp.earliest.rfc3339()) and \(Timestamp.latest.rfc3339()) (Firestore's range); \(t.rfc3339()) is outside it"
            )
        }
    }
}
