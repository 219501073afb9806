import EmulatorCore
import Testing

@testable import EmulatorProtobuf

/// Protobuf's merge rule (a singular message field that occurs more than once is parsed as if its
/// occurrences were one message, their contents concatenated) and the bounds on decoding work:
/// linear in the input however the occurrences nest, and at most `ProtoJSON.maxDepth` nested
/// messages. Expected JSON was checked against Python's protobuf (upb) parsing the same bytes.
struct ProtoMergeTests {
    let value = FirestoreSchemas.value
    let structuredQuery = FirestoreSchemas.message(named: "google.firestore.v1.StructuredQuery")!

    // MARK: wire builders

    static func varint(_ v: Int) -> [UInt8] {
        var n = UInt64(v), out: [UInt8] = []
        while n >= 0x80 {
            out.append(UInt8(n & 0x7F) | 0x80)
            n >>= 7
        }
        return out + [UInt8(n)]
    }
    /// A length-delimited field.
    static func ld(_ field: Int, _ payload: [UInt8]) -> [UInt8] { varint(field << 3 | 2) + varint(payload.count) + payload }
    /// A string field.
    static func str(_ field: Int, _ s: String) -> [UInt8] { ld(field, Array(s.utf8)) }
    /// A map<string, Value> entry.
    static func entry(_ key: String, _ value: [UInt8]) -> [UInt8] { ld(1, str(1, key) + ld(2, value)) }

    /// The reported shape: Value{map_value{fields{"a": Value{...}}}, map_value{}} at every level,
    /// ending in integer_value 1. Each level is three nested messages (MapValue, the map entry,
    /// Value) and adds 11 to 14 bytes. Decoded by re-decoding merged occurrences, the work
    /// doubled per level.
    static func mapValueRepeatedAtEveryLevel(_ levels: Int) -> [UInt8] {
        var v: [UInt8] = [0x10, 0x01]
        for _ in 0..<levels { v = ld(6, entry("a", v)) + ld(6, []) }
        return v
    }

    /// The JSON `mapValueRepeatedAtEveryLevel(levels)` decodes to.
    static func nestedMapJSON(_ levels: Int) -> JSON {
        var json: JSON = ["integerValue": "1"]
        for _ in 0..<levels { json = ["mapValue": ["fields": ["a": json]]] }
        return json
    }

    /// Decodes and returns the JSON and the steps it took.
    func decodeCounting(_ bytes: [UInt8], _ schema: MessageSchema) throws -> (JSON, Int) {
        var steps = 0
        let json = try ProtoJSON.decode(bytes, as: schema, steps: &steps)
        return (json, steps)
    }

    // MARK: linear work

    @Test func repeatedMessageFieldsAtEveryLevelTakeLinearWork() throws {
        for levels in [4, 8, 12] {
            let bytes = Self.mapValueRepeatedAtEveryLevel(levels)
            let (json, steps) = try decodeCounting(bytes, value)
            #expect(json == Self.nestedMapJSON(levels))
            #expect(steps <= ProtoJSON.maxSteps(forBytes: bytes.count), "\(levels) levels, \(bytes.count) bytes: \(steps) steps")
        }
    }

    /// The report's 357-byte size (6.75 s when the work doubled per level) and the deepest the
    /// limit allows (33 levels, 99 nested messages, 2^33 times the work before).
    @Test func theReportedInputAndTheDeepestOneDecodeInLinearWork() throws {
        for levels in [27, 33] {
            let bytes = Self.mapValueRepeatedAtEveryLevel(levels)
            let (json, steps) = try decodeCounting(bytes, value)
            #expect(json == Self.nestedMapJSON(levels))
            #expect(steps <= ProtoJSON.maxSteps(forBytes: bytes.count), "\(levels) levels, \(bytes.count) bytes: \(steps) steps")
        }
        // One level more is refused for depth, and the refusal costs as little.
        let bytes = Self.mapValueRepeatedAtEveryLevel(34)
        var steps = 0
        #expect(throws: ProtobufError.self) { try ProtoJSON.decode(bytes, as: value, steps: &steps) }
        #expect(steps <= ProtoJSON.maxSteps(forBytes: bytes.count))
    }

    /// Every occurrence repeated, at every level and many times over: still one pass.
    @Test func manyOccurrencesAtManyLevelsTakeLinearWork() throws {
        // Per level: 20 small occurrences (each its own key), the one carrying the next level,
        // 20 more, and a string_value member in front that the first map_value clears.
        let small = (0..<20).map { Self.ld(6, Self.entry("s\($0)", [0x10, 0x02])) }.joined()
        var v: [UInt8] = [0x10, 0x01]
        for _ in 0..<33 { v = Self.str(17, "x") + Array(small) + Self.ld(6, Self.entry("a", v)) + Array(small) }
        let (json, steps) = try decodeCounting(v, value)
        #expect(steps <= ProtoJSON.maxSteps(forBytes: v.count), "\(v.count) bytes: \(steps) steps")
        var level = json, levels = 0
        while let next = level["mapValue"]?["fields"]?["a"] {
            #expect(level["mapValue"]?["fields"]?.objectValue?.count == 21)
            level = next
            levels += 1
        }
        #expect(levels == 33)
        #expect(level == ["integerValue": "1"])
    }

