/// Base64 in both alphabets, without Foundation: standard (`+/`, padded) for Firestore bytes
/// and transaction ids, URL-safe (`-_`, unpadded) for JWTs and JWKs.
public enum Base64 {
    private static let std = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let url = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Standard, padded encoding.
    public static func encode(_ bytes: some Collection<UInt8>) -> String { encode(Array(bytes), table: std, pad: true) }

    /// URL-safe, unpadded encoding (RFC 7515 base64url).
    public static func urlEncode(_ bytes: some Collection<UInt8>) -> String { encode(Array(bytes), table: url, pad: false) }

    /// Decodes either alphabet, padded or not; whitespace is not allowed. Nil when malformed.
    public static func decode(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count * 3 / 4)
        var acc: UInt32 = 0
        var bits = 0
        var padding = 0
        for c in text.utf8 {
            let v: UInt32
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): v = UInt32(c - 65)
            case UInt8(ascii: "a")...UInt8(ascii: "z"): v = UInt32(c - 97 + 26)
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = UInt32(c - 48 + 52)
            case UInt8(ascii: "+"), UInt8(ascii: "-"): v = 62
            case UInt8(ascii: "/"), UInt8(ascii: "_"): v = 63
            case UInt8(ascii: "="):
                padding += 1
                continue
            default: return nil
            }
            if padding > 0 { return nil }  // data after padding
            acc = acc << 6 | v
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: acc >> UInt32(bits)))
            }
        }
        // 6 leftover bits can't encode a byte; leftover bits must be zero in canonical input,
        // but Firebase clients are lenient, so only the impossible length is rejected.
        if bits >= 6 || padding > 2 { return nil }
        return out
    }

    private static func encode(_ b: [UInt8], table: [UInt8], pad: Bool) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((b.count + 2) / 3 * 4)
        var i = 0
        while i + 3 <= b.count {
            let n = UInt32(b[i]) << 16 | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2])
            out += [table[Int(n >> 18 & 63)], table[Int(n >> 12 & 63)], table[Int(n >> 6 & 63)], table[Int(n & 63)]]
            i += 3
        }
        let rest = b.count - i
        if rest == 1 {
            let n = UInt32(b[i]) << 16
            out += [table[Int(n >> 18 & 63)], table[Int(n >> 12 & 63)]]
            if pad { out += [61, 61] }
        } else if rest == 2 {
            let n = UInt32(b[i]) << 16 | UInt32(b[i + 1]) << 8
            out += [table[Int(n >> 18 & 63)], table[Int(n >> 12 & 63)], table[Int(n >> 6 & 63)]]
            if pad { out.append(61) }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
