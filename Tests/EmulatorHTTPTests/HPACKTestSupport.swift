@testable import EmulatorHTTP

/// The octets of a hex string such as the RFC's dumps ("8286 8441 ..."); spaces are ignored.
func hpackHex(_ s: String) -> [UInt8] {
    let digits = s.unicodeScalars.filter { $0 != " " && $0 != "\n" }.map { UInt8(ascii: $0) }
    precondition(digits.count % 2 == 0, "odd number of hex digits")
    func nibble(_ c: UInt8) -> UInt8 {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        default: preconditionFailure("not a hex digit: \(c)")
        }
    }
    return stride(from: 0, to: digits.count, by: 2).map { nibble(digits[$0]) << 4 | nibble(digits[$0 + 1]) }
}

/// Lowercase hex of `bytes`, no spaces.
func hpackHexString(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef")
    return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] })
}

/// Shorthand for a field.
func hf(_ name: String, _ value: String, never: Bool = false) -> HPACKHeaderField {
    HPACKHeaderField(name: name, value: value, neverIndexed: never)
}

extension SplitMix {
    /// A number in `0..<n`.
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}

/// RFC 7541 Appendix C: the header blocks of C.3–C.6, each with the list it carries and the
/// dynamic table after it (newest first, and its size).
enum RFC7541Examples {
    /// One example block.
    struct Block {
        /// The encoded block.
        var hex: String
        /// The list it encodes.
        var fields: [HPACKHeaderField]
        /// The dynamic table after decoding it, newest first.
        var table: [HPACKHeaderField]
        /// The dynamic table's size after decoding it.
        var tableSize: Int
    }

    static let request1 = [hf(":method", "GET"), hf(":scheme", "http"), hf(":path", "/"), hf(":authority", "www.example.com")]
    static let request2 = request1 + [hf("cache-control", "no-cache")]
    static let request3 = [
        hf(":method", "GET"), hf(":scheme", "https"), hf(":path", "/index.html"),
        hf(":authority", "www.example.com"), hf("custom-key", "custom-value"),
    ]
    static let requestTables = [
        [hf(":authority", "www.example.com")],
        [hf("cache-control", "no-cache"), hf(":authority", "www.example.com")],
        [hf("custom-key", "custom-value"), hf("cache-control", "no-cache"), hf(":authority", "www.example.com")],
    ]
    static let date1 = "Mon, 21 Oct 2013 20:13:21 GMT"
    static let date2 = "Mon, 21 Oct 2013 20:13:22 GMT"
    static let cookie = "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1"
    static let response1 = [
        hf(":status", "302"), hf("cache-control", "private"), hf("date", date1),
        hf("location", "https://www.example.com"),
    ]
    static let response2 = [
        hf(":status", "307"), hf("cache-control", "private"), hf("date", date1),
        hf("location", "https://www.example.com"),
    ]
    static let response3 = [
        hf(":status", "200"), hf("cache-control", "private"), hf("date", date2),
        hf("location", "https://www.example.com"), hf("content-encoding", "gzip"), hf("set-cookie", cookie),
    ]
    static let responseTables = [
        [hf("location", "https://www.example.com"), hf("date", date1), hf("cache-control", "private"), hf(":status", "302")],
        [hf(":status", "307"), hf("location", "https://www.example.com"), hf("date", date1), hf("cache-control", "private")],
        [hf("set-cookie", cookie), hf("content-encoding", "gzip"), hf("date", date2)],
    ]

    /// C.3: requests without Huffman coding (table size 4096).
    static let c3 = [
        Block(hex: "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d", fields: request1, table: requestTables[0], tableSize: 57),
        Block(hex: "8286 84be 5808 6e6f 2d63 6163 6865", fields: request2, table: requestTables[1], tableSize: 110),
        Block(
            hex: "8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65",
            fields: request3, table: requestTables[2], tableSize: 164),
    ]
    /// C.4: the same requests with Huffman coding.
    static let c4 = [
        Block(hex: "8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff", fields: request1, table: requestTables[0], tableSize: 57),
        Block(hex: "8286 84be 5886 a8eb 1064 9cbf", fields: request2, table: requestTables[1], tableSize: 110),
        Block(
            hex: "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf",
            fields: request3, table: requestTables[2], tableSize: 164),
    ]
    /// C.5: responses without Huffman coding, table size 256 (evictions).
    static let c5 = [
        Block(
            hex: """
                4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 \
                3230 3133 2032 303a 3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 \
                7777 2e65 7861 6d70 6c65 2e63 6f6d
                """, fields: response1, table: responseTables[0], tableSize: 222),
        Block(hex: "4803 3330 37c1 c0bf", fields: response2, table: responseTables[1], tableSize: 222),
        Block(
            hex: """
                88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 \
                3220 474d 54c0 5a04 677a 6970 7738 666f 6f3d 4153 444a 4b48 514b 425a \
                584f 5157 454f 5049 5541 5851 5745 4f49 553b 206d 6178 2d61 6765 3d33 \
                3630 303b 2076 6572 7369 6f6e 3d31
                """, fields: response3, table: responseTables[2], tableSize: 215),
    ]
    /// C.6: the same responses with Huffman coding.
    static let c6 = [
        Block(
            hex: """
                4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 \
                66e0 82a6 2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3
                """, fields: response1, table: responseTables[0], tableSize: 222),
        Block(hex: "4883 640e ffc1 c0bf", fields: response2, table: responseTables[1], tableSize: 222),
        Block(
            hex: """
                88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a \
                839b d9ab 77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 \
                72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07
                """, fields: response3, table: responseTables[2], tableSize: 215),
    ]

    /// Every sequence with its name and the table size it runs with.
    static let sequences: [(name: String, tableSize: Int, huffman: Bool, blocks: [Block])] = [
        ("C.3", 4096, false, c3), ("C.4", 4096, true, c4), ("C.5", 256, false, c5), ("C.6", 256, true, c6),
    ]
}
