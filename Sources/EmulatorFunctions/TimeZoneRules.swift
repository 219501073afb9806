import EmulatorCore
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// A named time zone's UTC offsets over time, read from the system's zoneinfo database (TZif
/// files, RFC 8536: `$TZDIR` or `/usr/share/zoneinfo`). Scheduled functions evaluate their
/// `timeZone` with it. Immutable value.
///
/// Foundation's `TimeZone(identifier:)` resolves names only through ICU, which is not in
/// FoundationEssentials (the static release binary leaves ICU out: docs/architecture.md,
/// "Foundation"); without it every name, even "UTC", is unknown.
public struct TimeZoneRules: Sendable, Equatable {
    /// Transition instants (seconds since the epoch, ascending) and the offset (seconds east of
    /// UTC) from each one on.
    let transitions: [Int64], offsets: [Int]
    /// The offset before the first transition (the file's time type 0).
    let initialOffset: Int
    /// The rule for times after the last transition (all times when there is none), if any.
    let footer: PosixTimeZone?

    /// UTC.
    public static let utc = TimeZoneRules(transitions: [], offsets: [], initialOffset: 0, footer: nil)

    /// Names that mean UTC even where the zoneinfo database is not installed (a minimal container).
    static let utcNames: Set<String> = [
        "UTC", "Etc/UTC", "GMT", "Etc/GMT", "UCT", "Etc/UCT", "Zulu", "Etc/Zulu", "Universal",
        "Etc/Universal", "GMT0", "Etc/GMT0", "Etc/GMT+0", "Etc/GMT-0", "Greenwich", "Etc/Greenwich",
    ]

