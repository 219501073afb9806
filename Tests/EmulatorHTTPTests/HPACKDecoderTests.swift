import Testing

@testable import EmulatorHTTP

/// HPACKDecoder: the RFC 7541 Appendix C examples byte for byte, every representation, the
/// dynamic table rules, and hostile or truncated blocks.
@Suite struct HPACKDecoderTests {
    /// C.2.1–C.2.4: one representation each, on a fresh decoder, with the table after it.
    @Test(arguments: [
        (
            "400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572",
            [hf("custom-key", "custom-header")], [hf("custom-key", "custom-header")], 55
        ),
        ("040c 2f73 616d 706c 652f 7061 7468", [hf(":path", "/sample/path")], [], 0),
        ("1008 7061 7373 776f 7264 0673 6563 7265 74", [hf("password", "secret", never: true)], [], 0),
        ("82", [hf(":method", "GET")], [], 0),
    ])
    func rfcC2Representations(hex: String, fields: [HPACKHeaderField], table: [HPACKHeaderField], size: Int) throws {
        var decoder = HPACKDecoder()
        let block = try decoder.decode(hpackHex(hex))
        #expect(block == HPACKDecodedBlock(fields: fields, listTooLarge: false))
        #expect(decoder.dynamicTableFields == table)
        #expect(decoder.dynamicTableSize == size)
    }

    /// C.3–C.6: each sequence on one decoder, every block's list and the table after it.
    @Test(arguments: RFC7541Examples.sequences.map { ($0.name, $0.tableSize, $0.blocks) })
    func rfcSequences(name: String, tableSize: Int, blocks: [RFC7541Examples.Block]) throws {
        var decoder = HPACKDecoder(maxTableSize: tableSize)
        for (n, example) in blocks.enumerated() {
            let block = try decoder.decode(hpackHex(example.hex))
            #expect(block.fields == example.fields, "\(name).\(n + 1)")
            #expect(!block.listTooLarge)
            #expect(decoder.dynamicTableFields == example.table, "\(name).\(n + 1) table")
            #expect(decoder.dynamicTableSize == example.tableSize, "\(name).\(n + 1) table size")
        }
    }

    /// Every example block cut at every length, on a copy of the decoder as it was before the
    /// block: a cut at a field boundary decodes to the fields before it, any other cut throws
    /// (string or integer running past the end). Never a trap, never a wrong field.
    @Test(arguments: RFC7541Examples.sequences.map { ($0.name, $0.tableSize, $0.blocks) })
    func truncatedBlocksThrow(name: String, tableSize: Int, blocks: [RFC7541Examples.Block]) throws {
        var decoder = HPACKDecoder(maxTableSize: tableSize)
        for example in blocks {
            let bytes = hpackHex(example.hex)
            var decodedCuts = 0
            for cut in 0..<bytes.count {
                var copy = decoder
                do {
                    let partial = try copy.decode(Array(bytes[0..<cut]))
                    decodedCuts += 1
                    #expect(partial.fields == Array(example.fields.prefix(partial.fields.count)))
                } catch {
                    #expect(error.message.contains("ends") || error.message.contains("runs past the end"), "\(error)")
                }
            }
            // The cuts that decode are exactly the boundaries before each field.
            #expect(decodedCuts == example.fields.count, "\(name)")
            _ = try decoder.decode(bytes)
        }
    }

    /// The messages for the truncations a peer can send.
    @Test(arguments: [
        ("41", "header block ends before a string literal"),
        ("400a6375", "string literal of 10 octets runs past the end of the header block (2 left)"),
        ("4001", "string literal of 1 octets runs past the end of the header block (0 left)"),
        ("4003782d61", "header block ends before a string literal"),
        ("7f", "header block ends inside an integer"),
        ("0f8e", "header block ends inside an integer"),
        ("418cf1e3c2e5f23a6ba0ab90f4", "string literal of 12 octets runs past the end of the header block (11 left)"),
    ])
    func truncationMessages(hex: String, message: String) {
        var decoder = HPACKDecoder()
        #expect(throws: HPACKError(message)) { try decoder.decode(hpackHex(hex)) }
    }

    /// Index 0 and indices beyond both tables are errors, for fields and for literal names.
    @Test(arguments: [
        ("80", "indexed header field with index 0"),
        ("be", "index 62 is beyond the static and dynamic tables (61 entries)"),
        ("ff49", "index 200 is beyond the static and dynamic tables (61 entries)"),
        ("7f0000", "index 63 is beyond the static and dynamic tables (61 entries)"),
        ("0f2f00", "index 62 is beyond the static and dynamic tables (61 entries)"),
        ("1f2f00", "index 62 is beyond the static and dynamic tables (61 entries)"),
        ("4001610162bf", "index 63 is beyond the static and dynamic tables (62 entries)"),
    ])
    func badIndicesThrow(hex: String, message: String) {
        var decoder = HPACKDecoder()
        #expect(throws: HPACKError(message)) { try decoder.decode(hpackHex(hex)) }
    }

