import EmulatorHTTP

/// The `http2` target: arbitrary bytes after the client preface, fed to the server side of one
/// HTTP/2 connection (`HTTP2ConnectionDriver`, the same state machine the event loop runs) in
/// input-derived chunks, new streams answered or reset as they open.
///
/// Properties: the server's output is a sequence of well-formed frames, none longer than the
/// peer's SETTINGS_MAX_FRAME_SIZE, starting with SETTINGS; every header block it sends decodes
/// with a fresh HPACK decoder that follows it (so our encoder's dynamic table never drifts from the
/// peer's, whatever table sizes the peer announces); the connection send window never goes
/// negative; a connection error ends with exactly one GOAWAY as the last frame.
public enum HTTP2Target {
    /// Runs the target on `data`: the first octet picks the chunk size (1–64), the rest is fed.
    public static func run(_ data: [UInt8]) throws(FuzzViolation) {
        guard let first = data.first else { return }
        let chunk = Int(first % 64) + 1
        let driver = HTTP2ConnectionDriver()
        var i = 1
        while i < data.count {
            let end = min(data.count, i + chunk)
            driver.feed(Array(data[i..<end]))
            i = end
            guard driver.connectionSendWindow >= 0 else {
                throw FuzzViolation(.http2, "connection send window went negative: \(driver.connectionSendWindow)")
            }
            if driver.error != nil { break }
        }
        try checkOutput(driver)
    }

    static func checkOutput(_ driver: HTTP2ConnectionDriver) throws(FuzzViolation) {
        let out = driver.output
        var decoder = HPACKDecoder(maxTableSize: 1 << 20, maxHeaderListSize: Int.max)
        var block: [UInt8]? = nil
        var offset = 0
        var types: [UInt8] = []
        while offset < out.count {
            guard out.count - offset >= 9 else { throw FuzzViolation(.http2, "output ends inside a frame header") }
            let length = Int(out[offset]) << 16 | Int(out[offset + 1]) << 8 | Int(out[offset + 2])
            let type = out[offset + 3], flags = out[offset + 4]
            guard offset + 9 + length <= out.count else { throw FuzzViolation(.http2, "output ends inside a frame payload") }
            guard length <= max(driver.peerMaxFrameSize, 16_384) else {
                throw FuzzViolation(.http2, "frame of \(length) bytes exceeds the peer's maximum \(driver.peerMaxFrameSize)")
            }
            let payload = Array(out[(offset + 9)..<(offset + 9 + length)])
            types.append(type)
            if type == 1 || type == 9 {
                if type == 1 { guard block == nil else { throw FuzzViolation(.http2, "HEADERS inside another header block") } }
                if type == 9 { guard block != nil else { throw FuzzViolation(.http2, "CONTINUATION without HEADERS") } }
                block = (block ?? []) + payload
                if flags & 0x4 != 0 {
                    do { _ = try decoder.decode(block!) } catch {
                        throw FuzzViolation(.http2, "our header block does not decode: \(error)")
                    }
                    block = nil
                }
            } else if block != nil {
                throw FuzzViolation(.http2, "frame type \(type) interleaved with a header block")
            }
            offset += 9 + length
        }
        guard types.first == 4 else { throw FuzzViolation(.http2, "the server's first frame is not SETTINGS") }
        if driver.error != nil {
            guard types.last == 7, types.filter({ $0 == 7 }).count == 1 else {
                throw FuzzViolation(.http2, "a connection error must end with exactly one GOAWAY (frames: \(types.suffix(5)))")
            }
        }
    }
}