    /// A caller that went away cancels the task: decoding stops within a few thousand steps.
    @Test func decodingStopsWhenItsTaskIsCancelled() async throws {
        let big = Self.ld(9, Array([[UInt8]](repeating: Self.ld(1, []), count: 100_000).joined()))
        let task = Task { () -> String? in
            while !Task.isCancelled { await Task.yield() }
            var steps = 0
            do {
                _ = try ProtoJSON.decode(big, as: FirestoreSchemas.value, steps: &steps)
                return nil
            } catch {
                #expect(steps <= ProtoDecoder.cancellationInterval + 2)
                return (error as? ProtobufError)?.reason
            }
        }
        task.cancel()
        #expect(await task.value == "decoding stopped: the call was cancelled")
        #expect(try ProtoJSON.decode(big, as: value)["arrayValue"]?["values"]?.arrayValue?.count == 100_000, "uncancelled, the same input decodes")
    }

    // MARK: depth

    /// Builds a Value with `nested` messages below it: Value{array_value{values: Value{...}}},
    /// an ArrayValue last when `nested` is odd.
    static func nestedArrays(nested: Int) -> [UInt8] {
        var v: [UInt8] = nested % 2 == 1 ? ld(9, []) : [0x10, 0x01]
        for _ in 0..<(nested / 2) { v = ld(9, ld(1, v)) }
        return v
    }

    /// As protobuf's parsers (upb, C++, Java): 100 nested messages below the outermost are read,
    /// 101 are refused, map entries counted.
    @Test func oneHundredNestedMessagesAreReadAndOneHundredOneRefused() throws {
        #expect(throws: Never.self) { try ProtoJSON.decode(Self.nestedArrays(nested: 99), as: value) }
        #expect(throws: Never.self) { try ProtoJSON.decode(Self.nestedArrays(nested: 100), as: value) }
        for nested in [101, 102] {
            do {
                _ = try ProtoJSON.decode(Self.nestedArrays(nested: nested), as: value)
                Issue.record("\(nested) nested messages decoded")
            } catch {
                #expect(error.reason == "messages nested deeper than 100 levels")
            }
        }
        // Map entries are messages: 33 map levels are 99 nested messages, 34 are 102.
        var map: [UInt8] = [0x10, 0x01]
        for _ in 0..<33 { map = Self.ld(6, Self.entry("a", map)) }
        #expect(throws: Never.self) { try ProtoJSON.decode(map, as: value) }
        map = Self.ld(6, Self.entry("a", map))
        #expect(throws: ProtobufError.self) { try ProtoJSON.decode(map, as: value) }
    }

    /// The encoder writes what the decoder reads: 100 nested messages, not 101.
    @Test func theEncoderHasTheSameLimit() throws {
        var json: JSON = ["integerValue": "1"]
        for _ in 0..<50 { json = ["arrayValue": ["values": [json]]] }
        let bytes = try ProtoJSON.encode(json, as: value)
        #expect(try ProtoJSON.decode(bytes, as: value) == json)
        json = ["arrayValue": ["values": [json]]]
        #expect(throws: ProtobufError.self) { try ProtoJSON.encode(json, as: value) }
    }

    // MARK: merge semantics (each case as Python's upb parses the same bytes)

    func decode(_ hex: String, _ schema: MessageSchema) throws -> JSON {
        let bytes = Fixtures.bytes(hex: hex)
        let (json, steps) = try decodeCounting(bytes, schema)
        #expect(steps <= ProtoJSON.maxSteps(forBytes: bytes.count))
        return json
    }

