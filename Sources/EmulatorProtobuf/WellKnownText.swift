import EmulatorCore

/// The string forms of Timestamp and Duration, and Any's type URLs.
enum WellKnownText {
    /// 0001-01-01T00:00:00Z, the earliest Timestamp proto3 JSON can express.
    static let minTimestampSeconds: Int64 = -62_135_596_800
    /// 9999-12-31T23:59:59Z, the latest.
    static let maxTimestampSeconds: Int64 = 253_402_300_799
    /// ±10,000 years, Duration's range.
    static let maxDurationSeconds: Int64 = 315_576_000_000

    /// RFC 3339 in UTC with 0, 3, 6 or 9 fractional digits, exactly as `Document.json` prints
    /// times (`Timestamp.rfc3339()`). Throws outside years 1–9999 or for nanos outside 0–999,999,999.
    static func timestamp(seconds: Int64, nanos: Int32) throws(ProtobufError) -> String {
        guard seconds >= minTimestampSeconds, seconds <= maxTimestampSeconds else {
            throw ProtobufError("timestamp seconds \(seconds) outside years 1 to 9999")
        }
        guard nanos >= 0, nanos <= 999_999_999 else { throw ProtobufError("timestamp nanos \(nanos) outside 0 to 999999999") }
        // Straight into the string's storage: this runs for every create/update/read time.
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        let (year, month, day) = Timestamp.civilFromDays(days)
        let digits = nanos == 0 ? 0 : (nanos % 1_000_000 == 0 ? 3 : (nanos % 1000 == 0 ? 6 : 9))
        return String(unsafeUninitializedCapacity: 20 + (digits > 0 ? digits + 1 : 0)) { out in
            func put(_ value: Int, _ width: Int, at offset: Int) {
                var v = value
                for k in stride(from: offset + width - 1, through: offset, by: -1) {
                    out[k] = UInt8(48 + v % 10)
                    v /= 10
                }
            }
            put(Int(year), 4, at: 0)
            out[4] = UInt8(ascii: "-")
            put(Int(month), 2, at: 5)
            out[7] = UInt8(ascii: "-")
            put(Int(day), 2, at: 8)
            out[10] = UInt8(ascii: "T")
            put(secondOfDay / 3600, 2, at: 11)
            out[13] = UInt8(ascii: ":")
            put(secondOfDay / 60 % 60, 2, at: 14)
            out[16] = UInt8(ascii: ":")
            put(secondOfDay % 60, 2, at: 17)
            var end = 19
            if digits > 0 {
                out[19] = UInt8(ascii: ".")
                var fraction = Int(nanos)
                for _ in digits..<9 { fraction /= 10 }
                put(fraction, digits, at: 20)
                end = 20 + digits
            }
            out[end] = UInt8(ascii: "Z")
            return end + 1
        }
    }

    /// Parses an RFC 3339 timestamp (any offset, 0–9 fractional digits) into seconds and nanos.
    static func parseTimestamp(_ text: String) throws(ProtobufError) -> (Int64, Int32) {
        if let fast = parseUTCTimestamp(text) { return fast }
        guard let t = Timestamp(rfc3339: text) else { throw ProtobufError("invalid RFC 3339 timestamp \(JSON.string(text))") }
        guard t.seconds >= minTimestampSeconds, t.seconds <= maxTimestampSeconds else {
            throw ProtobufError("timestamp \(JSON.string(text)) outside years 1 to 9999")
        }
        return (t.seconds, t.nanos)
    }

