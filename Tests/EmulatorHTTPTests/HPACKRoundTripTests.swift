import Testing

@testable import EmulatorHTTP

/// Property: random header lists encoded by one HPACKEncoder decode back to the same lists on
/// one HPACKDecoder, block after block, with the two dynamic tables equal after every block,
/// across peer table size changes.
@Suite struct HPACKRoundTripTests {
    /// Names: static-table names, gRPC names, unindexed names and made-up ones.
    static let names = [
        ":status", ":path", ":authority", "content-type", "grpc-status", "grpc-message", "grpc-encoding",
        "grpc-accept-encoding", "authorization", "date", "content-length", "x-goog-request-params",
        "x-custom-bin", "user-agent", "te", "x-a", "x-b", "cookie", "accept-encoding",
    ]
    /// Values that recur.
    static let values = ["", "0", "200", "application/grpc", "identity", "gzip, deflate", "trailers", "Bearer owner", "/"]

    /// A random value: recurring, short random text (any Unicode scalar), or long.
    static func value(_ rng: inout SplitMix) -> String {
        switch rng.below(10) {
        case 0..<5: return values[rng.below(values.count)]
        case 5..<8:
            let scalars = (0..<rng.below(40)).map { _ -> Character in
                let pick = rng.below(100)
                let v: UInt32 = pick < 80 ? 0x20 + UInt32(rng.below(95)) : pick < 90 ? UInt32(rng.below(256)) : 0x100 + UInt32(rng.below(0x2000))
                return Character(Unicode.Scalar(v) ?? "?")
            }
            return String(scalars)
        case 8: return String(repeating: "v", count: rng.below(5000))
        default: return "value-\(rng.below(30))"
        }
    }

    /// A random name: a known one or a made-up one.
    static func name(_ rng: inout SplitMix) -> String {
        rng.below(4) == 0 ? "x-n\(rng.below(50))" : names[rng.below(names.count)]
    }

    @Test(arguments: [1, 2, 3, 4])
    func randomListsRoundTrip(seed: UInt64) throws {
        var rng = SplitMix(seed: seed)
        var encoder = HPACKEncoder()
        var decoder = HPACKDecoder(maxTableSize: 4096, maxHeaderListSize: 1 << 30)
        for n in 0..<800 {
            if rng.below(40) == 0 {
                for _ in 0..<(1 + rng.below(3)) { encoder.setPeerMaxTableSize([0, 1, 33, 64, 256, 1000, 4096, 1 << 20][rng.below(8)]) }
            }
            let fields = (0..<rng.below(20)).map { _ in
                HPACKHeaderField(name: Self.name(&rng), value: Self.value(&rng), neverIndexed: rng.below(10) == 0)
            }
            let block = encoder.encode(fields)
            let decoded = try decoder.decode(block)
            #expect(decoded.fields == fields, "seed \(seed) block \(n)")
            #expect(decoder.dynamicTableFields == encoder.dynamicTableFields, "seed \(seed) block \(n)")
            #expect(decoder.dynamicTableSize == encoder.dynamicTableSize && decoder.dynamicTableSize <= decoder.dynamicTableMaxSize)
            if decoded.fields != fields { return }
        }
    }

    /// A repeated request costs a few octets once the table holds it.
    @Test func repeatedListsShrinkToIndices() throws {
        var encoder = HPACKEncoder()
        var decoder = HPACKDecoder()
        let fields = [
            hf(":status", "200"), hf("content-type", "application/grpc"), hf("x-goog-request-params", "database=x"),
            hf("grpc-message", "changing"),
        ]
        let first = encoder.encode(fields)
        let second = encoder.encode(fields)
        #expect(try decoder.decode(first).fields == fields)
        #expect(try decoder.decode(second).fields == fields)
        // Three indices, then the unindexed grpc-message literal: its pattern octet, the name
        // (length octet + 9 Huffman octets) and the value (length octet + 6).
        #expect(second.count == 3 + 1 + 10 + 7)
    }
}
