/// Standard padded base64 encoding straight into a String (the proto3 JSON form of `bytes`),
/// without the intermediate arrays of `EmulatorCore.Base64.encode`: this runs on every bytes
/// field, transaction id and resume token. Decoding uses `Base64.decode` (either alphabet,
/// padded or not, as proto3 JSON parsers accept).
enum ProtoBase64 {
    private static let table: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Encodes `bytes`.
    static func encode(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        let n = bytes.count
        if n == 0 { return "" }
        let outCount = (n + 2) / 3 * 4
        return table.withUnsafeBufferPointer { t in
            String(unsafeUninitializedCapacity: outCount) { out in
                var i = 0, o = 0
                while i + 3 <= n {
                    let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
                    out[o] = t[Int(v >> 18 & 63)]
                    out[o + 1] = t[Int(v >> 12 & 63)]
                    out[o + 2] = t[Int(v >> 6 & 63)]
                    out[o + 3] = t[Int(v & 63)]
                    i += 3
                    o += 4
                }
                let rest = n - i
                if rest > 0 {
                    let v = UInt32(bytes[i]) << 16 | (rest == 2 ? UInt32(bytes[i + 1]) << 8 : 0)
                    out[o] = t[Int(v >> 18 & 63)]
                    out[o + 1] = t[Int(v >> 12 & 63)]
                    out[o + 2] = rest == 2 ? t[Int(v >> 6 & 63)] : UInt8(ascii: "=")
                    out[o + 3] = UInt8(ascii: "=")
                    o += 4
                }
                return o
            }
        }
    }
}
