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

    /// Stops the clock at `time`.
    public func freeze(at time: Timestamp) { state.withLock { $0 = .frozen(time) } }

    /// Moves the clock forward (or back, for negative values) by `seconds` in either mode.
    public func advance(seconds: Double) {
        state.withLock { mode in
            switch mode {
            case .system(let offset): mode = .system(offsetNanos: offset + Int64((seconds * 1e9).rounded()))
            case .frozen(let t): mode = .frozen(t.adding(seconds: seconds))
            }
        }
    }
}
