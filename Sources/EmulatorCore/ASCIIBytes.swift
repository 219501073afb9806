/// Reading a string's UTF-8 bytes in place, comparing a byte range with an ASCII literal, and
/// finding where two byte runs first differ: what
/// the per-request paths (request heads, paths, header names, tokens, JSON) each did for
/// themselves, with their own loop and their own fallback for strings without contiguous bytes.
///
/// Over a buffer's memory because the generic `utf8` view walks cost a few hundred instructions
/// a comparison, and a request makes dozens.
public enum ASCIIBytes {
    /// Whether `bytes[lo..<hi]` spell `literal` exactly.
    @inlinable
    public static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ lo: Int, _ hi: Int, _ literal: StaticString) -> Bool {
        guard hi - lo == literal.utf8CodeUnitCount else { return false }
        let l = literal.utf8Start
        for k in 0..<(hi - lo) where bytes[lo + k] != l[k] { return false }
        return true
    }

    /// Whether `bytes[lo..<hi]` spell `lowercase` with its ASCII letters in either case (header
    /// names, `Bearer`, `owner`, `localhost`). Only letters are folded: `| 0x20` on every byte
    /// would equate, say, `-` with `\r` and `@` with `` ` ``.
    @inlinable
    public static func equalsIgnoringCase(_ bytes: UnsafeBufferPointer<UInt8>, _ lo: Int, _ hi: Int, _ lowercase: StaticString) -> Bool {
        guard hi - lo == lowercase.utf8CodeUnitCount else { return false }
        let l = lowercase.utf8Start
        for k in 0..<(hi - lo) {
            let b = bytes[lo + k]
            let folded = b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z") ? b | 0x20 : b
            if folded != l[k] { return false }
        }
        return true
    }

    /// The number of leading bytes `x` and `y` share, compared eight at a time (names sorted by
    /// bytes share long prefixes: `projects/…/documents/collection/`).
    @inlinable
    public static func commonPrefixCount(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Int {
        let n = Swift.min(x.count, y.count)
        guard n > 0, let px = x.baseAddress, let py = y.baseAddress else { return 0 }
        let rx = UnsafeRawPointer(px), ry = UnsafeRawPointer(py)
        var k = 0
        while k + 8 <= n {
            let d = rx.loadUnaligned(fromByteOffset: k, as: UInt64.self) ^ ry.loadUnaligned(fromByteOffset: k, as: UInt64.self)
            // In little-endian order the first byte in memory is the lowest: its zero bits count first.
            if d != 0 { return k + UInt64(littleEndian: d).trailingZeroBitCount / 8 }
            k += 8
        }
        while k < n && px[k] == py[k] { k += 1 }
        return k
    }
}

extension String {
    /// Calls `body` with the string's UTF-8 bytes: its own storage (every native string has
    /// contiguous UTF-8), or a contiguous copy for one that does not (a bridged string).
    @inlinable
    public func withUTF8Bytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        if let r = try utf8.withContiguousStorageIfAvailable(body) { return r }
        var copy = self
        return try copy.withUTF8(body)
    }
}
