import CZlib
import Testing

@testable import Emulator

/// Decompressive transcoding's decoder hands out bounded chunks: a small object that expands a
/// thousandfold (a gzip bomb) once came out in one allocation per 1 MiB piece, 3 GiB for 1 MB.
@Suite struct GzipInflaterTests {
    /// `bytes` in the zlib format (the inflater detects gzip or zlib).
    static func compressed(_ bytes: [UInt8]) -> [UInt8] {
        var size = compressBound(UInt(bytes.count))
        var out = [UInt8](repeating: 0, count: Int(size))
        let rc = out.withUnsafeMutableBufferPointer { o in
            bytes.withUnsafeBufferPointer { i in compress2(o.baseAddress, &size, i.baseAddress, UInt(i.count), 9) }
        }
        #expect(rc == Z_OK)
        return Array(out[0..<Int(size)])
    }

    @Test func aHighlyCompressedPieceComesOutInBoundedChunks() throws {
        let plain = [UInt8](repeating: 0, count: 8 << 20)
        let packed = Self.compressed(plain)
        #expect(packed.count < 16 * 1024)
        let inflater = try #require(GzipInflater())
        inflater.feed(packed)
        var total = 0, chunks = 0, largest = 0
        while let chunk = try inflater.next() {
            total += chunk.count
            chunks += 1
            largest = max(largest, chunk.count)
            #expect(chunk.allSatisfy { $0 == 0 })
        }
        #expect(total == plain.count && largest <= GzipInflater.chunkSize && chunks >= plain.count / GzipInflater.chunkSize)
        #expect(try inflater.next() == nil)
    }

    @Test func piecesSplitAnywhereDecodeToTheSameBytes() throws {
        let plain = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }
        let packed = Self.compressed(plain)
        let inflater = try #require(GzipInflater())
        var out: [UInt8] = []
        var i = 0
        while i < packed.count {
            let piece = Array(packed[i..<min(packed.count, i + 997)])
            i += piece.count
            inflater.feed(piece)
            while let chunk = try inflater.next() { out += chunk }
        }
        #expect(out == plain)
    }

    @Test func corruptDataThrowsAndKeepsThrowing() throws {
        let inflater = try #require(GzipInflater())
        inflater.feed([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3] + [UInt8](repeating: 0xFF, count: 64))
        #expect(throws: GzipError.self) { while try inflater.next() != nil {} }
        #expect(throws: GzipError.self) { try inflater.next() }
    }
}
