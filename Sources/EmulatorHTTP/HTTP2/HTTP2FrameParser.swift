/// Splits a byte stream into HTTP/2 frames, whatever the read boundaries (a pure state machine:
/// the same frames come out whether the bytes arrive whole or one at a time).
struct HTTP2FrameParser {
    /// The largest payload accepted (our SETTINGS_MAX_FRAME_SIZE); larger is FRAME_SIZE_ERROR.
    var maxFrameSize: Int
    private var buffer: [UInt8] = []
    private var start = 0

    /// Creates a parser accepting payloads up to `maxFrameSize` bytes.
    init(maxFrameSize: Int = 16_384) { self.maxFrameSize = maxFrameSize }

    /// Bytes received but not yet returned as frames.
    var bufferedCount: Int { buffer.count - start }

    /// Appends received bytes.
    mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        if start > 0 && start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 64 * 1024)
            start = 0
        } else if start > 65_536 && start * 2 > buffer.count {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Appends received bytes (tests and replays).
    mutating func feed(_ bytes: [UInt8]) { bytes.withUnsafeBytes { feed($0) } }

    /// The next complete frame, or nil when more bytes are needed. A payload longer than
    /// `maxFrameSize` is a connection error (FRAME_SIZE_ERROR), detected from the header alone.
    mutating func next() throws(HTTP2ConnectionError) -> HTTP2Frame? {
        let available = buffer.count - start
        guard available >= 9 else { return nil }
        let length = Int(buffer[start]) << 16 | Int(buffer[start + 1]) << 8 | Int(buffer[start + 2])
        let type = buffer[start + 3]
        guard length <= maxFrameSize else {
            throw HTTP2ConnectionError(
                .frameSizeError,
                "\(HTTP2FrameType.name(type)) frame of \(length) bytes exceeds SETTINGS_MAX_FRAME_SIZE \(maxFrameSize)")
        }
        guard available >= 9 + length else { return nil }
        let flags = buffer[start + 4]
        let stream =
            (UInt32(buffer[start + 5]) << 24 | UInt32(buffer[start + 6]) << 16 | UInt32(buffer[start + 7]) << 8
                | UInt32(buffer[start + 8])) & 0x7fff_ffff
        let payload = Array(buffer[(start + 9)..<(start + 9 + length)])
        start += 9 + length
        return HTTP2Frame(type: type, flags: flags, streamId: stream, payload: payload)
    }
}
