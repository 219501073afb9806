#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Readings of the monotonic clock in nanoseconds, for timeouts, deadlines and rates (never a
/// time a client sees: that is `EmulatorClock`), and the one way to subtract two of them.
///
/// Stateless. The transport and process layers read it directly; services take a reading, or a
/// closure returning one, as a parameter.
public enum MonotonicClock {
    /// Nanoseconds since an arbitrary fixed point (`CLOCK_MONOTONIC`: never steps back).
    public static func nanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// A span of `seconds` in nanoseconds: 0 for zero, negative or NaN, `UInt64.max` past what it
    /// holds. The one conversion of seconds, so no caller writes `UInt64(x * 1e9)`, which traps on
    /// exactly those values (a function manifest's `timeoutSeconds: 1e300` did).
    @inlinable
    public static func nanoseconds(inSeconds seconds: Double) -> UInt64 {
        guard seconds > 0 else { return 0 }
        let ns = seconds * 1e9
        return ns < 18_446_744_073_709_551_616.0 ? UInt64(ns) : .max
    }

    /// The reading `seconds` after `now` (by default the current one), saturating at `UInt64.max`
    /// (never). Every timeout and deadline is built here.
    @inlinable
    public static func deadline(afterSeconds seconds: Double, from now: UInt64 = nanoseconds()) -> UInt64 {
        let (sum, overflow) = now.addingReportingOverflow(nanoseconds(inSeconds: seconds))
        return overflow ? .max : sum
    }

    /// Nanoseconds from `earlier` to `now`; 0 when `earlier` is the later reading. A reading taken
    /// once and then compared with times another thread stamps afterwards (a maintenance pass over
    /// live sessions) meets later times: a wrapping difference made those look 2^64 ns old.
    @inlinable
    public static func elapsed(since earlier: UInt64, _ now: UInt64) -> UInt64 { now > earlier ? now - earlier : 0 }
}
