import Testing

@testable import EmulatorProtobuf

/// The wire level: `ProtoWriter` (back to front) and `ProtoReader` (bounds-checked).
struct ProtoWireTests {
    func written(_ body: (ProtoWriter) -> Void) -> [UInt8] {
        let w = ProtoWriter(capacity: 16)
        body(w)
        return w.bytes()
    }

    @Test func varintsAreMinimalAndNegativesTakeTenBytes() {
        #expect(written { $0.prependVarint(0) } == [0x00])
        #expect(written { $0.prependVarint(127) } == [0x7F])
        #expect(written { $0.prependVarint(128) } == [0x80, 0x01])
        #expect(written { $0.prependVarint(300) } == [0xAC, 0x02])
        #expect(written { $0.prependVarint(UInt64(bitPattern: -1)) } == [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01])
        #expect(written { $0.prependVarint(UInt64.max >> 1) }.count == 9)
        for v: UInt64 in [0, 1, 127, 128, 16383, 16384, 1 << 35, UInt64.max] {
            #expect(ProtoWriter.varintSize(v) == written { $0.prependVarint(v) }.count)
        }
    }

    @Test func fixedWidthValuesAreLittleEndian() {
        #expect(written { $0.prependFixed32(0x0403_0201) } == [1, 2, 3, 4])
        #expect(written { $0.prependFixed64(0x0807_0605_0403_0201) } == [1, 2, 3, 4, 5, 6, 7, 8])
    }

    /// Contents first, then their length and key: the nested message of the type's doc comment.
    @Test func nestedMessagesArePrefixedWithTheirLength() {
        let bytes = written { w in
            let outer = w.count
            let inner = w.count
            w.prependString("x")
            w.prependLength(since: inner)
            w.prependKey(1, .lengthDelimited)
            w.prependLength(since: outer)
            w.prependKey(2, .lengthDelimited)
        }
        #expect(bytes == [0x12, 0x03, 0x0A, 0x01, 0x78])
    }

    /// Growth keeps what was written; a length of 300 needs a 2-byte prefix, written after.
    @Test func growsWithoutLosingContent() {
        let payload = [UInt8](repeating: 0xAB, count: 300)
        let bytes = written { w in
            let mark = w.count
            w.prependBytes(payload)
            w.prependLength(since: mark)
            w.prependKey(1, .lengthDelimited)
        }
        #expect(bytes == [0x0A, 0xAC, 0x02] + payload)
    }

    /// Deep nesting costs one pass: 10,000 levels of `{1: ...}` are written in one go, each
    /// length prepended once (no bytes moved).
    @Test func deepNestingIsLinear() {
        let w = ProtoWriter(capacity: 16)
        w.prependVarint(1)
        w.prependKey(2, .varint)
        for _ in 0..<10_000 {
            w.prependLength(since: 0)  // everything so far is the next level's contents
            w.prependKey(1, .lengthDelimited)
        }
        let bytes = w.bytes()
        // Read it back level by level.
        ProtoReader.read(bytes) { r in
            var levels = 0
            var reader = r
            while let tag = try? reader.readTag(), tag.number == 1, let range = try? reader.readLengthDelimited() {
                levels += 1
                reader = reader.subReader(range)
            }
            #expect(levels == 10_000)
        }
    }

    @Test func resetKeepsTheWriterUsable() {
        let w = ProtoWriter()
        w.prependVarint(5)
        w.reset()
        #expect(w.count == 0)
        w.prependVarint(7)
        #expect(w.bytes() == [7])
    }

    func readError(_ bytes: [UInt8], _ body: (inout ProtoReader) throws -> Void) -> String? {
        do {
            try ProtoReader.read(bytes) { r in try body(&r) }
            return nil
        } catch {
            return (error as? ProtobufError)?.description ?? "not a ProtobufError: \(error)"
        }
    }

    @Test func readerRejectsMalformedInputWithANamedProblem() {
        #expect(readError([0x80]) { _ = try $0.readVarint() } == "truncated varint")
        #expect(readError([]) { _ = try $0.readVarint() } == "truncated varint")
        #expect(readError(Array(repeating: 0xFF, count: 10) + [0x01]) { _ = try $0.readVarint() } == "varint longer than 10 bytes")
        #expect(readError([0x01, 0x02, 0x03]) { _ = try $0.readFixed32() } == "truncated fixed32")
        #expect(readError([0x01]) { _ = try $0.readFixed64() } == "truncated fixed64")
        #expect(
            readError([0x05, 0x01]) { _ = try $0.readLengthDelimited() }?.hasPrefix("truncated length-delimited field (5 bytes declared, 1 left)")
                == true)
        #expect(readError([0x0B]) { _ = try $0.readTag() } == "group wire type (field 1) is not supported")
        #expect(readError([0x0C]) { _ = try $0.readTag() } == "group wire type (field 1) is not supported")
        #expect(readError([0x0E]) { _ = try $0.readTag() } == "invalid wire type 6 (field 1)")
        #expect(readError([0x07]) { _ = try $0.readTag() } == "invalid field number 0")
        #expect(readError([0x80, 0x80, 0x80, 0x80, 0x80, 0x01]) { _ = try $0.readTag() } == "field key out of range")
    }

    @Test func readerReadsWhatTheWriterWrote() throws {
        let bytes = written { w in
            w.prependFixed64(42)
            w.prependKey(3, .fixed64)
            w.prependFixed32(7)
            w.prependKey(2, .fixed32)
            w.prependVarint(UInt64(bitPattern: -2))
            w.prependKey(1, .varint)
        }
        try ProtoReader.read(bytes) { (r: inout ProtoReader) throws(ProtobufError) in
            #expect(try r.readTag()! == (1, .varint))
            #expect(Int64(bitPattern: try r.readVarint()) == -2)
            #expect(try r.readTag()! == (2, .fixed32))
            #expect(try r.readFixed32() == 7)
            #expect(try r.readTag()! == (3, .fixed64))
            #expect(try r.readFixed64() == 42)
            #expect(try r.readTag() == nil)
            #expect(r.isAtEnd)
        }
    }

    /// A ten-byte varint's bits past 64 are dropped, as protobuf's parsers do.
    @Test func tenthVarintByteOverflowIsDropped() throws {
        let v = try ProtoReader.read(Array(repeating: 0xFF, count: 9) + [0x7F]) { (r: inout ProtoReader) throws(ProtobufError) in try r.readVarint() }
        #expect(v == UInt64.max)
    }
}
