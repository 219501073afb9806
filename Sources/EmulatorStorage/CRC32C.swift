import EmulatorCore

/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum Cloud Storage reports as
/// `crc32c`, computed incrementally with slicing-by-8 tables. A value type: copy it to fork.
public struct CRC32C: Sendable, Equatable {
    /// The running value (pre- and post-inverted as the standard defines, so `value` is final).
    private var state: UInt32 = 0xFFFF_FFFF

    /// An empty checksum.
    public init() {}

    /// The checksum of `bytes`.
    public static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var c = CRC32C()
        c.update(bytes)
        return c.value
    }

    /// The checksum of everything added so far.
    public var value: UInt32 { ~state }

    /// Adds bytes.
    public mutating func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { update($0) } }

    /// Adds bytes from a raw buffer.
    public mutating func update(_ buffer: UnsafeRawBufferPointer) {
        let t = Self.tables
        var crc = state
        var i = 0
        let n = buffer.count
        t.withUnsafeBufferPointer { tab in
            while n - i >= 8 {
                let lo = UInt32(buffer[i]) | UInt32(buffer[i + 1]) << 8 | UInt32(buffer[i + 2]) << 16 | UInt32(buffer[i + 3]) << 24
                let hi = UInt32(buffer[i + 4]) | UInt32(buffer[i + 5]) << 8 | UInt32(buffer[i + 6]) << 16 | UInt32(buffer[i + 7]) << 24
                let x = crc ^ lo
                crc =
                    tab[7 * 256 + Int(x & 0xFF)] ^ tab[6 * 256 + Int((x >> 8) & 0xFF)]
                    ^ tab[5 * 256 + Int((x >> 16) & 0xFF)] ^ tab[4 * 256 + Int(x >> 24)]
                    ^ tab[3 * 256 + Int(hi & 0xFF)] ^ tab[2 * 256 + Int((hi >> 8) & 0xFF)]
                    ^ tab[1 * 256 + Int((hi >> 16) & 0xFF)] ^ tab[Int(hi >> 24)]
                i += 8
            }
            while i < n {
                crc = tab[Int((crc ^ UInt32(buffer[i])) & 0xFF)] ^ (crc >> 8)
                i += 1
            }
        }
        state = crc
    }

    /// The checksum as Cloud Storage prints it: base64 of the four bytes, big-endian.
    public static func base64(_ value: UInt32) -> String {
        Base64.encode([UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)])
    }

    /// Eight 256-entry tables: table k maps a byte to its CRC contribution k bytes further on.
    static let tables: [UInt32] = {
        var t = [UInt32](repeating: 0, count: 8 * 256)
        for i in 0..<256 {
            var c = UInt32(i)
            for _ in 0..<8 { c = c & 1 != 0 ? (c >> 1) ^ 0x82F6_3B78 : c >> 1 }
            t[i] = c
        }
        for k in 1..<8 {
            for i in 0..<256 {
                let prev = t[(k - 1) * 256 + i]
                t[k * 256 + i] = t[Int(prev & 0xFF)] ^ (prev >> 8)
            }
        }
        return t
    }()
}
