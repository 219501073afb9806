import EmulatorCore

#if canImport(Glibc)
import Glibc
#endif

/// Hashes the rules' `hashing.md5`/`sha256` need (provided by the wiring layer, which has OpenSSL).
public protocol RulesHasher: Sendable {
    /// The digest of `bytes` with `algorithm` (`md5`, `sha256`), or nil when unsupported.
    func digest(_ algorithm: String, _ bytes: [UInt8]) -> [UInt8]?
}

/// Global conversions and the `math`, `hashing`, `timestamp`, `duration`, `latlng` namespaces.
enum Builtins {
    static func convert(_ name: String, _ v: RulesValue) -> RulesValue {
        switch (name, v) {
        case ("int", .int): return v
        case ("int", .float(let d)):
            guard d.isFinite, d.rounded(.towardZero) < 9.2e18, d.rounded(.towardZero) > -9.2e18 else {
                return .error("int() of \(d) is out of range")
            }
            return .int(Int64(d.rounded(.towardZero)))
        case ("int", .string(let s)): return Int64(s).map { .int($0) } ?? .error("int() cannot parse \"\(s)\"")
        case ("float", .int(let i)): return .float(Double(i))
        case ("float", .float): return v
        case ("float", .string(let s)): return Double(s).map { .float($0) } ?? .error("float() cannot parse \"\(s)\"")
        case ("string", .bool(let b)): return .string(b ? "true" : "false")
        case ("string", .int(let i)): return .string(String(i))
        case ("string", .float(let d)): return .string(String(d))
        case ("string", .null): return .string("null")
        case ("string", .string): return v
        case ("string", .path(let p)): return .string("/" + p.joined(separator: "/"))
        case ("bool", .bool): return v
        case ("bool", .string(let s)):
            if s == "true" { return .bool(true) }
            if s == "false" { return .bool(false) }
            return .error("bool() cannot parse \"\(s)\"")
        case ("path", .string(let s)): return .path(s.split(separator: "/").map(String.init))
        case ("path", .path): return v
        default: return .error("\(name)() cannot convert \(v.typeName)")
        }
    }

    /// A duration of `seconds` and `nanos` (normalised), or an error beyond ±10,000 years.
    /// Every rules duration is made here, so none can overflow what uses it.
    static func duration(seconds: Int64, nanos: Int64) -> RulesValue {
        let (whole, overflow) = seconds.addingReportingOverflow(nanos / 1_000_000_000)
        guard !overflow else { return .error("duration out of range") }
        var s = whole
        var n = nanos % 1_000_000_000
        if s > 0 && n < 0 {
            s -= 1
            n += 1_000_000_000
        }
        if s < 0 && n > 0 {
            s += 1
            n -= 1_000_000_000
        }
        guard abs(s) <= 315_576_000_000 else { return .error("duration out of range") }
        return .duration(seconds: s, nanos: Int32(n))
    }

    /// A timestamp value, or an error outside the years Firestore stores (1 to 9999). Every rules
    /// timestamp is made here or comes from stored data, so a method's or an operator's arithmetic
    /// on one never overflows: `timestamp.value(9223372036854775807)` once took the process down.
    static func timestamp(_ t: Timestamp) -> RulesValue {
        t.isInFirestoreRange ? .timestamp(t) : .error("timestamp out of range (years 1-9999)")
    }

    /// The sum of `value * factor` terms, nil when it overflows.
    static func checkedSum(_ terms: [(Int64, Int64)]) -> Int64? {
        var total: Int64 = 0
        for (v, f) in terms {
            let (p, o1) = v.multipliedReportingOverflow(by: f)
            let (t, o2) = total.addingReportingOverflow(p)
            guard !o1, !o2 else { return nil }
            total = t
        }
        return total
    }