    /// Seconds east of UTC at `unixSeconds`.
    public func offset(atUnixSeconds t: Int64) -> Int {
        guard let first = transitions.first else { return footer?.offset(atUnixSeconds: t) ?? initialOffset }
        if t < first { return initialOffset }
        // The last transition at or before t.
        var lo = 0, hi = transitions.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if transitions[mid] <= t { lo = mid } else { hi = mid - 1 }
        }
        if lo == transitions.count - 1, let footer { return footer.offset(atUnixSeconds: t) }
        return offsets[lo]
    }

    /// Zones already read (also the names that are not there), so the schedule runner, which
    /// parses schedules every second, reads a file once. Behind a `Mutex`; at most 256 names.
    private static let cache = Mutex<[String: TimeZoneRules?]>([:])

    /// The zone named `identifier` (IANA, e.g. `Europe/Paris`) from the system's database; nil
    /// when the name is malformed, not installed or its file is not valid TZif. Read once per name.
    public static func named(_ identifier: String) -> TimeZoneRules? {
        if let known = cache.withLock({ $0[identifier] }) { return known }
        let rules = load(identifier)
        cache.withLock { c in
            if c.count >= 256 { c.removeAll() }
            c[identifier] = .some(rules)
        }
        return rules
    }

    /// Reads `identifier` from `$TZDIR` or `/usr/share/zoneinfo`.
    static func load(_ identifier: String) -> TimeZoneRules? {
        let allowed = identifier.utf8.allSatisfy { c in
            (c | 0x20) >= UInt8(ascii: "a") && (c | 0x20) <= UInt8(ascii: "z") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c)
                || c == UInt8(ascii: "/") || c == UInt8(ascii: "_") || c == UInt8(ascii: "-") || c == UInt8(ascii: "+")
        }
        guard allowed, !identifier.isEmpty, identifier.utf8.count <= 100, !identifier.hasPrefix("/"),
            !identifier.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0.isEmpty || $0 == ".." })
        else { return nil }
        let dir = getenv("TZDIR").map { String(cString: $0) } ?? "/usr/share/zoneinfo"
        if let data = FileManager.default.contents(atPath: dir + "/" + identifier), data.count <= 1 << 20,
            let rules = try? parse(Array(data))
        {
            return rules
        }
        return utcNames.contains(identifier) ? .utc : nil
    }

    /// Why bytes are not a TZif file.
    public struct FormatError: Error, Equatable, CustomStringConvertible {
        /// What is wrong.
        public let description: String
    }

    /// Parses a TZif file (versions 1 to 4; the 64-bit data and the footer rule when present).
    /// Leap-second records are skipped.
    public static func parse(_ b: [UInt8]) throws(FormatError) -> TimeZoneRules {
        var r = Reader(b: b)
        let v1 = try r.header()
        if v1.version == 0 {
            return try r.block(v1, timeSize: 4, footer: nil)
        }
        try r.skip(v1.dataLength(timeSize: 4))
        let v2 = try r.header()
        let blockStart = r.i
        try r.skip(v2.dataLength(timeSize: 8))
        // The footer: a newline, a POSIX TZ rule (may be empty), a newline.
        var footer: PosixTimeZone?
        guard try r.byte() == 0x0A else { throw FormatError(description: "no newline before the footer") }
        let textStart = r.i
        while try r.byte() != 0x0A {}
        let text = String(decoding: b[textStart..<(r.i - 1)], as: UTF8.self)
        if !text.isEmpty {
            guard let rule = PosixTimeZone(text) else { throw FormatError(description: "footer '\(text.prefix(60))' is not a POSIX TZ rule") }
            footer = rule
        }
        r.i = blockStart
        return try r.block(v2, timeSize: 8, footer: footer)
    }

    /// A TZif header's counts.
    struct Header {
        var version: UInt8
        var isutcnt = 0, isstdcnt = 0, leapcnt = 0, timecnt = 0, typecnt = 0, charcnt = 0

        func dataLength(timeSize: Int) -> Int {
            timecnt * timeSize + timecnt + typecnt * 6 + charcnt + leapcnt * (timeSize + 4) + isstdcnt + isutcnt
        }
    }

    /// A bounds-checked cursor over the file.
    struct Reader {
        let b: [UInt8]
        var i = 0

        mutating func byte() throws(FormatError) -> UInt8 {
            guard i < b.count else { throw FormatError(description: "truncated at byte \(i)") }
            defer { i += 1 }
            return b[i]
        }

        mutating func skip(_ n: Int) throws(FormatError) {
            guard n >= 0, n <= b.count - i else { throw FormatError(description: "truncated: \(n) bytes needed at byte \(i)") }
            i += n
        }

        mutating func int(_ size: Int) throws(FormatError) -> Int64 {
            var v: UInt64 = 0
            for _ in 0..<size { v = v << 8 | UInt64(try byte()) }
            return size == 4 ? Int64(Int32(truncatingIfNeeded: v)) : Int64(bitPattern: v)
        }

        mutating func header() throws(FormatError) -> Header {
            guard b.count - i >= 44, b[i..<(i + 4)].elementsEqual("TZif".utf8) else { throw FormatError(description: "not a TZif file") }
            let version = b[i + 4]
            guard version == 0 || (UInt8(ascii: "2")...UInt8(ascii: "4")).contains(version) else {
                throw FormatError(description: "unknown TZif version \(version)")
            }
            i += 20
            var h = Header(version: version)
            h.isutcnt = Int(try int(4) & 0xFFFF_FFFF)
            h.isstdcnt = Int(try int(4) & 0xFFFF_FFFF)
            h.leapcnt = Int(try int(4) & 0xFFFF_FFFF)
            h.timecnt = Int(try int(4) & 0xFFFF_FFFF)
            h.typecnt = Int(try int(4) & 0xFFFF_FFFF)
            h.charcnt = Int(try int(4) & 0xFFFF_FFFF)
            guard h.typecnt >= 1 else { throw FormatError(description: "no local time types") }
            guard h.dataLength(timeSize: 8) <= b.count - i || h.dataLength(timeSize: 4) <= b.count - i else {
                throw FormatError(description: "counts larger than the file")
            }
            return h
        }

        /// The data block at the cursor.
        mutating func block(_ h: Header, timeSize: Int, footer: PosixTimeZone?) throws(FormatError) -> TimeZoneRules {
            try skip(0)
            guard h.dataLength(timeSize: timeSize) <= b.count - i else { throw FormatError(description: "truncated data block") }
            var times: [Int64] = []
            times.reserveCapacity(h.timecnt)
            for _ in 0..<h.timecnt {
                let t = try int(timeSize)
                if let last = times.last, t <= last { throw FormatError(description: "transition times are not ascending") }
                times.append(t)
            }
            var indices: [Int] = []
            for _ in 0..<h.timecnt {
                let k = Int(try byte())
                guard k < h.typecnt else { throw FormatError(description: "transition to local time type \(k) of \(h.typecnt)") }
                indices.append(k)
            }
            var types: [Int] = []
            for _ in 0..<h.typecnt {
                let utoff = try int(4)
                // RFC 8536: -2^31 is not allowed; offsets stay within a day or so.
                guard utoff > -90_000 && utoff < 93_600 else { throw FormatError(description: "UT offset \(utoff) out of range") }
                try skip(2)
                types.append(Int(utoff))
            }
            return TimeZoneRules(transitions: times, offsets: indices.map { types[$0] }, initialOffset: types[0], footer: footer)
        }
    }
}
