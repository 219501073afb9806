/// Percent-decoding of URL path segments and query components.
public enum PercentEncoding {
    /// Decodes `%XX` escapes (and `+` as space when `plusIsSpace`). Returns nil on a malformed
    /// escape or when the result is not valid UTF-8.
    public static func decode(_ s: String, plusIsSpace: Bool = false) -> String? {
        // The common case (nothing to decode) must not allocate: it runs for every path segment.
        if !s.utf8.contains(UInt8(ascii: "%")) && !(plusIsSpace && s.utf8.contains(UInt8(ascii: "+"))) { return s }
        let u = Array(s.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(u.count)
        var i = 0
        while i < u.count {
            let c = u[i]
            if c == UInt8(ascii: "%") {
                guard i + 2 < u.count, let h = hexValue(u[i + 1]), let l = hexValue(u[i + 2]) else { return nil }
                out.append(h << 4 | l)
                i += 3
            } else if c == UInt8(ascii: "+") && plusIsSpace {
                out.append(UInt8(ascii: " "))
                i += 1
            } else {
                out.append(c)
                i += 1
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    /// Encodes everything but RFC 3986 unreserved characters.
    public static func encode(_ s: String) -> String {
        var out = ""
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(b))
            default:
                let hex = Array("0123456789ABCDEF")
                out += "%" + String(hex[Int(b >> 4)]) + String(hex[Int(b & 0xF)])
            }
        }
        return out
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
