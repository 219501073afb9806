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
        return Timestamp(seconds: seconds, nanos: nanos).rfc3339()
    }

    /// Parses an RFC 3339 timestamp (any offset, 0–9 fractional digits) into seconds and nanos.
    static func parseTimestamp(_ text: String) throws(ProtobufError) -> (Int64, Int32) {
        guard let t = Timestamp(rfc3339: text) else { throw ProtobufError("invalid RFC 3339 timestamp \(JSON.string(text))") }
        guard t.seconds >= minTimestampSeconds, t.seconds <= maxTimestampSeconds else {
            throw ProtobufError("timestamp \(JSON.string(text)) outside years 1 to 9999")
        }
        return (t.seconds, t.nanos)
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
