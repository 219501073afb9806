#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A string compared, ordered and hashed by its UTF-8 bytes.
///
/// Swift's `String` compares by canonical equivalence: a precomposed "é" (U+00E9) equals "e" +
/// U+0301, the Ångström sign (U+212B) equals "Å" (U+00C5), and a `[String: X]` merges such keys
/// into one. Firestore names, ids and map keys (and JSON object members) are byte strings: those
/// are different documents, collections and fields. Every identity-bearing dictionary, set and
/// sorted list uses this type, so two spellings never collapse. The bytes stay in the `String`
/// (native UTF-8, small strings inline), so wrapping and unwrapping cost nothing.
public struct UTF8Key: Sendable, Hashable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The string (its UTF-8 bytes are the identity).
    public let string: String

    /// Wraps `string`.
    @inlinable public init(_ string: String) { self.string = string }

    /// A literal key.
    public init(stringLiteral value: String) { self.string = value }

    /// Byte-wise equality.
    public static func == (a: UTF8Key, b: UTF8Key) -> Bool { a.string.utf8Equals(b.string) }

    /// Hashes the bytes (never a normalised form).
    public func hash(into hasher: inout Hasher) { string.utf8Hash(into: &hasher) }

    /// Unsigned byte order (UTF-8 byte order is code point order).
    public static func < (a: UTF8Key, b: UTF8Key) -> Bool { a.string.utf8Compare(b.string) < 0 }

    /// The string itself.
    public var description: String { string }
}

extension String {
    /// True when both strings have the same UTF-8 bytes (unlike `==`, which normalises).
    public func utf8Equals(_ other: String) -> Bool {
        withUTF8Bytes { a in
            other.withUTF8Bytes { b -> Bool in
                guard a.count == b.count else { return false }
                guard let pa = a.baseAddress, let pb = b.baseAddress else { return true }  // both empty
                return memcmp(pa, pb, a.count) == 0
            }
        }
    }

    /// -1, 0 or 1 by unsigned UTF-8 bytes (shorter prefix first).
    public func utf8Compare(_ other: String) -> Int {
        withUTF8Bytes { a in
            other.withUTF8Bytes { b -> Int in
                let n = Swift.min(a.count, b.count)
                if n > 0, let pa = a.baseAddress, let pb = b.baseAddress {
                    let c = memcmp(pa, pb, n)
                    if c != 0 { return c < 0 ? -1 : 1 }
                }
                return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
            }
        }
    }

    /// True when `prefix`'s bytes start this string's bytes (unlike `hasPrefix`, which works on
    /// grapheme clusters: "a/\u{301}x" does not have the prefix "a/" there).
    public func utf8HasPrefix(_ prefix: String) -> Bool {
        withUTF8Bytes { a in
            prefix.withUTF8Bytes { b -> Bool in
                guard b.count <= a.count else { return false }
                guard b.count > 0, let pa = a.baseAddress, let pb = b.baseAddress else { return true }
                return memcmp(pa, pb, b.count) == 0
            }
        }
    }

    /// Feeds the UTF-8 bytes to `hasher`.
    public func utf8Hash(into hasher: inout Hasher) {
        withUTF8Bytes { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(UInt8(0xFF))  // terminator: a string is not hashed like its extensions
    }
}