    /// The common `YYYY-MM-DDTHH:MM:SS[.fraction]Z` form without allocating; nil for anything
    /// else (offsets, lower-case letters, malformed text), which `Timestamp(rfc3339:)` then
    /// handles with the same rules (leap second 60 read as 59).
    static func parseUTCTimestamp(_ text: String) -> (Int64, Int32)? {
        text.withUTF8Bytes { b -> (Int64, Int32)? in
            let n = b.count
            guard n >= 20, n <= 30, b[4] == 45, b[7] == 45, b[10] == 84, b[13] == 58, b[16] == 58, b[n - 1] == 90 else { return nil }
            func num(_ from: Int, _ len: Int) -> Int64? {
                var v: Int64 = 0
                for k in from..<(from + len) {
                    let c = b[k]
                    guard c >= 48, c <= 57 else { return nil }
                    v = v * 10 + Int64(c - 48)
                }
                return v
            }
            guard let y = num(0, 4), let mo = num(5, 2), let d = num(8, 2), let h = num(11, 2), let mi = num(14, 2), let s = num(17, 2),
                (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, s < 61
            else { return nil }
            var nanos: Int64 = 0
            if n > 20 {
                guard b[19] == 46, n > 21 else { return nil }
                let digits = n - 21
                guard let f = num(20, digits) else { return nil }
                nanos = f
                for _ in digits..<9 { nanos *= 10 }
            }
            let seconds = Timestamp.daysFromCivil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + min(s, 59)
            guard seconds >= minTimestampSeconds, seconds <= maxTimestampSeconds else { return nil }
            return (seconds, Int32(nanos))
        }
    }

    /// `"<seconds>[.<fraction>]s"` with 0, 3, 6 or 9 fractional digits and the sign in front
    /// (`"-0.500s"`). Throws outside ±10,000 years or when the signs of seconds and nanos differ.
    static func duration(seconds: Int64, nanos: Int32) throws(ProtobufError) -> String {
        guard seconds >= -maxDurationSeconds, seconds <= maxDurationSeconds else {
            throw ProtobufError("duration seconds \(seconds) outside ±\(maxDurationSeconds)")
        }
        guard nanos > -1_000_000_000, nanos < 1_000_000_000, !(seconds > 0 && nanos < 0), !(seconds < 0 && nanos > 0) else {
            throw ProtobufError("duration nanos \(nanos) out of range or of another sign than seconds \(seconds)")
        }
        let negative = seconds < 0 || nanos < 0
        var out = negative ? "-" : ""
        out += String(seconds.magnitude)
        let n = Int64(nanos.magnitude)
        if n != 0 {
            let digits = n % 1_000_000 == 0 ? 3 : (n % 1000 == 0 ? 6 : 9)
            let padded = String(n)
            let full = String(repeating: "0", count: 9 - padded.count) + padded
            out += "." + full.prefix(digits)
        }
        return out + "s"
    }

    /// Parses `"-1.5s"`-style durations (optional sign, digits, optional 1–9 fraction digits, `s`).
    static func parseDuration(_ text: String) throws(ProtobufError) -> (Int64, Int32) {
        let bad = ProtobufError("invalid duration \(JSON.string(text)) (expected e.g. \"1.5s\")")
        var bytes = Array(text.utf8)
        guard bytes.last == UInt8(ascii: "s") else { throw bad }
        bytes.removeLast()
        var i = 0
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { i = 1 }
        var seconds: Int64 = 0
        var digits = 0
        while i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 {
            guard digits < 13 else { throw bad }
            seconds = seconds * 10 + Int64(bytes[i] - 48)
            digits += 1
            i += 1
        }
        guard digits > 0 else { throw bad }
        var nanos: Int64 = 0
        if i < bytes.count {
            guard bytes[i] == UInt8(ascii: "."), i + 1 < bytes.count, bytes.count - i - 1 <= 9 else { throw bad }
            i += 1
            var scale: Int64 = 100_000_000
            while i < bytes.count {
                guard bytes[i] >= 48, bytes[i] <= 57 else { throw bad }
                nanos += Int64(bytes[i] - 48) * scale
                scale /= 10
                i += 1
            }
        }
        guard seconds <= maxDurationSeconds else { throw ProtobufError("duration \(JSON.string(text)) outside ±\(maxDurationSeconds)s") }
        return negative ? (-seconds, Int32(-nanos)) : (seconds, Int32(nanos))
    }

    /// The message name of a type URL: what follows its last `/`
    /// (`type.googleapis.com/google.rpc.Status` → `google.rpc.Status`).
    static func typeName(fromURL url: String) -> String {
        guard let slash = url.utf8.lastIndex(of: UInt8(ascii: "/")) else { return url }
        return String(url[url.utf8.index(after: slash)...])
    }
}
