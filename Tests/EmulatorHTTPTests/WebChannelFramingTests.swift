import EmulatorCore
import Testing

@testable import EmulatorHTTP

/// Chunk framing (`<length>\n<json>`, the length in UTF-16 code units) and the ASCII escaping that
/// makes bytes, characters and code units the same count.
@Suite struct WebChannelFramingTests {
    @Test func aChunkIsItsLengthANewlineAndTheText() {
        let c = WebChannelFraming.chunk(arrays: [WebChannelFraming.array(id: 0, payload: ["c", "SID", "", 8, 12, 30000])])
        #expect(String(decoding: c, as: UTF8.self) == "31\n[[0,[\"c\",\"SID\",\"\",8,12,30000]]]")
        #expect(String(decoding: WebChannelFraming.chunk(Array("[1,2,0]".utf8)), as: UTF8.self) == "7\n[1,2,0]")
    }

    @Test func nonASCIIIsEscapedAsUTF16SoLengthsCountCodeUnits() throws {
        let text = "héllo ✓ 😀 \u{2028}"
        let bytes = WebChannelFraming.array(id: 5, payload: .array([.string(text)]))
        #expect(bytes.allSatisfy { $0 < 0x80 })
        let s = String(decoding: bytes, as: UTF8.self)
        #expect(s == "[5,[\"h\\u00e9llo \\u2713 \\ud83d\\ude00 \\u2028\"]]")
        // The escaped text parses back to the same string.
        #expect(try JSON.parse(bytes) == [5, [.string(text)]])
        // A JavaScript client counts UTF-16 units of the decoded text: the chunk length must equal
        // the escaped text's length, and the unescaped text would have been shorter in bytes' terms.
        #expect(WebChannelFraming.chunk(bytes).prefix(while: { $0 != 10 }) == Array(String(bytes.count).utf8)[...])
    }

    @Test func asciiLeavesASCIIAloneAndReplacesInvalidUTF8() {
        let plain = Array("{\"a\":\"b\"}".utf8)
        #expect(WebChannelFraming.ascii(plain) == plain)
        #expect(String(decoding: WebChannelFraming.ascii([0x22, 0xFF, 0x22]), as: UTF8.self) == "\"\\ufffd\"")
    }

    @Test func theReaderReadsChunksSplitAnywhere() throws {
        let body = WebChannelFraming.chunk(arrays: [Array("[1,[\"x\"]]".utf8)]) + WebChannelFraming.chunk(Array("[2,[]]".utf8))
        for split in 0...body.count {
            var r = WebChannelChunkReader()
            r.feed(body[..<split])
            var got: [[UInt8]] = []
            while let c = try r.next() { got.append(c) }
            r.feed(body[split...])
            while let c = try r.next() { got.append(c) }
            #expect(got.map { String(decoding: $0, as: UTF8.self) } == ["[[1,[\"x\"]]]", "[2,[]]"], "split at \(split)")
            #expect(r.pendingCount == 0)
        }
    }

    @Test func theReaderRefusesBadLengths() {
        for bad in ["x1\n[]", "-1\n[]", "\n[]", "12345678901\n[]", String(repeating: "9", count: 30)] {
            var r = WebChannelChunkReader()
            r.feed(Array(bad.utf8))
            #expect(throws: WebChannelChunkReader.Failure.self, "\(bad)") { _ = try r.next() }
        }
        var big = WebChannelChunkReader(maxChunk: 10)
        big.feed(Array("11\n".utf8))
        #expect(throws: WebChannelChunkReader.Failure.self) { _ = try big.next() }
    }
}
