import Testing

@testable import EmulatorHTTP

/// HPACKEncoder: the RFC 7541 Appendix C sequences byte for byte (with the RFC encoder's
/// choices), and the default choices for a gRPC server's responses.
@Suite struct HPACKEncoderTests {
    /// C.3–C.6 with the RFC's choices (index every new field; Huffman never in C.3/C.5, always in
    /// C.4/C.6): the bytes and the table after each block.
    @Test(arguments: RFC7541Examples.sequences.map { ($0.name, $0.tableSize, $0.huffman, $0.blocks) })
    func rfcSequences(name: String, tableSize: Int, huffman: Bool, blocks: [RFC7541Examples.Block]) {
        var encoder = HPACKEncoder(tableSize: tableSize, huffman: huffman ? .always : .never, indexEverything: true)
        for (n, example) in blocks.enumerated() {
            #expect(hpackHexString(encoder.encode(example.fields)) == hpackHexString(hpackHex(example.hex)), "\(name).\(n + 1)")
            #expect(encoder.dynamicTableFields == example.table, "\(name).\(n + 1) table")
            #expect(encoder.dynamicTableSize == example.tableSize, "\(name).\(n + 1) table size")
        }
    }

    /// With the default Huffman choice (only when shorter) C.4 and C.6 come out the same, except
    /// "307" in C.6.2, whose code is as long as the text: it is sent raw, as in C.5.2.
    @Test func huffmanOnlyWhenShorterMatchesC4AndC6() {
        var requests = HPACKEncoder(tableSize: 4096, indexEverything: true)
        for example in RFC7541Examples.c4 {
            #expect(requests.encode(example.fields) == hpackHex(example.hex))
        }
        var responses = HPACKEncoder(tableSize: 256, indexEverything: true)
        #expect(responses.encode(RFC7541Examples.response1) == hpackHex(RFC7541Examples.c6[0].hex))
        #expect(responses.encode(RFC7541Examples.response2) == hpackHex(RFC7541Examples.c5[1].hex))
        #expect(responses.encode(RFC7541Examples.response3) == hpackHex(RFC7541Examples.c6[2].hex))
    }

    /// A gRPC response: the first headers are literals with incremental indexing (static names
    /// where there is one, Huffman values), the same headers again are four one-octet indices.
    /// A block made of table references is reused while the table is unchanged, and only then:
    /// after an insertion shifts the indices, or a size update, it is encoded afresh. Every block
    /// decodes to its fields.
    @Test func aRepeatedBlockIsReusedOnlyWhileTheTableIsUnchanged() throws {
        func fields(_ pairs: [(String, String)]) -> [HPACKHeaderField] { pairs.map { HPACKHeaderField(name: $0.0, value: $0.1) } }
        let headers = fields([(":status", "200"), ("content-type", "application/grpc")])
        let trailers = fields([("grpc-status", "0")])
        let other = fields([("x-request", "1")])
        let message = fields([("grpc-status", "5"), ("grpc-message", "not found")])
        var encoder = HPACKEncoder()
        var decoder = HPACKDecoder(maxTableSize: 4096, maxHeaderListSize: 1 << 20)
        var blocks: [[UInt8]] = []
        for f in [headers, trailers, headers, trailers, headers, other, headers, message, message, message, trailers] {
            let block = encoder.encode(f)
            #expect(try decoder.decode(block).fields == f)
            blocks.append(block)
        }
        #expect(blocks[2] == blocks[4])  // reused: nothing was inserted in between
        #expect(blocks[3] == [0xBE])  // grpc-status: 0, the newest entry (62)
        #expect(blocks[6] != blocks[4])  // x-request's entry moved content-type's index
        #expect(blocks[7] != blocks[8])  // the first inserted grpc-status: 5
        #expect(blocks[8] == blocks[9])  // with a literal without indexing (grpc-message), reused too
        encoder.setPeerMaxTableSize(0)
        let afterResize = encoder.encode(headers)
        #expect(afterResize.first == 0x20)  // the size update first, not a reused block
        #expect(try decoder.decode(afterResize).fields == headers)
        #expect(try decoder.decode(encoder.encode(headers)).fields == headers)
    }

