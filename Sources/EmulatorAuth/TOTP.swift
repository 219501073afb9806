import EmulatorCore
import EmulatorCrypto

/// Time-based one-time passwords (RFC 6238 over RFC 4226 HOTP) with HMAC-SHA1, the only
/// algorithm Firebase's TOTP second factor uses. Pure functions; time comes from the caller
/// (the project clock), so clock control steps codes.
public enum TOTP {
    /// Digits per code, as Firebase sends in `verificationCodeLength`.
    public static let digits = 6
    /// Seconds per time step (`periodSec`).
    public static let period: Int64 = 30
    /// Secret length in bytes: 160 bits, RFC 4226's recommended minimum.
    public static let secretLength = 20

    /// The time step `seconds` falls in (floor division, so times before 1970 work too).
    public static func counter(at seconds: Int64, period: Int64 = period) -> Int64 {
        seconds >= 0 ? seconds / period : -((-seconds + period - 1) / period)
    }

    /// HOTP(secret, counter): HMAC-SHA1 over the big-endian counter, dynamic truncation, modulo
    /// 10^digits, zero-padded.
    public static func code(secret: [UInt8], counter: Int64, digits: Int = digits) -> String {
        var c = UInt64(bitPattern: counter)
        var msg = [UInt8](repeating: 0, count: 8)
        for i in (0..<8).reversed() {
            msg[i] = UInt8(c & 0xff)
            c >>= 8
        }
        let mac = Digest.hmacSHA1(key: secret, msg)
        let offset = Int(mac[mac.count - 1] & 0x0f)
        let binary = (UInt32(mac[offset] & 0x7f) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8) | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let text = String(binary % modulus)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    /// The time step whose code is `code`, searching `window` steps either side of `seconds`
    /// (RFC 6238 §5.2 resynchronisation), nearest first; steps at or before `usedUpTo` are refused
    /// so an accepted code never works twice. Nil when nothing matches.
    public static func match(_ code: String, secret: [UInt8], at seconds: Int64, window: Int, usedUpTo: Int64?) -> Int64? {
        guard code.utf8.count == digits, code.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        let now = counter(at: seconds)
        var order: [Int64] = [now]
        if window > 0 { for d in 1...Int64(window) { order += [now - d, now + d] } }
        for step in order {
            if let used = usedUpTo, step <= used { continue }
            if Digest.constantTimeEqual(Array(Self.code(secret: secret, counter: step).utf8), Array(code.utf8)) { return step }
        }
        return nil
    }
}

/// RFC 4648 §6 base32 (upper-case alphabet), the form authenticator apps take secrets in.
public enum Base32 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// Encodes without padding, as `otpauth://` URIs carry secrets.
    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for b in bytes {
            buffer = (buffer << 8) | UInt32(b)
            bits += 8
            while bits >= 5 {
                out.append(alphabet[Int((buffer >> UInt32(bits - 5)) & 31)])
                bits -= 5
            }
        }
        if bits > 0 { out.append(alphabet[Int((buffer << UInt32(5 - bits)) & 31)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes (case-insensitive, `=` padding and spaces ignored); nil on any other character.
    public static func decode(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for c in text.utf8 where c != UInt8(ascii: "=") && c != UInt8(ascii: " ") {
            let upper = c >= 97 && c <= 122 ? c - 32 : c
            guard let v = alphabet.firstIndex(of: upper) else { return nil }
            buffer = (buffer << 5) | UInt32(v)
            bits += 5
            if bits >= 8 {
                out.append(UInt8((buffer >> UInt32(bits - 8)) & 0xff))
                bits -= 8
            }
        }
        return out
    }
}
