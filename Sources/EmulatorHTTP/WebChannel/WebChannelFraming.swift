import EmulatorCore

/// The body framing of every WebChannel response (VER=8): a sequence of chunks, each a decimal
/// length, `\n`, then exactly that many characters of a JSON array.
///
/// The client counts the length in characters of the decoded JavaScript string (UTF-16 code
/// units), not bytes. The JSON written here is ASCII only (every non-ASCII character is a `\uXXXX`
/// escape, astral ones as surrogate pairs), so bytes, characters and code units are the same
/// count and no length can be off for any document content. No newline follows the JSON (Google's
/// server sends none; the client reads exactly the counted characters either way).
public enum WebChannelFraming {
    /// One chunk: `<length>\n<text>`; `text` must be ASCII (as `ascii(_:)` makes it).
    public static func chunk(_ text: [UInt8]) -> [UInt8] {
        var out = Array(String(text.count).utf8)
        out.reserveCapacity(out.count + 1 + text.count)
        out.append(UInt8(ascii: "\n"))
        out.append(contentsOf: text)
        return out
    }

    /// The ASCII JSON text of one server array `[id,payload]`.
    public static func array(id: Int, payload: JSON) -> [UInt8] {
        ascii(JSON.array([.int(Int64(id)), payload]).serializedBytes())
    }

    /// A chunk holding several arrays (each from `array(id:payload:)`): `[[1,..],[2,..]]`.
    public static func chunk(arrays: [[UInt8]]) -> [UInt8] {
        var text: [UInt8] = [UInt8(ascii: "[")]
        text.reserveCapacity(arrays.reduce(2) { $0 + $1.count + 1 })
        for (i, a) in arrays.enumerated() {
            if i > 0 { text.append(UInt8(ascii: ",")) }
            text.append(contentsOf: a)
        }
        text.append(UInt8(ascii: "]"))
        return chunk(text)
    }

    /// Serialized JSON with every non-ASCII character escaped as `\uXXXX` (UTF-16, so characters
    /// outside the BMP become a surrogate pair). Non-ASCII bytes only occur inside strings, where
    /// an escape means the same character. Invalid UTF-8 (which `JSON` never produces) becomes
    /// U+FFFD.
    public static func ascii(_ utf8: [UInt8]) -> [UInt8] {
        guard utf8.contains(where: { $0 >= 0x80 }) else { return utf8 }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count + utf8.count / 2)
        var decoder = UTF8()
        var it = utf8.makeIterator()
        loop: while true {
            switch decoder.decode(&it) {
            case .scalarValue(let s):
                if s.value < 0x80 {
                    out.append(UInt8(s.value))
                } else if s.value <= 0xFFFF {
                    escape(UInt16(s.value), into: &out)
                } else {
                    let v = s.value - 0x10000
                    escape(UInt16(0xD800 + (v >> 10)), into: &out)
                    escape(UInt16(0xDC00 + (v & 0x3FF)), into: &out)
                }
            case .emptyInput: break loop
            case .error: escape(0xFFFD, into: &out)
            }
        }
        return out
    }

    private static func escape(_ unit: UInt16, into out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        out.append(contentsOf: [
            UInt8(ascii: "\\"), UInt8(ascii: "u"),
            hex[Int(unit >> 12)], hex[Int((unit >> 8) & 0xF)], hex[Int((unit >> 4) & 0xF)], hex[Int(unit & 0xF)],
        ])
    }
}

/// Reads WebChannel chunks back out of a response body, as the client does
/// (`channelrequest.js`, `getNextChunk_`): for tests, the fuzz target and tools. Fed bytes as they
/// arrive; a chunk is complete when its counted characters are all there. ASCII bodies only (what
/// this server writes): each byte is one character.
public struct WebChannelChunkReader: Sendable {
    /// Why the body is not a valid chunk sequence.
    public enum Failure: Error, Equatable, Sendable {
        /// The length line is not a decimal number (or is absurdly long).
        case badLength(String)
    }

    private var buffer: [UInt8] = []
    private var offset = 0
    /// The largest chunk accepted (a hostile or corrupt length cannot make the reader wait for
    /// gigabytes).
    public var maxChunk: Int

    /// Creates an empty reader.
    public init(maxChunk: Int = 64 << 20) { self.maxChunk = maxChunk }

    /// Appends received bytes.
    public mutating func feed<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        if offset > 0 && offset >= buffer.count / 2 {
            buffer.removeFirst(offset)
            offset = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete chunk's text, nil when more bytes are needed; throws on a length line
    /// that is not a number.
    public mutating func next() throws(Failure) -> [UInt8]? {
        guard let nl = buffer[offset...].firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.count - offset > 20 { throw .badLength(String(decoding: buffer[offset..<offset + 20], as: UTF8.self)) }
            return nil
        }
        let digits = buffer[offset..<nl]
        guard !digits.isEmpty, digits.count <= 10, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let n = Int(String(decoding: digits, as: UTF8.self)), n <= maxChunk
        else { throw .badLength(String(decoding: digits.prefix(20), as: UTF8.self)) }
        let start = nl + 1
        guard buffer.count - start >= n else { return nil }
        offset = start + n
        return Array(buffer[start..<start + n])
    }

    /// Bytes received but not yet part of a complete chunk.
    public var pendingCount: Int { buffer.count - offset }
}
