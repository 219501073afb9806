/// A gRPC status: the code and message sent in the `grpc-status` and `grpc-message` trailers.
/// Thrown by the gRPC layer for protocol problems; the application maps its own errors to one in
/// its single error mapper.
public struct GRPCStatus: Error, Sendable, Equatable, CustomStringConvertible {
    /// The numeric code (0 OK, 1 CANCELLED, ... 16 UNAUTHENTICATED).
    public var code: Int
    /// The human-readable message (may be empty).
    public var message: String

    /// Creates a status.
    public init(code: Int, message: String) {
        self.code = code
        self.message = message
    }

    /// Success.
    public static let ok = GRPCStatus(code: 0, message: "")

    /// `code: message`.
    public var description: String { "gRPC status \(code): \(message)" }

    /// The longest message sent: grpc-core refuses trailers beyond 16 KiB of headers.
    static let maxMessageBytes = 4096

    /// `grpc-message` encoding: UTF-8, then every byte outside 0x20–0x7E and `%` itself as `%XX`
    /// (gRPC over HTTP/2 spec). Long messages are cut (at a character boundary) to stay well
    /// inside clients' header limits.
    public static func percentEncode(_ message: String) -> String {
        var bytes = Array(message.utf8)
        if bytes.count > maxMessageBytes {
            var cut = maxMessageBytes
            while cut > 0 && bytes[cut] & 0xC0 == 0x80 { cut -= 1 }
            bytes = Array(bytes[0..<cut]) + Array("…".utf8)
        }
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        for b in bytes {
            if b >= 0x20 && b <= 0x7E && b != 0x25 {
                out.append(b)
            } else {
                out.append(0x25)
                out.append(hex[Int(b >> 4)])
                out.append(hex[Int(b & 0xF)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes a percent-encoded `grpc-message` (invalid escapes are kept as they are).
    public static func percentDecode(_ text: String) -> String {
        let src = Array(text.utf8)
        var out: [UInt8] = []
        var i = 0
        func hexValue(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x41...0x46: return c - 0x41 + 10
            case 0x61...0x66: return c - 0x61 + 10
            default: return nil
            }
        }
        while i < src.count {
            if src[i] == 0x25, i + 2 < src.count, let h = hexValue(src[i + 1]), let l = hexValue(src[i + 2]) {
                out.append(h << 4 | l)
                i += 3
            } else {
                out.append(src[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The `grpc-timeout` header as nanoseconds: up to 8 digits and a unit (H, M, S, m, u, n).
    /// Nil when absent; throws INVALID_ARGUMENT naming the value when malformed.
    public static func parseTimeout(_ value: String?) throws(GRPCStatus) -> UInt64? {
        guard let value else { return nil }
        let bytes = Array(value.utf8)
        guard bytes.count >= 2, bytes.count <= 9, bytes.dropLast().allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let amount = UInt64(String(decoding: bytes.dropLast(), as: UTF8.self))
        else {
            throw GRPCStatus(code: 3, message: "Malformed grpc-timeout \"\(value)\": expected up to 8 digits and a unit (H, M, S, m, u, n).")
        }
        let unit: UInt64
        switch bytes[bytes.count - 1] {  // count >= 2, checked above
        case UInt8(ascii: "H"): unit = 3_600_000_000_000
        case UInt8(ascii: "M"): unit = 60_000_000_000
        case UInt8(ascii: "S"): unit = 1_000_000_000
        case UInt8(ascii: "m"): unit = 1_000_000
        case UInt8(ascii: "u"): unit = 1_000
        case UInt8(ascii: "n"): unit = 1
        default:
            throw GRPCStatus(code: 3, message: "Malformed grpc-timeout \"\(value)\": unknown unit (expected H, M, S, m, u or n).")
        }
        return amount.multipliedReportingOverflow(by: unit).overflow ? UInt64.max : amount * unit
    }
}