    static func namespace(_ ns: String, _ fn: String, _ a: [RulesValue], hasher: (any RulesHasher)?) -> RulesValue {
        func num(_ i: Int) -> Double? { i < a.count ? a[i].asDouble : nil }
        func int(_ i: Int) -> Int64? {
            if i < a.count, case .int(let v) = a[i] { return v }
            return nil
        }
        let bad: RulesValue = .error("\(ns).\(fn)() does not accept (\(a.map(\.typeName).joined(separator: ", ")))")
        switch (ns, fn) {
        case ("math", "abs"):
            if case .int(let i) = a.first { return i == .min ? .error("integer overflow") : .int(abs(i)) }
            return num(0).map { .float(abs($0)) } ?? bad
        case ("math", "ceil"): return num(0).map { roundToInt($0.rounded(.up)) } ?? bad
        case ("math", "floor"): return num(0).map { roundToInt($0.rounded(.down)) } ?? bad
        case ("math", "round"): return num(0).map { roundToInt($0.rounded(.toNearestOrAwayFromZero)) } ?? bad
        case ("math", "sqrt"): return num(0).map { .float($0.squareRoot()) } ?? bad
        case ("math", "pow"):
            guard let x = num(0), let y = num(1) else { return bad }
            return .float(pow(x, y))
        case ("math", "isInfinite"): return num(0).map { .bool($0.isInfinite) } ?? bad
        case ("math", "isNaN"): return num(0).map { .bool($0.isNaN) } ?? bad
        case ("hashing", _):
            let bytes: [UInt8]
            switch a.first {
            case .string(let s)?: bytes = Array(s.utf8)
            case .bytes(let b)?: bytes = b
            default: return bad
            }
            switch fn {
            case "crc32":
                var c = CRC.crc32(bytes, poly: 0xEDB8_8320).bigEndian
                return .bytes(withUnsafeBytes(of: &c) { Array($0) })
            case "crc32c":
                var c = CRC.crc32(bytes, poly: 0x82F6_3B78).bigEndian
                return .bytes(withUnsafeBytes(of: &c) { Array($0) })
            case "md5", "sha256":
                guard let d = hasher?.digest(fn, bytes) else { return .error("hashing.\(fn) is not available") }
                return .bytes(d)
            default: return .error("hashing.\(fn) is not defined")
            }
        case ("timestamp", "date"):
            guard let y = int(0), let m = int(1), let d = int(2), (1...12).contains(m), (1...31).contains(d) else { return bad }
            guard (1...9999).contains(y) else { return .error("timestamp.date() year must be 1-9999, got \(y)") }
            return timestamp(Timestamp(seconds: Timestamp.daysFromCivil(y, m, d) * 86_400))
        case ("timestamp", "value"):
            guard let ms = int(0) else { return bad }
            guard (Timestamp.earliest.milliseconds...Timestamp.latest.milliseconds).contains(ms) else {
                return .error("timestamp.value() out of range (years 1-9999)")
            }
            return timestamp(Timestamp(milliseconds: ms))
        case ("duration", "value"):
            guard let n = int(0), a.count == 2, case .string(let unit) = a[1] else { return bad }
            let factors: [String: (Int64, Int64)] = [
                "w": (604_800, 0), "d": (86_400, 0), "h": (3600, 0), "m": (60, 0), "s": (1, 0), "ms": (0, 1_000_000), "ns": (0, 1),
            ]
            guard let (sf, nf) = factors[unit] else { return .error("duration.value() unit must be one of w, d, h, m, s, ms, ns") }
            guard let v = checkedSum([(n, sf > 0 ? sf : nf)]) else { return .error("duration out of range") }
            return sf > 0 ? duration(seconds: v, nanos: 0) : duration(seconds: 0, nanos: v)
        case ("duration", "time"):
            guard let h = int(0), let m = int(1), let s = int(2), let ns = int(3) else { return bad }
            guard let seconds = checkedSum([(h, 3600), (m, 60), (s, 1)]) else { return .error("duration out of range") }
            return duration(seconds: seconds, nanos: ns)
        case ("duration", "abs"):
            guard case .duration(let s, let n)? = a.first else { return bad }
            return .duration(seconds: abs(s), nanos: abs(n))
        case ("latlng", "value"):
            guard let lat = num(0), let lng = num(1), (-90...90).contains(lat), (-180...180).contains(lng) else { return bad }
            return .latlng(lat, lng)
        default:
            return .error("\(ns).\(fn)() is not defined")
        }
    }

    static func roundToInt(_ d: Double) -> RulesValue {
        guard d.isFinite, abs(d) < 9.2e18 else { return .error("result out of integer range") }
        return .int(Int64(d))
    }
}

/// CRC-32 variants for `hashing.crc32`/`crc32c`.
enum CRC {
    static func crc32(_ bytes: [UInt8], poly: UInt32) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = c & 1 != 0 ? poly ^ (c >> 1) : c >> 1 }
        }
        return c ^ 0xFFFF_FFFF
    }
}