    @Test func aOneofMemberSetInBetweenStartsTheMessageOver() throws {
        // map_value{a: 1}, string_value "x", map_value{b: 2}
        #expect(
            try decode("32 09 0a 07 0a 01 61 12 02 10 01 8a 01 01 78 32 09 0a 07 0a 01 62 12 02 10 02", value)
                == ["mapValue": ["fields": ["b": ["integerValue": "2"]]]])
        // map_value{a}, array_value{[1]}, map_value{b}, map_value{c}: the last two merge
        #expect(
            try decode("32 09 0a 07 0a 01 61 12 02 10 01 4a 04 0a 02 10 01 32 09 0a 07 0a 01 62 12 02 10 02 32 09 0a 07 0a 01 63 12 02 10 03", value)
                == ["mapValue": ["fields": ["b": ["integerValue": "2"], "c": ["integerValue": "3"]]]])
    }

    @Test func mapsMergeByKeyAndAKeySeenAgainIsReplacedNotMerged() throws {
        // map_value{a: 1, b: 1}, map_value{b: 2, c: 3}
        #expect(
            try decode(
                "32 12 0a 07 0a 01 61 12 02 10 01 0a 07 0a 01 62 12 02 10 01 32 12 0a 07 0a 01 62 12 02 10 02 0a 07 0a 01 63 12 02 10 03", value)
                == ["mapValue": ["fields": ["a": ["integerValue": "1"], "b": ["integerValue": "2"], "c": ["integerValue": "3"]]]])
    }

    @Test func aMapEntrysValueSeenTwiceMerges() throws {
        // map_value{fields{key "a", value{map_value{x: 1}}, value{map_value{y: 2}}}}
        #expect(
            try decode("32 1f 0a 1d 0a 01 61 12 0b 32 09 0a 07 0a 01 78 12 02 10 01 12 0b 32 09 0a 07 0a 01 79 12 02 10 02", value)
                == ["mapValue": ["fields": ["a": ["mapValue": ["fields": ["x": ["integerValue": "1"], "y": ["integerValue": "2"]]]]]]])
    }

    @Test func repeatedFieldsConcatenate() throws {
        // array_value{[1, 2]}, array_value{[3]}
        #expect(
            try decode("4a 08 0a 02 10 01 0a 02 10 02 4a 04 0a 02 10 03", value)
                == ["arrayValue": ["values": [["integerValue": "1"], ["integerValue": "2"], ["integerValue": "3"]]]])
        // StructuredQuery start_at{values [1], before true}, start_at{values [2], before false}
        #expect(
            try decode("3a 06 0a 02 10 01 10 01 3a 06 0a 02 10 02 10 00", structuredQuery)
                == ["startAt": ["values": [["integerValue": "1"], ["integerValue": "2"]]]])
    }

    @Test func wellKnownTypesMergeFieldByField() throws {
        // Document create_time{seconds 5}, name "n", create_time{nanos 7}, create_time{seconds 6}
        #expect(
            try decode("1a 02 08 05 0a 01 6e 1a 02 10 07 1a 02 08 06", FirestoreSchemas.document)
                == ["createTime": "1970-01-01T00:00:06.000000007Z", "name": "n"])
    }

    @Test func mergingReachesEveryLevel() throws {
        // where{composite{op AND, filters[a == 1]}}, limit 3, where{composite{filters[b == 2]}}, limit 4
        #expect(
            try decode(
                "1a 13 0a 11 08 01 12 0d 12 0b 0a 03 12 01 61 10 05 1a 02 10 01 2a 02 08 03 1a 11 0a 0f 12 0d 12 0b 0a 03 12 01 62 10 05 1a 02 10 02 2a 02 08 04",
                structuredQuery)
                == [
                    "limit": 4,
                    "where": [
                        "compositeFilter": [
                            "op": "AND",
                            "filters": [
                                ["fieldFilter": ["field": ["fieldPath": "a"], "op": "EQUAL", "value": ["integerValue": "1"]]],
                                ["fieldFilter": ["field": ["fieldPath": "b"], "op": "EQUAL", "value": ["integerValue": "2"]]],
                            ],
                        ]
                    ],
                ])
        // where{field_filter{a == map{x: 1}}}, where{field_filter{field b, value map{y: 2}}}: the
        // field path is replaced, the two values' maps merge, op stays.
        #expect(
            try decode(
                "1a 16 12 14 0a 03 12 01 61 10 05 1a 0b 32 09 0a 07 0a 01 78 12 02 10 01 1a 14 12 12 0a 03 12 01 62 1a 0b 32 09 0a 07 0a 01 79 12 02 10 02",
                structuredQuery)
                == [
                    "where": [
                        "fieldFilter": [
                            "field": ["fieldPath": "b"], "op": "EQUAL",
                            "value": ["mapValue": ["fields": ["x": ["integerValue": "1"], "y": ["integerValue": "2"]]]],
                        ]
                    ]
                ])
    }

    /// A route through long map keys stays short: each key is shown up to 100 characters (the
    /// error travels back in a gRPC trailer, which clients limit to a few KiB).
    @Test func longMapKeysAreShortenedInErrorRoutes() {
        let key = String(repeating: "k", count: 100_000)
        var v: [UInt8] = [0x10, 0x80]  // truncated integer_value
        for _ in 0..<10 { v = Self.ld(6, Self.entry(key, v)) }
        do {
            _ = try ProtoJSON.decode(v, as: value)
            Issue.record("decoded")
        } catch {
            #expect(error.description.utf8.count < 2_000)
            #expect(
                error.description.hasPrefix(
                    "truncated varint in google.firestore.v1.Value.integer_value (at map_value.fields[\"\(String(repeating: "k", count: 100))…\"].map_value"
                ))
        }
    }

    /// Errors inside merged occurrences name the field and path as elsewhere.
    @Test func errorsInMergedOccurrencesNameTheirPlace() {
        // map_value{a: 1}, map_value{b: <truncated varint>}
        let bytes = Fixtures.bytes(hex: "32 09 0a 07 0a 01 61 12 02 10 01 32 09 0a 07 0a 01 62 12 02 10 80")
        do {
            _ = try ProtoJSON.decode(bytes, as: value)
            Issue.record("decoded")
        } catch {
            #expect(error.description == "truncated varint in google.firestore.v1.Value.integer_value (at map_value.fields[\"b\"].integer_value)")
        }
    }
}