    @Test func grpcResponseHeadersAreIndexedAfterTheFirst() {
        var encoder = HPACKEncoder()
        let headers = [
            hf(":status", "200"), hf("content-type", "application/grpc"), hf("grpc-encoding", "identity"),
            hf("grpc-accept-encoding", "identity,deflate,gzip"),
        ]
        #expect(
            hpackHexString(encoder.encode(headers)) == "88"
                + "5f8b1d75d0620d263d4c4d6564"
                + "408a9acac8b16a21e435537f" + "863485a9264faf"
                + "408e9acac8b0c842d6958b510f21aa9b" + "903485a9264fafa90b2d03497ea6f66aff")
        #expect(hpackHexString(encoder.encode(headers)) == "88c0bfbe")
    }

    /// Trailers: `grpc-status` is indexed (a short value stays raw: its code is no shorter),
    /// `grpc-message` never is, so each new message costs no table space.
    @Test func grpcTrailers() {
        var encoder = HPACKEncoder()
        #expect(
            hpackHexString(encoder.encode([hf("grpc-status", "0"), hf("grpc-message", "")]))
                == "40889acac8b21234da8f0130" + "00899acac8b5254207317f00")
        #expect(
            hpackHexString(encoder.encode([hf("grpc-status", "0"), hf("grpc-message", "not found")]))
                == "be" + "00899acac8b5254207317f87a8e95253db549f")
        #expect(encoder.dynamicTableFields == [hf("grpc-status", "0")])
        // Another status reuses the indexed name (62) and is indexed itself.
        #expect(hpackHexString(encoder.encode([hf("grpc-status", "5")])) == "7e0135")
        #expect(encoder.dynamicTableFields == [hf("grpc-status", "5"), hf("grpc-status", "0")])
    }

    /// Values that change every time are literals without indexing, with indexed names.
    @Test(arguments: ["content-length", "date", "grpc-timeout", "set-cookie", "authorization"])
    func changingValuesAreNotIndexed(name: String) throws {
        var encoder = HPACKEncoder()
        let block = encoder.encode([hf(name, "12345")])
        #expect(block[0] & 0xF0 == 0x00, "\(name): literal without indexing")
        #expect(encoder.dynamicTableCount == 0)
        var decoder = HPACKDecoder()
        #expect(try decoder.decode(block).fields == [hf(name, "12345")])
    }

    /// `neverIndexed` fields are never-indexed literals (0001), even when the table holds the
    /// same field, and decode with the flag set.
    @Test func neverIndexedFields() throws {
        var encoder = HPACKEncoder()
        var decoder = HPACKDecoder()
        _ = try decoder.decode(encoder.encode([hf("x-secret", "owner")]))
        let block = encoder.encode([
            hf("authorization", "owner", never: true), hf("x-goog-request-params", "owner", never: true),
            hf("x-secret", "owner", never: true),
        ])
        #expect(
            hpackHexString(block) == "1f08" + "843f8a8b67"
                + "108ff2b4c73ccb585ed695095ab1d83a51" + "843f8a8b67"
                + "1f2f" + "843f8a8b67")
        let fields = try decoder.decode(block).fields
        #expect(fields.allSatisfy(\.neverIndexed) && fields.count == 3)
    }

    /// A field taking more than three quarters of the table is not indexed (it would evict
    /// everything useful); the table never exceeds its maximum.
    @Test func largeFieldsAreNotIndexed() {
        var encoder = HPACKEncoder()
        _ = encoder.encode([hf("x-big", String(repeating: "a", count: 3100))])
        #expect(encoder.dynamicTableCount == 0)
        _ = encoder.encode([hf("x-big", String(repeating: "a", count: 3000))])
        #expect(encoder.dynamicTableCount == 1)
        for n in 0..<500 { _ = encoder.encode([hf("x-\(n)", String(repeating: "v", count: n))]) }
        #expect(encoder.dynamicTableSize <= 4096)
        // The lookup maps are pruned to the live entries now and then.
        #expect(encoder.lookupKeyCount <= 2 * encoder.dynamicTableCount + 65)
    }

    /// After SETTINGS_HEADER_TABLE_SIZE the next block starts with a size update (capped at
    /// 4096, the most we use); a decrease then increase sends both (§4.2); later blocks none.
    @Test func peerTableSizeChanges() throws {
        var encoder = HPACKEncoder()
        var decoder = HPACKDecoder()
        _ = try decoder.decode(encoder.encode([hf("x-a", "1"), hf("x-b", "2")]))

        encoder.setPeerMaxTableSize(65536)
        var block = encoder.encode([hf(":status", "200")])
        #expect(hpackHexString(block) == "3fe11f88")
        _ = try decoder.decode(block)

        encoder.setPeerMaxTableSize(0)
        block = encoder.encode([hf("x-c", "3")])
        #expect(hpackHexString(block).hasPrefix("20"))
        #expect(encoder.dynamicTableCount == 0)
        _ = try decoder.decode(block)
        #expect(decoder.dynamicTableCount == 0)

        encoder.setPeerMaxTableSize(100)
        encoder.setPeerMaxTableSize(50)
        encoder.setPeerMaxTableSize(2000)
        block = encoder.encode([hf("x-d", "4")])
        #expect(hpackHexString(block).hasPrefix("3f13" + "3fb10f"))
        #expect(try decoder.decode(block).fields == [hf("x-d", "4")])
        #expect(decoder.dynamicTableMaxSize == 2000 && encoder.dynamicTableMaxSize == 2000)

        block = encoder.encode([hf("x-d", "4")])
        #expect(hpackHexString(block) == "be")
    }

    /// Shrinking the peer's table evicts at once, and the encoder stops referring to evicted entries.
    @Test func shrinkingEvictsAndIndicesFollow() throws {
        var encoder = HPACKEncoder()
        var decoder = HPACKDecoder()
        let fields = [hf("x-a", "1"), hf("x-b", "2"), hf("x-c", "3")]
        _ = try decoder.decode(encoder.encode(fields))
        encoder.setPeerMaxTableSize(72)
        let block = encoder.encode(fields)
        // 72 octets hold x-c (36) and x-b (36). x-a is a new literal and its insertion evicts
        // x-b, whose insertion then evicts x-c: all three are literals again.
        #expect(hpackHexString(block) == "3f29" + "4003782d610131" + "4003782d620132" + "4003782d630133")
        #expect(try decoder.decode(block).fields == fields)
        #expect(decoder.dynamicTableFields == encoder.dynamicTableFields)
        #expect(encoder.encode(fields.suffix(2)) == [0xbf, 0xbe])
    }
}
