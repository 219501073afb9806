import Testing

@testable import EmulatorHTTP

/// The Huffman code (RFC 7541 §5.2, Appendix B): the transcribed table, the RFC's coded
/// strings, round trips, and the decoding errors.
@Suite struct HPACKHuffmanTests {
    /// Decodes `bytes` as one Huffman string.
    func decode(_ bytes: [UInt8]) throws(HPACKError) -> [UInt8] {
        let decoded = try HPACKHuffman.decodeBytes(bytes, from: 0, to: bytes.count)
        // The String form agrees (here on valid UTF-8) and counts the same octets.
        let (string, count) = try HPACKHuffman.decodeString(bytes, from: 0, to: bytes.count)
        #expect(count == decoded.count)
        if let valid = String(validating: decoded, as: UTF8.self) { #expect(string == valid) }
        return decoded
    }

    /// Encodes `s` as one Huffman string.
    func encode(_ s: String) -> [UInt8] { encode(Array(s.utf8)) }

    /// Encodes `bytes` as one Huffman string.
    func encode(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        HPACKHuffman.encode(bytes, into: &out)
        #expect(out.count == HPACKHuffman.encodedCount(bytes))
        return out
    }

    /// 257 entries; the code is canonical: ordered by (length, symbol), each code is the previous
    /// one plus one, shifted left when the length grows, starting from zero. With the lengths
    /// this determines every code, so a mistyped code or length fails here.
    @Test func tableIsTheCanonicalCodeOfItsLengths() {
        let table = HPACKHuffmanTable.codes
        #expect(table.count == 257)
        let order = (0..<257).sorted { (table[$0].length, $0) < (table[$1].length, $1) }
        var code: UInt32 = 0
        var length = table[order[0]].length
        for (n, symbol) in order.enumerated() {
            if n > 0 {
                code += 1
                code <<= UInt32(table[symbol].length - length)
                length = table[symbol].length
            }
            #expect(table[symbol].code == code, "symbol \(symbol)")
            #expect(table[symbol].code >> UInt32(table[symbol].length) == 0, "symbol \(symbol) code wider than its length")
        }
        // Complete (Kraft sum exactly 1): the last code is all ones, and it is EOS, 30 bits.
        #expect(order.last == 256 && code == (1 << 30) - 1)
        let kraft = table.reduce(UInt64(0)) { $0 + (UInt64(1) << (30 - UInt64($1.length))) }
        #expect(kraft == 1 << 30)
        // Spot checks against Appendix B's rows.
        #expect(table[Int(UInt8(ascii: "0"))] == (0x0, 5) as (UInt32, UInt8))
        #expect(table[Int(UInt8(ascii: "a"))] == (0x3, 5) as (UInt32, UInt8))
        #expect(table[Int(UInt8(ascii: ":"))] == (0x5c, 7) as (UInt32, UInt8))
        #expect(table[Int(UInt8(ascii: "\\"))] == (0x7fff0, 19) as (UInt32, UInt8))
        #expect(table[255] == (0x3ffffee, 26) as (UInt32, UInt8))
    }

    /// Every Huffman-coded string of Appendix C.4 and C.6, both ways.
    @Test(arguments: [
        ("www.example.com", "f1e3c2e5f23a6ba0ab90f4ff"),
        ("no-cache", "a8eb10649cbf"),
        ("custom-key", "25a849e95ba97d7f"),
        ("custom-value", "25a849e95bb8e8b4bf"),
        ("302", "6402"),
        ("307", "640eff"),
        ("private", "aec3771a4b"),
        ("Mon, 21 Oct 2013 20:13:21 GMT", "d07abe941054d444a8200595040b8166e082a62d1bff"),
        ("Mon, 21 Oct 2013 20:13:22 GMT", "d07abe941054d444a8200595040b8166e084a62d1bff"),
        ("https://www.example.com", "9d29ad171863c78f0b97c8e9ae82ae43d3"),
        ("gzip", "9bd9ab"),
        (
            "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1",
            "94e7821dd7f2e6c7b335dfdfcd5b3960d5af27087f3672c1ab270fb5291f9587316065c003ed4ee5b1063d5007"
        ),
    ])
    func rfcStrings(text: String, hex: String) throws {
        #expect(hpackHexString(encode(text)) == hex)
        #expect(try decode(hpackHex(hex)) == Array(text.utf8))
    }

    /// Every octet alone and all 256 together, plus seeded random strings of every length up to
    /// 64 (every padding length 0–7 occurs), decode to what was encoded.
    @Test func roundTrips() throws {
        var strings: [[UInt8]] = (0...255).map { [UInt8($0)] } + [Array(0...255), []]
        var rng = SplitMix(seed: 7541)
        for length in 0...64 {
            for _ in 0..<20 { strings.append((0..<length).map { _ in UInt8(truncatingIfNeeded: rng.next()) }) }
        }
        for bytes in strings {
            #expect(try decode(encode(bytes)) == bytes)
        }
    }

    /// An empty Huffman string is valid and empty.
    @Test func emptyStringIsValid() throws {
        #expect(try decode([]).isEmpty)
    }

    /// The three errors RFC 7541 §5.2 requires, each named.
    @Test(arguments: [
        // 30 ones (EOS) then two more.
        ("ffffffff", "Huffman string contains the EOS symbol"),
        // 'a' (00011), EOS, five ones of padding.
        ("1fffffffff", "Huffman string contains the EOS symbol"),
        // "302" then EOS then '0' (00000): data after EOS is no excuse.
        ("6402" + "ffffffff" + "07", "Huffman string contains the EOS symbol"),
        // A whole octet of ones: 8 bits of padding.
        ("ff", "Huffman string has padding longer than 7 bits"),
        // 'a' then 11 ones.
        ("1fff", "Huffman string has padding longer than 7 bits"),
        // "www.example.com" with an extra octet of padding.
        ("f1e3c2e5f23a6ba0ab90f4ffff", "Huffman string has padding longer than 7 bits"),
        // 'a' then 000: the padding must be the start of EOS.
        ("18", "Huffman string has padding that is not all ones"),
        // 'a' then 110.
        ("1e", "Huffman string has padding that is not all ones"),
        // 1111111 then 0: the start of the 10-bit code of '!', cut short.
        ("fe", "Huffman string has padding that is not all ones"),
    ])
    func malformedStringsThrow(hex: String, message: String) {
        #expect(throws: HPACKError(message)) { try decode(hpackHex(hex)) }
    }

    /// Huffman coding is shorter for typical header text and longer for rare octets; the
    /// encoder uses it only when shorter (the H bit says which).
    @Test func encoderPicksTheShorterForm() {
        #expect(HPACKHuffman.encodedCount("application/grpc".utf8) < "application/grpc".utf8.count)
        #expect(HPACKHuffman.encodedCount("\\\\\\".utf8) > 3)
        var encoder = HPACKEncoder()
        let block = encoder.encode([hf("x-a", "\\\\\\"), hf("x-b", "identity")])
        // x-a: a new-name literal with incremental indexing; the name's code takes 7 + 6 + 5 bits,
        // 3 octets, no shorter, and each backslash takes 19 bits: both are sent raw.
        #expect(hpackHexString(block).hasPrefix("4003782d61035c5c5c"))
        // x-b: identity is Huffman-coded (8 → 6 octets).
        #expect(hpackHexString(block).hasSuffix("4003782d6286" + hpackHexString(encode("identity"))))
    }
}
