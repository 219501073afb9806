import Testing

@testable import EmulatorHTTP

/// Header blocks from an independent encoder (the PyPI `hpack` package, see
/// Fixtures/hpack_interop_vectors.py): grpc-core-like requests (raw strings, a `-bin` value,
/// never-indexed `authorization`, a table size change), nghttp2-like requests (Huffman strings,
/// a table shrunk to 256) and gRPC responses (a table size of 0), three consecutive blocks each.
@Suite struct HPACKInteropTests {
    /// Each scenario's blocks decode, in order on one decoder, to the lists that were encoded.
    @Test(arguments: HPACKInteropVectors.all.map { ($0.name, $0.blocks) })
    func independentEncoderBlocksDecode(name: String, blocks: [HPACKInteropVectors.Block]) throws {
        var decoder = HPACKDecoder()
        for (n, block) in blocks.enumerated() {
            let decoded = try decoder.decode(hpackHex(block.hex))
            #expect(decoded == HPACKDecodedBlock(fields: block.fields, listTooLarge: false), "\(name) block \(n + 1)")
        }
    }

    /// The later blocks of each scenario lean on the dynamic table and the table size updates.
    @Test func vectorsExerciseTheDynamicTable() {
        for (name, blocks) in HPACKInteropVectors.all {
            let second = hpackHex(blocks[1].hex)
            #expect(second.contains { $0 >= 0xbe }, "\(name): block 2 refers to the dynamic table")
            #expect(hpackHex(blocks[2].hex)[0] & 0xE0 == 0x20, "\(name): block 3 starts with a size update")
        }
    }

    /// The same lists through our encoder and decoder: the same fields, in fewer or equal octets
    /// than the independent encoder's (which indexes everything and always Huffman-codes).
    @Test(arguments: HPACKInteropVectors.all.map { ($0.name, $0.blocks) })
    func ourEncodingRoundTrips(name: String, blocks: [HPACKInteropVectors.Block]) throws {
        var encoder = HPACKEncoder()
        var decoder = HPACKDecoder()
        for block in blocks {
            let ours = encoder.encode(block.fields)
            #expect(try decoder.decode(ours).fields == block.fields, "\(name)")
        }
    }
}