    /// Literal without indexing (0000) and never indexed (0001), with a new or indexed name:
    /// neither touches the table; never indexed keeps its flag.
    @Test func literalsWithoutIndexing() throws {
        var decoder = HPACKDecoder()
        let block = try decoder.decode(
            hpackHex("0001610162" + "1001610162" + "1f08" + "08" + hpackHexString(Array("Bearer x".utf8)) + "0f1003616263"))
        #expect(block.fields == [hf("a", "b"), hf("a", "b", never: true), hf("authorization", "Bearer x", never: true), hf("content-type", "abc")])
        #expect(decoder.dynamicTableCount == 0)
    }

    /// Incremental indexing with an indexed name (static and dynamic) and a new name; newest first.
    @Test func incrementalIndexingAddsNewestFirst() throws {
        var decoder = HPACKDecoder()
        // :path new-name literal (grpc-core's habit), then :authority with static name 1.
        let path = "/google.firestore.v1.Firestore/Commit"
        let first = try decoder.decode(
            hpackHex(
                "8386" + "4005" + hpackHexString(Array(":path".utf8))
                    + format2(path.utf8.count) + hpackHexString(Array(path.utf8)) + "410e" + hpackHexString(Array("127.0.0.1:8080".utf8))))
        #expect(first.fields == [hf(":method", "POST"), hf(":scheme", "http"), hf(":path", path), hf(":authority", "127.0.0.1:8080")])
        #expect(decoder.dynamicTableFields == [hf(":authority", "127.0.0.1:8080"), hf(":path", path)])
        // The second request: both from the table (62 = newest), then a literal naming entry 63.
        let second = try decoder.decode(hpackHex("8386bfbe" + "7f0003" + hpackHexString(Array("/x/".utf8))))
        #expect(
            second.fields == [
                hf(":method", "POST"), hf(":scheme", "http"), hf(":path", path), hf(":authority", "127.0.0.1:8080"), hf(":path", "/x/"),
            ])
        #expect(decoder.dynamicTableFields.first == hf(":path", "/x/"))
        #expect(decoder.dynamicTableSize == (10 + 14 + 32) + (5 + path.utf8.count + 32) + (5 + 3 + 32))
    }

    /// Two hex digits of a small length octet (no H bit).
    func format2(_ n: Int) -> String { hpackHexString([UInt8(n)]) }

    /// Adding evicts the oldest entries until the new one fits; an entry larger than the table
    /// empties it and is not added (§4.4).
    @Test func evictionAndOversizedEntries() throws {
        var decoder = HPACKDecoder(maxTableSize: 100)
        // Three 34-octet entries ("a"…"c" with one-letter values): the third evicts the first.
        _ = try decoder.decode(hpackHex("4001610131" + "4001620132"))
        #expect(decoder.dynamicTableSize == 68)
        _ = try decoder.decode(hpackHex("4001630133"))
        #expect(decoder.dynamicTableFields == [hf("c", "3"), hf("b", "2")])
        #expect(decoder.dynamicTableSize == 68)
        // A 101-octet entry: larger than the table, which ends up empty; the field is still returned.
        let big = String(repeating: "v", count: 68)
        let block = try decoder.decode(hpackHex("4001" + hpackHexString(Array("x".utf8)) + "44" + hpackHexString(Array(big.utf8))))
        #expect(block.fields == [hf("x", big)])
        #expect(decoder.dynamicTableCount == 0 && decoder.dynamicTableSize == 0)
        // With the table empty, index 62 is an error.
        #expect(throws: HPACKError("index 62 is beyond the static and dynamic tables (61 entries)")) { try decoder.decode([0xbe]) }
    }

    /// Size updates: at the start of a block (one or two), ≤ our maximum, evicting; after a field,
    /// or above our maximum, they are errors.
    @Test func dynamicTableSizeUpdates() throws {
        var decoder = HPACKDecoder(maxTableSize: 4096)
        _ = try decoder.decode(hpackHex("4001610131" + "4001620132" + "4001630133"))
        #expect(decoder.dynamicTableCount == 3)
        // 0x3f 0x2b = 31 + 43 = 74: keeps the two newest (68 octets).
        let shrunk = try decoder.decode(hpackHex("3f2b" + "be"))
        #expect(shrunk.fields == [hf("c", "3")])
        #expect(decoder.dynamicTableMaxSize == 74)
        #expect(decoder.dynamicTableFields == [hf("c", "3"), hf("b", "2")])
        // Two updates in a row (smallest, then final), as §4.2 prescribes: 0 empties the table.
        let block = try decoder.decode(hpackHex("20" + "3fe11f" + "4001640134"))
        #expect(block.fields == [hf("d", "4")])
        #expect(decoder.dynamicTableFields == [hf("d", "4")])
        #expect(decoder.dynamicTableMaxSize == 4096)
        // A block holding only an update is valid and empty.
        #expect(try decoder.decode(hpackHex("3f21")).fields.isEmpty)
        #expect(decoder.dynamicTableMaxSize == 64)
        // With a 0 table, incremental indexing still returns the field but stores nothing.
        _ = try decoder.decode(hpackHex("20"))
        #expect(try decoder.decode(hpackHex("4001650135")).fields == [hf("e", "5")])
        #expect(decoder.dynamicTableCount == 0)

        #expect(throws: HPACKError("dynamic table size update after a header field")) {
            try decoder.decode(hpackHex("82" + "20"))
        }
        var small = HPACKDecoder(maxTableSize: 256)
        #expect(throws: HPACKError("dynamic table size update to 257 exceeds the limit 256")) {
            try small.decode(hpackHex("3fe201"))
        }
        #expect(try small.decode(hpackHex("3fe101")).fields.isEmpty)
    }

    /// Over `maxHeaderListSize` the block is still decoded (the table follows the peer) but the
    /// fields are dropped and `listTooLarge` set; the next block is judged on its own.
    @Test func listTooLargeKeepsTheTableInSync() throws {
        var decoder = HPACKDecoder(maxHeaderListSize: 150)
        // C.3.1: 42 + 43 + 38 + 57 = 180 octets.
        let block = try decoder.decode(hpackHex(RFC7541Examples.c3[0].hex))
        #expect(block == HPACKDecodedBlock(fields: [], listTooLarge: true))
        #expect(decoder.dynamicTableFields == [hf(":authority", "www.example.com")])
        let next = try decoder.decode([0xbe])
        #expect(next == HPACKDecodedBlock(fields: [hf(":authority", "www.example.com")], listTooLarge: false))
        // Exactly at the limit is allowed: 150 = 57 + 93 ("x" + 60 octets + 32).
        let exact = try decoder.decode(hpackHex("be" + "0001783c" + String(repeating: "76", count: 60)))
        #expect(exact.fields.count == 2 && !exact.listTooLarge)
        // A bad Huffman string after the limit is still a compression error.
        #expect(throws: HPACKError("Huffman string has padding that is not all ones")) {
            try decoder.decode(hpackHex("bebebe" + "000178" + "8118"))
        }
    }

    /// An "HPACK bomb": one 4,033-octet entry referenced 200,000 times (800 MB of headers from a
    /// 200 KB block) stops collecting at the limit; the decode is one pass over the block.
    @Test func hpackBombIsBoundedByTheListLimit() throws {
        var decoder = HPACKDecoder()
        let value = String(repeating: "a", count: 4000)
        var bytes = hpackHex("4001" + hpackHexString(Array("x".utf8)) + "7fa11e") + Array(value.utf8)
        bytes += [UInt8](repeating: 0xbe, count: 200_000)
        let block = try decoder.decode(bytes)
        #expect(block.listTooLarge && block.fields.isEmpty)
        #expect(decoder.dynamicTableSize == 4033)
        // The same entry a few times fits in the default 64 KiB.
        let few = try decoder.decode([UInt8](repeating: 0xbe, count: 16))
        #expect(few.fields.count == 16 && !few.listTooLarge)
    }

    /// Invalid UTF-8 becomes U+FFFD in the String, but the table counts the octets the peer sent,
    /// so its size (and evictions) match the peer's encoder.
    @Test func invalidUTF8IsReplacedButCountedAsSent() throws {
        var decoder = HPACKDecoder()
        let block = try decoder.decode(hpackHex("4001610280ff"))
        #expect(block.fields == [hf("a", "\u{FFFD}\u{FFFD}")])
        #expect(decoder.dynamicTableSize == 1 + 2 + 32)
        // The same octets Huffman-coded (20 + 26 bits, 6 octets).
        var coded: [UInt8] = []
        HPACKHuffman.encode([0x80, 0xFF], into: &coded)
        #expect(coded.count == 6)
        let huffman = try decoder.decode(hpackHex("40016286") + coded)
        #expect(huffman.fields == [hf("b", "\u{FFFD}\u{FFFD}")])
        #expect(decoder.dynamicTableSize == 2 * (1 + 2 + 32))
    }

    /// An empty block is valid and has no fields.
    @Test func emptyBlock() throws {
        var decoder = HPACKDecoder()
        #expect(try decoder.decode([]) == HPACKDecodedBlock(fields: [], listTooLarge: false))
    }
}
