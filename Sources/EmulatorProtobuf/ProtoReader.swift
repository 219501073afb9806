/// A bounds-checked cursor over protobuf wire bytes.
///
/// Every read checks the remaining length first and throws a `ProtobufError` naming the problem
/// (truncated varint, length past the end, group wire types, varints over 10 bytes), so hostile
/// input can never read out of bounds or trap. The reader borrows its bytes: it is valid only
/// while the buffer it was created over is (see `ProtoReader.read(_:_:)` for a safe scope).
public struct ProtoReader {
    /// The whole input (sub-readers share it).
    let buffer: UnsafeBufferPointer<UInt8>
    /// Index of the next unread byte.
    public private(set) var position: Int
    /// One past the last byte this reader may read.
    public let end: Int

    /// A reader over `buffer[range]`; the range is clamped to the buffer.
    public init(_ buffer: UnsafeBufferPointer<UInt8>, range: Range<Int>? = nil) {
        self.buffer = buffer
        let r = range ?? 0..<buffer.count
        self.position = max(0, min(r.lowerBound, buffer.count))
        self.end = max(position, min(r.upperBound, buffer.count))
    }

    /// Runs `body` with a reader over `bytes` (the safe way to get one).
    public static func read<R, E: Error>(_ bytes: [UInt8], _ body: (inout ProtoReader) throws(E) -> R) throws(E) -> R {
        try bytes.withUnsafeBufferPointer { (b) throws(E) -> R in
            var reader = ProtoReader(b)
            return try body(&reader)
        }
    }

    /// True when every byte has been read.
    public var isAtEnd: Bool { position >= end }

    /// Bytes left.
    public var remaining: Int { end - position }

    /// Reads a field key; nil at the end of the input. Rejects field number 0, numbers over
    /// 2^29 - 1, group wire types (3, 4) and the undefined wire types 6 and 7.
    @inline(__always)
    public mutating func readTag() throws(ProtobufError) -> (number: Int, wireType: WireType)? {
        guard position < end else { return nil }
        let key = try readVarint(what: "field key")
        guard key <= UInt64(UInt32.max) else { throw ProtobufError("field key out of range") }
        let number = Int(key >> 3)
        guard number >= 1, number <= 536_870_911 else { throw ProtobufError("invalid field number \(number)") }
        switch key & 7 {
        case 0: return (number, .varint)
        case 1: return (number, .fixed64)
        case 2: return (number, .lengthDelimited)
        case 5: return (number, .fixed32)
        case 3, 4: throw ProtobufError("group wire type (field \(number)) is not supported")
        default: throw ProtobufError("invalid wire type \(key & 7) (field \(number))")
        }
    }

    /// Reads a base-128 varint of at most 10 bytes (bits beyond 64 in the tenth byte are dropped,
    /// as protobuf's own parsers do).
    public mutating func readVarint() throws(ProtobufError) -> UInt64 {
        try readVarint(what: "varint")
    }

    /// `readVarint()`, naming what is read in its errors ("truncated field key").
    @inline(__always)
    mutating func readVarint(what: StaticString) throws(ProtobufError) -> UInt64 {
        guard position < end else { throw ProtobufError("truncated \(what)") }
        let first = buffer[position]
        position += 1
        if first < 0x80 { return UInt64(first) }
        var result = UInt64(first & 0x7F)
        var shift: UInt64 = 7
        while true {
            guard position < end else { throw ProtobufError("truncated \(what)") }
            let b = buffer[position]
            position += 1
            result |= UInt64(b & 0x7F) << shift
            if b < 0x80 { return result }
            shift += 7
            if shift >= 70 { throw ProtobufError("\(what) longer than 10 bytes") }
        }
    }

    /// Reads four little-endian bytes.
    @inline(__always)
    public mutating func readFixed32() throws(ProtobufError) -> UInt32 {
        guard end - position >= 4 else { throw ProtobufError("truncated fixed32") }
        var v: UInt32 = 0
        for k in 0..<4 { v |= UInt32(buffer[position + k]) << (8 * UInt32(k)) }
        position += 4
        return v
    }

    /// Reads eight little-endian bytes.
    @inline(__always)
    public mutating func readFixed64() throws(ProtobufError) -> UInt64 {
        guard end - position >= 8 else { throw ProtobufError("truncated fixed64") }
        var v: UInt64 = 0
        for k in 0..<8 { v |= UInt64(buffer[position + k]) << (8 * UInt64(k)) }
        position += 8
        return v
    }

    /// Reads a length prefix and returns the range of the bytes it covers (already skipped).
    @inline(__always)
    public mutating func readLengthDelimited() throws(ProtobufError) -> Range<Int> {
        let length = try readVarint(what: "length")
        guard length <= UInt64(end - position) else {
            throw ProtobufError("truncated length-delimited field (\(length) bytes declared, \(end - position) left)")
        }
        let start = position
        position += Int(length)
        return start..<position
    }

    /// A reader over `range` of the same buffer (a length-delimited field's contents).
    public func subReader(_ range: Range<Int>) -> ProtoReader {
        ProtoReader(buffer, range: range)
    }

    /// The bytes of `range` (which a read returned).
    public func bytes(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: buffer[range])
    }

    /// Skips a field's value of the given wire type (unknown fields).
    public mutating func skip(_ wireType: WireType) throws(ProtobufError) {
        switch wireType {
        case .varint: _ = try readVarint()
        case .fixed64: _ = try readFixed64()
        case .fixed32: _ = try readFixed32()
        case .lengthDelimited: _ = try readLengthDelimited()
        case .startGroup, .endGroup: throw ProtobufError("group wire type is not supported")
        }
    }
}
