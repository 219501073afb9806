import Testing

@testable import EmulatorCore

/// `ASCIIBytes` against the rules written out the slow way: every byte value in every position
/// of the literals the hot paths use, and `withUTF8Bytes` against `Array(utf8)`.
@Suite struct ASCIIBytesTests {
    /// Lower-cases ASCII letters only.
    static func fold(_ b: UInt8) -> UInt8 { (65...90).contains(b) ? b + 32 : b }

    static func check(_ bytes: [UInt8], _ literal: StaticString) {
        let text = String(decoding: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount), as: UTF8.self)
        let l = Array(text.utf8)
        let exact = bytes == l
        let folded = bytes.count == l.count && zip(bytes, l).allSatisfy { fold($0) == $1 }
        bytes.withUnsafeBufferPointer { b in
            #expect(ASCIIBytes.equals(b, 0, b.count, literal) == exact, "\(bytes) vs \(text)")
            #expect(ASCIIBytes.equalsIgnoringCase(b, 0, b.count, literal) == folded, "\(bytes) vs \(text)")
        }
    }

    /// Every byte value at every position of each literal, and every length near it: only
    /// ASCII letters fold (`-` is not `\r`, `@` is not `` ` ``, `[` is not `{`).
    @Test(arguments: ["content-length", "bearer", "127.0.0.1", "host", "x"] as [StaticString])
    func everyByteAtEveryPosition(_ literal: StaticString) {
        let l = Array(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
        for i in l.indices {
            for v in 0...255 {
                var bytes = l
                bytes[i] = UInt8(v)
                Self.check(bytes, literal)
            }
        }
        Self.check([], literal)
        Self.check(Array(l.dropLast()), literal)
        Self.check(l + [l[0]], literal)
        Self.check(l.map { (97...122).contains($0) ? $0 - 32 : $0 }, literal)  // all capitals
    }

    /// A range inside a larger buffer: only `lo..<hi` is read.
    @Test func rangeInsideABuffer() {
        let bytes = Array("xxHOST: a".utf8)
        bytes.withUnsafeBufferPointer { b in
            #expect(ASCIIBytes.equalsIgnoringCase(b, 2, 6, "host"))
            #expect(!ASCIIBytes.equals(b, 2, 6, "host"))
            #expect(ASCIIBytes.equals(b, 2, 6, "HOST"))
            #expect(!ASCIIBytes.equalsIgnoringCase(b, 2, 7, "host"))
            #expect(ASCIIBytes.equals(b, 4, 4, ""))
        }
    }

    /// The bytes handed over are the string's UTF-8, for small (inline), large, non-ASCII and
    /// empty strings, and for strings made from a slice.
    @Test func withUTF8BytesHandsTheStringsBytes() {
        let long = String(repeating: "é/ü", count: 40)
        let strings = ["", "a", "owner", "projects/p/databases/(default)/documents/a/b", long, String(long.dropFirst(3)), "a\u{301}", "\u{0}x"]
        for s in strings {
            #expect(s.withUTF8Bytes { Array($0) } == Array(s.utf8))
        }
        // A throwing body's error comes through.
        struct Stop: Error {}
        #expect(throws: Stop.self) { try "abc".withUTF8Bytes { _ in throw Stop() } }
    }
}
