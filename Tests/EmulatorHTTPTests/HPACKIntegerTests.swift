import Testing

@testable import EmulatorHTTP

/// RFC 7541 §5.1 integers: the Appendix C.1 examples, round trips, and hostile encodings.
@Suite struct HPACKIntegerTests {
    /// C.1.1–C.1.3: 10 and 1337 with a 5-bit prefix, 42 with an 8-bit prefix.
    @Test(arguments: [(10, 5, "0a"), (1337, 5, "1f9a0a"), (42, 8, "2a")])
    func rfcExamples(value: Int, prefix: Int, hex: String) throws {
        var out: [UInt8] = []
        HPACKInteger.encode(value, prefixBits: prefix, firstOctetFlags: 0, into: &out)
        #expect(hpackHexString(out) == hex)
        var i = 0
        #expect(try HPACKInteger.decode(out, at: &i, prefixBits: prefix) == value)
        #expect(i == out.count)
    }

    /// Every prefix width, values around each boundary; pattern bits above the prefix are
    /// kept on encode and ignored on decode.
    @Test func roundTrips() throws {
        for prefix in 1...8 {
            let flags: UInt8 = prefix == 8 ? 0 : UInt8(0xFF << prefix & 0xFF)
            let limit = 1 << prefix - 1
            for value in [0, 1, limit - 1, limit, limit + 1, 127, 128, 255, 256, 1337, 16383, 16384, 1 << 20, 1 << 28 - 1, (1 << 31) - 1, 1 << 34]
            where value >= 0 {
                var out: [UInt8] = []
                HPACKInteger.encode(value, prefixBits: prefix, firstOctetFlags: flags, into: &out)
                #expect(out[0] & flags == flags)
                var i = 0
                #expect(try HPACKInteger.decode(out, at: &i, prefixBits: prefix) == value, "prefix \(prefix) value \(value)")
                #expect(i == out.count)
            }
        }
    }

    /// An integer cut short throws instead of reading past the block.
    @Test(arguments: ["1f", "1f9a", "1fff", "ffffffff"])
    func truncatedIntegersThrow(hex: String) {
        var i = 0
        #expect(throws: HPACKError("header block ends inside an integer")) {
            try HPACKInteger.decode(hpackHex(hex), at: &i, prefixBits: 5)
        }
    }

    /// Five continuation octets are accepted (the largest value fits easily in an Int); a sixth,
    /// even a redundant zero group, is refused, so no input can overflow or run long.
    @Test func continuationOctetsAreBounded() throws {
        var i = 0
        #expect(try HPACKInteger.decode(hpackHex("1fffffffff7f"), at: &i, prefixBits: 5) == 31 + (1 << 35) - 1)
        for hex in ["1f808080808000", "1f" + String(repeating: "ff", count: 100), "ff" + String(repeating: "80", count: 20) + "01"] {
            var j = 0
            #expect(throws: HPACKError("integer takes more than 5 continuation octets")) {
                try HPACKInteger.decode(hpackHex(hex), at: &j, prefixBits: 5)
            }
        }
    }

    /// Through the decoder: huge indices, name indices and string lengths are compression errors.
    @Test(arguments: [
        "ff" + String(repeating: "ff", count: 12), "7f" + String(repeating: "ff", count: 12),
        "40ff" + String(repeating: "ff", count: 12), "3f" + String(repeating: "ff", count: 12),
    ])
    func hugeIntegersInBlocksThrow(hex: String) {
        var decoder = HPACKDecoder()
        #expect(throws: HPACKError("integer takes more than 5 continuation octets")) { try decoder.decode(hpackHex(hex)) }
    }

    /// A large but well-formed integer is an error of the field it names, never a trap.
    @Test func largeValuesAreRangeErrors() {
        var decoder = HPACKDecoder()
        #expect(throws: HPACKError("index 34359738494 is beyond the static and dynamic tables (61 entries)")) {
            try decoder.decode(hpackHex("ffffffffff7f"))
        }
        #expect(throws: HPACKError("dynamic table size update to 34359738398 exceeds the limit 4096")) {
            try decoder.decode(hpackHex("3fffffffff7f"))
        }
        #expect(throws: HPACKError("string literal of 34359738494 octets runs past the end of the header block (0 left)")) {
            try decoder.decode(hpackHex("407fffffffff7f"))
        }
    }
}
