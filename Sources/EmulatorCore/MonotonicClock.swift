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

    /// Nanoseconds from `earlier` to `now`; 0 when `earlier` is the later reading. A reading taken
    /// once and then compared with times another thread stamps afterwards (a maintenance pass over
    /// live sessions) meets later times: a wrapping difference made those look 2^64 ns old.
    @inlinable
    public static func elapsed(since earlier: UInt64, _ now: UInt64) -> UInt64 { now > earlier ? now - earlier : 0 }
}
