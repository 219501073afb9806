extension Timestamp {
    /// RFC 3339 UTC text with 0, 3, 6 or 9 fractional digits, as proto3 JSON prints timestamps
    /// ("2026-01-02T03:04:05.123456Z"). `fractionDigits` forces a fixed width when given.
    public func rfc3339(fractionDigits: Int? = nil) -> String {
        let (y, mo, d) = Timestamp.civilFromDays(floorDiv(seconds, 86_400))
        let secOfDay = seconds - floorDiv(seconds, 86_400) * 86_400
        let h = secOfDay / 3600, mi = secOfDay % 3600 / 60, s = secOfDay % 60
        if (0...9999).contains(y), (0..<1_000_000_000).contains(nanos), (fractionDigits ?? 0) >= 0 {
            return Self.rfc3339Bytes(y, mo, d, h, mi, s, nanos: nanos, fractionDigits: fractionDigits)
        }
        var out = "\(pad(y, 4))-\(pad(mo, 2))-\(pad(d, 2))T\(pad(h, 2)):\(pad(mi, 2)):\(pad(s, 2))"
        let digits = fractionDigits ?? Self.fractionWidth(nanos)
        if digits > 0 {
            let frac = String(pad(Int64(nanos), 9).prefix(digits))
            out += "." + frac
        }
        return out + "Z"
    }

    /// The fraction digits proto3 JSON prints for `nanos`: none, 3, 6 or 9 (the fewest that hold
    /// them exactly).
    private static func fractionWidth(_ nanos: Int32) -> Int {
        if nanos == 0 { return 0 }
        if nanos % 1_000_000 == 0 { return 3 }
        if nanos % 1000 == 0 { return 6 }
        return 9
    }

    /// `rfc3339` of a time in years 0–9999 with nanoseconds in range, written as bytes into one
    /// string (every write answers several of these; the general path below builds a string
    /// per component). The same text: four-digit year, two-digit fields, 0, 3, 6 or 9 fraction
    /// digits (or exactly `fractionDigits`, at most 9), `Z`.
    private static func rfc3339Bytes(
        _ y: Int64, _ mo: Int64, _ d: Int64, _ h: Int64, _ mi: Int64, _ s: Int64, nanos: Int32, fractionDigits: Int?
    ) -> String {
        let digits = fractionDigits.map { min($0, 9) } ?? fractionWidth(nanos)
        let count = 20 + (digits > 0 ? digits + 1 : 0)
        return String(unsafeUninitializedCapacity: count) { b in
            func put(_ v: Int64, _ width: Int, at start: Int) {
                var v = v
                for k in stride(from: start + width - 1, through: start, by: -1) {
                    b[k] = UInt8(truncatingIfNeeded: 48 + v % 10)
                    v /= 10
                }
            }
            put(y, 4, at: 0)
            b[4] = 45  // -
            put(mo, 2, at: 5)
            b[7] = 45
            put(d, 2, at: 8)
            b[10] = 84  // T
            put(h, 2, at: 11)
            b[13] = 58  // :
            put(mi, 2, at: 14)
            b[16] = 58
            put(s, 2, at: 17)
            var i = 19
            if digits > 0 {
                b[19] = 46  // .
                var scaled = Int64(nanos)
                for _ in digits..<9 { scaled /= 10 }
                put(scaled, digits, at: 20)
                i = 20 + digits
            }
            b[i] = 90  // Z
            return i + 1
        }
    }

    /// Parses RFC 3339 (`Z` or `±hh:mm` offsets, 0–9 fractional digits). Returns nil when malformed.
    public init?(rfc3339 text: String) {
        let b = Array(text.utf8)
        func num(_ from: Int, _ len: Int) -> Int64? {
            guard from + len <= b.count else { return nil }
            var v: Int64 = 0
            for k in from..<(from + len) {
                guard b[k] >= 48, b[k] <= 57 else { return nil }
                v = v * 10 + Int64(b[k] - 48)
            }
            return v
        }
        guard b.count >= 20, b[4] == 45, b[7] == 45, b[10] == 84 || b[10] == 116, b[13] == 58, b[16] == 58,
            let y = num(0, 4), let mo = num(5, 2), let d = num(8, 2), let h = num(11, 2), let mi = num(14, 2),
            let s = num(17, 2), (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, s < 61
        else { return nil }
        var i = 19
        var nanos: Int64 = 0
        if i < b.count, b[i] == 46 {
            i += 1
            var digits = 0
            while i < b.count, b[i] >= 48, b[i] <= 57 {
                if digits < 9 { nanos = nanos * 10 + Int64(b[i] - 48) }
                digits += 1
                i += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(digits, 9) { nanos *= 10 }
        }
        guard i < b.count else { return nil }
        var offset: Int64 = 0
        if b[i] == 90 || b[i] == 122 {
            i += 1
        } else if b[i] == 43 || b[i] == 45 {
            guard let oh = num(i + 1, 2), i + 3 < b.count, b[i + 3] == 58, let om = num(i + 4, 2) else { return nil }
            offset = (oh * 3600 + om * 60) * (b[i] == 43 ? 1 : -1)
            i += 6
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let days = Timestamp.daysFromCivil(y, mo, d)
        self.init(seconds: days * 86_400 + h * 3600 + mi * 60 + min(s, 59) - offset, nanos: Int32(nanos))
    }

    // Howard Hinnant's civil-date algorithms (public domain), proleptic Gregorian calendar.
    /// Days since 1970-01-01 of a civil date.
    public static func daysFromCivil(_ y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = floorDiv(y, 400)
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The civil date (year, month, day) of a day count since 1970-01-01.
    public static func civilFromDays(_ z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = floorDiv(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? yoe + era * 400 + 1 : yoe + era * 400, m, d)
    }
}

private func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
    let q = a / b
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
}

private func pad(_ v: Int64, _ width: Int) -> String {
    let s = String(v)
    return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
}
