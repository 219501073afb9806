import EmulatorCore

/// A protobuf output buffer filled back to front.
///
/// Nested messages are the hard part of protobuf encoding: a message's length prefix comes before
/// its contents, but is only known after them. Like upb's encoder, this writer builds the output
/// from its last byte towards its first, so a nested message is written first and its length and
/// key are prepended once its size is known: no size pre-pass and no moving of bytes, however deep
/// or large the nesting (growth copies the written tail once per doubling). Callers therefore emit
/// fields in reverse: last field first, the elements of a repeated field last to first, and a
/// field's value before its key.
///
///     let w = ProtoWriter()
///     let mark = w.count
///     w.prependString("x")                    // contents of the nested message
///     w.prependLength(since: mark)            // its length ...
///     w.prependKey(2, .lengthDelimited)       // ... and its key
///     w.bytes()                               // 12 03 0a 01 78 if the contents were `0a 01 78`
///
/// Not thread-safe; reuse one writer per encoding (`reset()` keeps the allocation).
public final class ProtoWriter {
    /// The allocation; content lives in `storage[start..<capacity]`.
    private var storage: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var start: Int

    /// Creates a writer with room for `capacity` bytes before it grows.
    public init(capacity: Int = 256) {
        self.capacity = max(16, capacity)
        self.storage = .allocate(capacity: self.capacity)
        self.start = self.capacity
    }

    deinit { storage.deallocate() }

    /// Bytes written so far. Also the mark to pass to `prependLength(since:)`.
    public var count: Int { capacity - start }

    /// Forgets the content, keeping the allocation.
    public func reset() { start = capacity }

    /// The content, first byte first.
    public func bytes() -> [UInt8] {
        [UInt8](UnsafeBufferPointer(start: storage + start, count: capacity - start))
    }

    /// Makes room for `n` more bytes in front of the content.
    @inline(__always)
    private func reserve(_ n: Int) {
        if start < n { grow(n) }
    }

    private func grow(_ n: Int) {
        let used = capacity - start
        var newCapacity = capacity * 2
        while newCapacity - used < n { newCapacity *= 2 }
        let fresh = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        (fresh + (newCapacity - used)).update(from: storage + start, count: used)
        storage.deallocate()
        storage = fresh
        start = newCapacity - used
        capacity = newCapacity
    }

    /// Prepends one byte.
    public func prependByte(_ b: UInt8) {
        reserve(1)
        start -= 1
        storage[start] = b
    }

    /// The encoded size of a varint.
    @inline(__always)
    public static func varintSize(_ v: UInt64) -> Int {
        // 1 + floor(bits / 7), with 0 taking one byte.
        let bits = 64 - (v | 1).leadingZeroBitCount
        return (bits + 6) / 7
    }

    /// Prepends a base-128 varint (1 to 10 bytes).
    public func prependVarint(_ value: UInt64) {
        if value < 0x80 {
            reserve(1)
            start -= 1
            storage[start] = UInt8(value)
            return
        }
        let size = ProtoWriter.varintSize(value)
        reserve(size)
        start -= size
        var v = value
        var p = storage + start
        while v >= 0x80 {
            p.pointee = UInt8(truncatingIfNeeded: v) | 0x80
            v >>= 7
            p += 1
        }
        p.pointee = UInt8(v)
    }

    /// Prepends a field key: `(number << 3) | wire type`.
    public func prependKey(_ number: Int, _ wireType: WireType) {
        prependVarint(UInt64(number) << 3 | UInt64(wireType.rawValue))
    }

    /// Prepends four little-endian bytes.
    public func prependFixed32(_ value: UInt32) {
        reserve(4)
        start -= 4
        for k in 0..<4 { storage[start + k] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(k))) }
    }

    /// Prepends eight little-endian bytes.
    public func prependFixed64(_ value: UInt64) {
        reserve(8)
        start -= 8
        for k in 0..<8 { storage[start + k] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(k))) }
    }

    /// Prepends raw bytes (no length).
    public func prependBytes(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard !bytes.isEmpty, let base = bytes.baseAddress else { return }
        reserve(bytes.count)
        start -= bytes.count
        (storage + start).update(from: base, count: bytes.count)
    }

    /// Prepends raw bytes (no length).
    public func prependBytes(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { prependBytes($0) }
    }

    /// Prepends a string's UTF-8 bytes (no length).
    public func prependString(_ string: String) {
        string.withUTF8Bytes { prependBytes($0) }
    }

    /// Prepends the varint length of everything written since `mark` (an earlier `count`): the
    /// length prefix of a nested message, string or packed field whose contents were just written.
    public func prependLength(since mark: Int) {
        prependVarint(UInt64(capacity - start - mark))
    }
}
