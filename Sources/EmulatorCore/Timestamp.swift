/// A point in time with nanosecond resolution (seconds since the Unix epoch plus nanos), as in
/// google.protobuf.Timestamp. Comparable, hashable and free of Foundation.
public struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Whole seconds since 1970-01-01T00:00:00Z.
    public var seconds: Int64
    /// Nanoseconds within the second, 0...999_999_999.
    public var nanos: Int32

    /// Creates a timestamp, normalising `nanos` into range.
    public init(seconds: Int64, nanos: Int32 = 0) {
        var s = seconds
        var n = Int64(nanos)
        s += n / 1_000_000_000
        n %= 1_000_000_000
        if n < 0 {
            n += 1_000_000_000
            s -= 1
        }
        self.seconds = s
        self.nanos = Int32(n)
    }

    /// The earliest time Firestore can store: 0001-01-01T00:00:00Z.
    public static let earliest = Timestamp(seconds: -62_135_596_800)
    /// The latest time Firestore can store: 9999-12-31T23:59:59.999999999Z.
    public static let latest = Timestamp(seconds: 253_402_300_799, nanos: 999_999_999)
    /// Whether Firestore can store this time (years 1 to 9999).
    public var isInFirestoreRange: Bool { self >= Self.earliest && self <= Self.latest }

    /// Creates a timestamp from microseconds since the epoch.
    public init(microseconds: Int64) {
        self.init(seconds: microseconds / 1_000_000, nanos: Int32((microseconds % 1_000_000) * 1000))
    }

    /// Creates a timestamp from milliseconds since the epoch.
    public init(milliseconds: Int64) { self.init(microseconds: milliseconds * 1000) }

    /// Microseconds since the epoch (nanos truncated).
    public var microseconds: Int64 { seconds * 1_000_000 + Int64(nanos) / 1000 }
    /// Milliseconds since the epoch (truncated).
    public var milliseconds: Int64 { seconds * 1000 + Int64(nanos) / 1_000_000 }

    /// This time truncated to microseconds (Firestore's server resolution).
    public var truncatedToMicroseconds: Timestamp { Timestamp(seconds: seconds, nanos: nanos / 1000 * 1000) }

    /// This time plus a (possibly fractional, possibly negative) number of seconds. A delta past
    /// ±10^12 s (far beyond years 1 to 9999 either way) counts as that much, and NaN as none, so
    /// no delta traps converting to whole seconds.
    public func adding(seconds delta: Double) -> Timestamp {
        let bounded = delta.isNaN ? 0 : min(max(delta, -1e12), 1e12)
        let whole = bounded.rounded(.towardZero)
        let frac = Int64(((bounded - whole) * 1e9).rounded())
        return Timestamp(seconds: seconds + Int64(whole), nanos: Int32(Int64(nanos) + frac))
    }

    /// This time plus nanoseconds.
    public func adding(nanoseconds delta: Int64) -> Timestamp {
        Timestamp(seconds: seconds + delta / 1_000_000_000, nanos: Int32(Int64(nanos) + delta % 1_000_000_000))
    }

    /// Orders by seconds then nanos.
    public static func < (a: Timestamp, b: Timestamp) -> Bool {
        a.seconds != b.seconds ? a.seconds < b.seconds : a.nanos < b.nanos
    }

    /// RFC 3339 in UTC.
    public var description: String { rfc3339() }
}
