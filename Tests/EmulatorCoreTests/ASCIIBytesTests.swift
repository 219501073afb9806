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

    /// The shared prefix is counted to the byte, whichever of the eight bytes compared together
    /// differs first, at every position of buffers up to 40 bytes long and for every length pair.
    @Test func commonPrefixCountFindsTheFirstDifferingByte() {
        func naive(_ x: [UInt8], _ y: [UInt8]) -> Int {
            var k = 0
            while k < min(x.count, y.count) && x[k] == y[k] { k += 1 }
            return k
        }
        func count(_ x: [UInt8], _ y: [UInt8]) -> Int {
            x.withUnsafeBufferPointer { p in y.withUnsafeBufferPointer { q in ASCIIBytes.commonPrefixCount(p, q) } }
        }
        let base = (0..<40).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        for length in 0...base.count {
            let x = Array(base.prefix(length))
            for other in 0...base.count {
                let y = Array(base.prefix(other))
                #expect(count(x, y) == min(length, other))
                // One byte changed at each position of the shorter: the count stops there.
                for at in 0..<min(length, other) {
                    for flip: UInt8 in [0x01, 0x80, 0xFF] {
                        var z = y
                        z[at] ^= flip
                        #expect(count(x, z) == at, "length \(length), other \(other), at \(at)")
                        #expect(count(x, z) == naive(x, z))
                    }
                }
            }
        }
        // A slice of a larger buffer (an unaligned start) reads only its own bytes.
        let big = Array("..projects/p/databases/(default)/documents/c/d1".utf8)
        let other = Array("projects/p/databases/(default)/documents/c/d2".utf8)
        big.withUnsafeBufferPointer { b in
            other.withUnsafeBufferPointer { o in
                #expect(ASCIIBytes.commonPrefixCount(UnsafeBufferPointer(rebasing: b[2...]), o) == other.count - 1)
                #expect(ASCIIBytes.commonPrefixCount(UnsafeBufferPointer(rebasing: b[2..<4]), o) == 2)
            }
        }
    }

    /// Elapsed monotonic time saturates at zero when the earlier reading is the later one.
    @Test func elapsedMonotonicTimeNeverWraps() {
        #expect(MonotonicClock.elapsed(since: 10, 25) == 15)
        #expect(MonotonicClock.elapsed(since: 25, 25) == 0)
        #expect(MonotonicClock.elapsed(since: 26, 25) == 0)
        #expect(MonotonicClock.elapsed(since: .max, 0) == 0)
        let a = MonotonicClock.nanoseconds(), b = MonotonicClock.nanoseconds()
        #expect(b >= a)
    }

    /// `UInt64(x * 1e9)` traps on NaN, negative and huge spans; the one conversion never does.
    @Test func spansInSecondsConvertWithoutTrapping() {
        #expect(MonotonicClock.nanoseconds(inSeconds: 1.5) == 1_500_000_000)
        for zero in [0, -1, -.infinity, .nan] as [Double] { #expect(MonotonicClock.nanoseconds(inSeconds: zero) == 0) }
        for huge in [1.8446744073709552e10, 1e300, .infinity] as [Double] { #expect(MonotonicClock.nanoseconds(inSeconds: huge) == .max) }
        #expect(MonotonicClock.deadline(afterSeconds: 2, from: 10) == 2_000_000_010)
        #expect(MonotonicClock.deadline(afterSeconds: 1e300, from: 10) == .max)
        #expect(MonotonicClock.deadline(afterSeconds: 10, from: .max - 5) == .max)
        #expect(MonotonicClock.deadline(afterSeconds: .nan, from: 7) == 7)
    }
}
