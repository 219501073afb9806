import EmulatorCore
import Testing

@testable import EmulatorProtobuf

/// The proto3 JSON mapping rules the gRPC layer relies on, each with the bytes it must give.
struct ProtoJSONTests {
    let value = FirestoreSchemas.value
    let document = FirestoreSchemas.document

    func encode(_ json: JSON, _ schema: MessageSchema) throws -> [UInt8] { try ProtoJSON.encode(json, as: schema) }
    func decode(_ hex: String, _ schema: MessageSchema) throws -> JSON { try ProtoJSON.decode(Fixtures.bytes(hex: hex), as: schema) }
    func encodeError(_ json: JSON, _ schema: MessageSchema) -> String? {
        do {
            _ = try ProtoJSON.encode(json, as: schema)
            return nil
        } catch { return error.description }
    }
    func decodeError(_ hex: String, _ schema: MessageSchema) -> String? {
        do {
            _ = try ProtoJSON.decode(Fixtures.bytes(hex: hex), as: schema)
            return nil
        } catch { return error.description }
    }

    // MARK: presence

    @Test func oneofMembersAreWrittenEvenWhenDefault() throws {
        #expect(try encode(["booleanValue": false], value) == [0x08, 0x00])
        #expect(try encode(["nullValue": nil], value) == [0x58, 0x00])
        #expect(try encode(["integerValue": "0"], value) == [0x10, 0x00])
        #expect(try encode(["stringValue": ""], value) == [0x8A, 0x01, 0x00])
        #expect(try encode(["exists": false], FirestoreSchemas.message(named: "google.firestore.v1.Precondition")!) == [0x08, 0x00])
        #expect(try encode(["done": true], FirestoreSchemas.runQueryResponse) == [0x30, 0x01])
        #expect(try encode(["removeTarget": 0], FirestoreSchemas.listenRequest) == [0x18, 0x00])
    }

    @Test func presentOneofMembersDecodeEvenWhenDefault() throws {
        #expect(try decode("10 00", value) == ["integerValue": "0"])
        #expect(try decode("08 00", value) == ["booleanValue": false])
        #expect(try decode("58 00", value) == ["nullValue": nil])
        #expect(try decode("8a 01 00", value) == ["stringValue": ""])
        #expect(try decode("92 01 00", value) == ["bytesValue": ""])
    }

    @Test func messageFieldsPresentInTheJSONAreWrittenEvenWhenEmpty() throws {
        #expect(try encode(["targetChange": [:]], FirestoreSchemas.listenResponse) == [0x12, 0x00])
        #expect(try decode("12 00", FirestoreSchemas.listenResponse) == ["targetChange": [:]])
        #expect(try encode(["mapValue": [:]], value) == [0x32, 0x00])
        #expect(try encode(["arrayValue": [:]], value) == [0x4A, 0x00])
    }

    @Test func wrappersCarryPresence() throws {
        let query = FirestoreSchemas.message(named: "google.firestore.v1.StructuredQuery")!
        #expect(try encode(["limit": 0], query) == [0x2A, 0x00])
        #expect(try decode("2a 00", query) == ["limit": 0])
        #expect(try encode(["limit": 5], query) == [0x2A, 0x02, 0x08, 0x05])
        #expect(try encode(["limit": nil], query) == [])
        #expect(try encode(["offset": 0], query) == [], "implicit presence: a default scalar is not written")
        #expect(try decode("30 00", query) == [:], "implicit presence: a default scalar reads as absent")
        let count = FirestoreSchemas.message(named: "google.firestore.v1.StructuredAggregationQuery.Aggregation.Count")!
        #expect(try encode(["upTo": "0"], count) == [0x0A, 0x00])
        #expect(try decode("0a 02 08 07", count) == ["upTo": "7"])
    }

    /// Every implicit-presence scalar type written with its default value reads as absent, not
    /// as `null` (found by the fuzzer: an explicit enum 0 decoded as `"op": null`).
    @Test func explicitDefaultsOfEveryScalarTypeReadAsAbsent() throws {
        let composite = FirestoreSchemas.message(named: "google.firestore.v1.StructuredQuery.CompositeFilter")!
        #expect(try decode("08 00", composite) == [:])
        let latLng = FirestoreSchemas.message(named: "google.type.LatLng")!
        #expect(try decode("09 00 00 00 00 00 00 00 00", latLng) == [:])
        let m = MessageSchema(
            "test.Defaults",
            [
                .field(1, "d", .double), .field(2, "f", .float), .field(3, "i32", .int32), .field(4, "i64", .int64),
                .field(5, "u32", .uint32), .field(6, "u64", .uint64), .field(7, "s32", .sint32), .field(8, "s64", .sint64),
                .field(9, "f32", .fixed32), .field(10, "f64", .fixed64), .field(11, "sf32", .sfixed32), .field(12, "sf64", .sfixed64),
                .field(13, "b", .bool), .field(14, "s", .string), .field(15, "by", .bytes),
            ])
        _ = try SchemaRegistry(messages: [m], enums: [])
        let zeros =
            "09 0000000000000000 15 00000000 18 00 20 00 28 00 30 00 38 00 40 00 4d 00000000 51 0000000000000000 5d 00000000 61 0000000000000000 68 00 72 00 7a 00"
        #expect(try ProtoJSON.decode(Fixtures.bytes(hex: zeros), as: m) == [:])
    }

    @Test func nullMeansAbsentExceptWhereItIsAValue() throws {
        #expect(try encode(["name": nil, "fields": nil, "createTime": nil], document) == [])
        #expect(try encode(["fields": ["a": ["nullValue": nil]]], document) == [0x12, 0x07, 0x0A, 0x01, 0x61, 0x12, 0x02, 0x58, 0x00])
        let status = FirestoreSchemas.status
        #expect(try encode(["details": nil, "code": nil], status) == [])
        #expect(encodeError(["writes": [nil]], FirestoreSchemas.commitRequest)?.hasPrefix("null is not allowed in a repeated field") == true)
        #expect(encodeError(["fields": ["a": nil]], document)?.hasPrefix("null is not allowed as a map value") == true)
        // Null oneof members leave the oneof unset, so they do not conflict with a real member.
        #expect(try encode(["booleanValue": nil, "integerValue": "1"], value) == [0x10, 0x01])
    }

    // MARK: numbers

    @Test func sixtyFourBitIntegersAreDecimalStringsAndAcceptNumbers() throws {
        #expect(try decode("10 01", value) == ["integerValue": "1"])
        #expect(try encode(["integerValue": "-1"], value) == [0x10] + Array(repeating: 0xFF, count: 9) + [0x01])
        #expect(try encode(["integerValue": -1], value) == encode(["integerValue": "-1"], value))
        #expect(try encode(["integerValue": 3.0], value) == [0x10, 0x03])
        #expect(try encode(["integerValue": "9223372036854775807"], value) == [0x10, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F])
        #expect(
            encodeError(["integerValue": "9223372036854775808"], value)
                == "\"9223372036854775808\" is not a 64-bit integer in google.firestore.v1.Value.integer_value (at integerValue)")
        #expect(encodeError(["integerValue": 1.5], value)?.hasPrefix("1.5 is not a 64-bit integer") == true)
        #expect(encodeError(["integerValue": "1.0"], value) != nil)
        #expect(encodeError(["integerValue": true], value)?.hasPrefix("expected an integer") == true)
    }

    @Test func negativeInt32AreTenByteVarints() throws {
        let target = FirestoreSchemas.message(named: "google.firestore.v1.Target")!
        #expect(try encode(["targetId": -1], target) == [0x28] + Array(repeating: 0xFF, count: 9) + [0x01])
        #expect(try decode("28 ff ff ff ff ff ff ff ff ff 01", target) == ["targetId": -1])
        #expect(encodeError(["targetId": 2_147_483_648], target)?.hasPrefix("2147483648 is out of range for int32") == true)
    }

    @Test func repeatedScalarsArePackedAndBothFormsAreRead() throws {
        let change = FirestoreSchemas.message(named: "google.firestore.v1.TargetChange")!
        #expect(try encode(["targetIds": [5]], change) == [0x12, 0x01, 0x05])
        #expect(try encode(["targetIds": [1, 300]], change) == [0x12, 0x03, 0x01, 0xAC, 0x02])
        #expect(try encode(["targetIds": []], change) == [])
        #expect(try decode("10 01 10 02 12 01 03 10 04", change) == ["targetIds": [1, 2, 3, 4]])
    }

    @Test func doublesAcceptTheNonFiniteStrings() throws {
        #expect(try decode("19 00 00 00 00 00 00 f8 7f", value) == ["doubleValue": "NaN"])
        #expect(try decode("19 00 00 00 00 00 00 f0 7f", value) == ["doubleValue": "Infinity"])
        #expect(try decode("19 00 00 00 00 00 00 f0 ff", value) == ["doubleValue": "-Infinity"])
        #expect(try encode(["doubleValue": "NaN"], value) == [0x19, 0, 0, 0, 0, 0, 0, 0xF8, 0x7F])
        #expect(try encode(["doubleValue": .double(.nan)], value) == [0x19, 0, 0, 0, 0, 0, 0, 0xF8, 0x7F], "the REST layer's Value.json form")
        #expect(try encode(["doubleValue": "-Infinity"], value) == encode(["doubleValue": .double(-.infinity)], value))
        #expect(try encode(["doubleValue": "1.5"], value) == encode(["doubleValue": 1.5], value))
        #expect(try encode(["doubleValue": 2], value) == encode(["doubleValue": 2.0], value))
        #expect(encodeError(["doubleValue": "nan"], value)?.hasPrefix("invalid number \"nan\"") == true)
        #expect(encodeError(["doubleValue": "0x10"], value) != nil)
        #expect(try encode(["doubleValue": -0.0], value) == [0x19, 0, 0, 0, 0, 0, 0, 0, 0x80])
        let negativeZero = try decode("19 00 00 00 00 00 00 00 80", value)
        #expect(negativeZero["doubleValue"]?.doubleValue?.sign == .minus)
        let latLng = FirestoreSchemas.message(named: "google.type.LatLng")!
        #expect(
            try encode(["latitude": 0.0, "longitude": -0.0], latLng) == [0x11, 0, 0, 0, 0, 0, 0, 0, 0x80],
            "implicit presence: +0.0 is the default, -0.0 is not")
    }

    // MARK: bytes, strings, enums

    @Test func bytesAcceptEitherBase64AlphabetWithOrWithoutPadding() throws {
        let expected: [UInt8] = [0x92, 0x01, 0x02, 0xFB, 0xFF]
        for text in ["+/8=", "+/8", "-_8=", "-_8"] {
            #expect(try encode(["bytesValue": .string(text)], value) == expected, "\(text)")
        }
        #expect(try decode("92 01 02 fb ff", value) == ["bytesValue": "+/8="])
        #expect(encodeError(["bytesValue": "not base64!"], value)?.hasPrefix("invalid base64") == true)
    }

    @Test func stringsMustBeValidUTF8() {
        #expect(decodeError("8a 01 02 c3 28", value) == "invalid UTF-8 in string in google.firestore.v1.Value.string_value (at string_value)")
        #expect(decodeError("12 05 0a 03 ff fe fd", document) == "invalid UTF-8 in string in google.firestore.v1.Document.fields (at fields)")
    }

    @Test func enumsAreNamesAndAcceptNumbers() throws {
        let order = FirestoreSchemas.message(named: "google.firestore.v1.StructuredQuery.Order")!
        #expect(try encode(["direction": "DESCENDING"], order) == [0x10, 0x02])
        #expect(try encode(["direction": 2], order) == [0x10, 0x02])
        #expect(try encode(["direction": 9], order) == [0x10, 0x09], "proto3 enums are open")
        #expect(try decode("10 02", order) == ["direction": "DESCENDING"])
        #expect(try decode("10 09", order) == ["direction": 9])
        #expect(
            encodeError(["direction": "SIDEWAYS"], order)
                == "unknown value \"SIDEWAYS\" for enum google.firestore.v1.StructuredQuery.Direction in google.firestore.v1.StructuredQuery.Order.direction (at direction)"
        )
        #expect(try encode(["nullValue": "NULL_VALUE"], value) == [0x58, 0x00])
        #expect(try encode(["nullValue": 0], value) == [0x58, 0x00])
    }

    // MARK: names

    @Test func protoNamesAreAcceptedOnInput() throws {
        #expect(try encode(["integer_value": "5"], value) == [0x10, 0x05])
        let withProtoNames = try encode(["update_time": "1970-01-01T00:00:01Z", "name": "n"], document)
        #expect(withProtoNames == (try encode(["updateTime": "1970-01-01T00:00:01Z", "name": "n"], document)))
        #expect(
            encodeError(["updateTime": "1970-01-01T00:00:01Z", "update_time": "1970-01-01T00:00:02Z"], document)?
                .hasPrefix("field update_time is given twice") == true)
    }

    @Test func unknownKeysAreRejectedNamingKeyMessageAndPath() {
        #expect(encodeError(["nmae": "x"], document) == "unknown field \"nmae\" in google.firestore.v1.Document")
        #expect(
            encodeError(["writes": [["update": ["name": "n", "feilds": [:]]]]], FirestoreSchemas.commitRequest)
                == "unknown field \"feilds\" in google.firestore.v1.Document (at writes[0].update)")
        #expect(
            encodeError(["fields": ["a": ["integerValue": "1", "x": 1]]], document)
                == "unknown field \"x\" in google.firestore.v1.Value (at fields[\"a\"])")
        #expect(
            encodeError(["fields": ["a": ["integerValue": "z"]]], document)
                == "\"z\" is not a 64-bit integer in google.firestore.v1.Value.integer_value (at fields[\"a\"].integerValue)")
    }

    /// Errors do not depend on dictionary order (which changes from run to run): several unknown
    /// keys report the first in key order.
    @Test func errorsAreTheSameOnEveryRun() {
        for _ in 0..<20 {
            #expect(encodeError(["zz": 1, "name": "n", "aa": 1, "mm": 1], document) == "unknown field \"aa\" in google.firestore.v1.Document")
            #expect(
                encodeError(["integerValue": "1", "booleanValue": true, "stringValue": ""], value)?.hasPrefix(
                    "oneof value_type has two members, booleanValue and") == true)
        }
    }

    @Test func twoMembersOfOneOneofAreRejected() {
        #expect(
            encodeError(["booleanValue": true, "integerValue": "1"], value)
                == "oneof value_type has two members, booleanValue and integerValue in google.firestore.v1.Value")
    }

    @Test func wrongJSONKindsAreRejected() {
        #expect(encodeError("x", document) == "expected a JSON object, got string in google.firestore.v1.Document")
        #expect(encodeError(["fields": []], document)?.hasPrefix("expected a JSON object, got array") == true)
        #expect(encodeError(["writes": [:]], FirestoreSchemas.commitRequest)?.hasPrefix("expected a JSON array, got object") == true)
        #expect(encodeError(["booleanValue": "true"], value)?.hasPrefix("expected true or false") == true)
        #expect(encodeError(["stringValue": 1], value)?.hasPrefix("expected a string") == true)
    }

    // MARK: maps

    @Test func mapsAreObjectsWrittenInKeyOrder() throws {
        let labels = FirestoreSchemas.listenRequest
        let bytes = try encode(["labels": ["b": "2", "a": "1", "": ""]], labels)
        #expect(
            bytes == [
                0x22, 0x04, 0x0A, 0x00, 0x12, 0x00, 0x22, 0x06, 0x0A, 0x01, 0x61, 0x12, 0x01, 0x31, 0x22, 0x06, 0x0A, 0x01, 0x62, 0x12, 0x01, 0x32,
            ])
        #expect(try decode(Fixtures.hex(bytes), labels) == ["labels": ["": "", "a": "1", "b": "2"]])
    }

    /// A registry of its own, with the map key types Firestore does not use.
    @Test func integerAndBoolMapKeysAreStringified() throws {
        let m = MessageSchema(
            "test.Maps",
            [
                .map(1, "by_int", .int32, .string),
                .map(2, "by_bool", .bool, .int64),
                .map(3, "by_uint64", .uint64, .bool),
                .map(4, "by_sint", .sint64, .double),
            ])
        _ = try SchemaRegistry(messages: [m], enums: [])
        let json: JSON = [
            "byInt": ["-1": "minus one", "7": "seven"], "byBool": ["true": "1"], "byUint64": ["18446744073709551615": true], "bySint": ["-2": 0.5],
        ]
        let bytes = try ProtoJSON.encode(json, as: m)
        #expect(try ProtoJSON.decode(bytes, as: m) == json)
        #expect(encodeError(["byInt": ["x": "y"]], m)?.hasPrefix("\"x\" is not a 32-bit integer") == true)
        #expect(encodeError(["byBool": ["yes": "1"]], m)?.hasPrefix("map key \"yes\" is not true or false") == true)
    }

    // MARK: other scalar types

    @Test func everyScalarTypeRoundTrips() throws {
        let m = MessageSchema(
            "test.Scalars",
            [
                .field(1, "d", .double), .field(2, "f", .float), .field(3, "i32", .int32), .field(4, "i64", .int64),
                .field(5, "u32", .uint32), .field(6, "u64", .uint64), .field(7, "s32", .sint32), .field(8, "s64", .sint64),
                .field(9, "f32", .fixed32), .field(10, "f64", .fixed64), .field(11, "sf32", .sfixed32), .field(12, "sf64", .sfixed64),
                .field(13, "b", .bool), .field(14, "s", .string), .field(15, "by", .bytes),
                .repeated(16, "rs32", .sint32), .repeated(17, "rf", .float), .repeated(18, "rsf64", .sfixed64),
            ])
        _ = try SchemaRegistry(messages: [m], enums: [])
        let json: JSON = [
            "d": 1.25, "f": 0.1, "i32": -5, "i64": "-6", "u32": 4_294_967_295, "u64": "18446744073709551615", "s32": -2_147_483_648,
            "s64": "-9223372036854775808", "f32": 4_294_967_295, "f64": "18446744073709551615", "sf32": -1, "sf64": "-1",
            "b": true, "s": "é", "by": "AAE=", "rs32": [-1, 0, 1], "rf": [1.5, "NaN", "-Infinity"], "rsf64": ["-2", "0"],
        ]
        let bytes = try ProtoJSON.encode(json, as: m)
        #expect(sameJSON(try ProtoJSON.decode(bytes, as: m), json))
        // sint32 -1 is zigzag 1.
        #expect(try ProtoJSON.encode(["s32": -1], as: m) == [0x38, 0x01])
        #expect(try ProtoJSON.encode(["f": 0.0], as: m) == [])
        #expect(encodeError(["f": 1e300], m)?.hasPrefix("1e+300 is out of range for a float") == true)
        #expect(encodeError(["u32": -1], m)?.hasPrefix("-1 is not an unsigned 32-bit integer") == true)
    }

    // MARK: depth, unlinked schemas, merging

    /// Builds Value{array_value{values: Value{...}}} `pairs` times (two message levels each).
    func nestedArrays(_ pairs: Int) -> [UInt8] {
        let w = ProtoWriter()
        w.prependVarint(1)
        w.prependKey(2, .varint)
        for _ in 0..<pairs {
            w.prependLength(since: 0)  // the Value so far becomes ArrayValue.values[0] ...
            w.prependKey(1, .lengthDelimited)
            w.prependLength(since: 0)  // ... of a Value's array_value
            w.prependKey(9, .lengthDelimited)
        }
        return w.bytes()
    }

    @Test func nestingIsLimitedWhenDecoding() throws {
        let shallow = nestedArrays(45)
        #expect(throws: Never.self) { try ProtoJSON.decode(shallow, as: value) }
        let deep = nestedArrays(60)
        #expect(throws: ProtobufError.self) { try ProtoJSON.decode(deep, as: value) }
        let hostile = nestedArrays(20_000)
        do {
            _ = try ProtoJSON.decode(hostile, as: value)
            Issue.record("20,000 levels decoded")
        } catch {
            #expect(error.reason == "messages nested deeper than 100 levels")
        }
    }

    @Test func nestingIsLimitedWhenEncoding() throws {
        var json: JSON = ["integerValue": "1"]
        for _ in 0..<45 { json = ["arrayValue": ["values": [json]]] }
        #expect(throws: Never.self) { try ProtoJSON.encode(json, as: value) }
        for _ in 0..<15 { json = ["arrayValue": ["values": [json]]] }
        #expect(encodeError(json, value)?.hasPrefix("messages nested deeper than 100 levels") == true)
    }

    @Test func truncationErrorsNameTheFieldAndPath() {
        // CommitRequest{writes: [Write{update: Document{fields: {"a": Value{integer_value: <truncated>}}}}]}
        let hex = "12 0b 0a 09 12 07 0a 01 61 12 02 10 80"
        #expect(
            decodeError(hex, FirestoreSchemas.commitRequest)
                == "truncated varint in google.firestore.v1.Value.integer_value (at writes[0].update.fields[\"a\"].integer_value)")
        #expect(decodeError("10", value) == "truncated varint in google.firestore.v1.Value.integer_value (at integer_value)")
        #expect(
            decodeError("0a 05 61", document)?.hasPrefix(
                "truncated length-delimited field (5 bytes declared, 1 left) in google.firestore.v1.Document.name") == true)
        #expect(decodeError("0b", document) == "group wire type (field 1) is not supported in google.firestore.v1.Document")
        #expect(decodeError("fa 06 05 01", document)?.hasPrefix("truncated length-delimited field") == true, "unknown fields are bounds-checked too")
    }

    @Test func anUnlinkedSchemaThrowsInsteadOfTrapping() {
        let lonely = MessageSchema("test.Lonely", [.field(1, "child", .message("test.Missing"))])
        #expect(decodeError("0a 00", lonely) == "schema test.Lonely is not linked into a registry in test.Lonely.child (at child)")
        #expect(throws: ProtobufError.self) { try SchemaRegistry(messages: [lonely], enums: []) }
    }

    @Test func registryErrorsNameTheProblem() {
        #expect(throws: ProtobufError("field test.A.b names unknown message test.B")) {
            try SchemaRegistry(messages: [MessageSchema("test.A", [.field(1, "b", .message("test.B"))])], enums: [])
        }
        #expect(throws: ProtobufError("message test.A is declared twice")) {
            try SchemaRegistry(messages: [MessageSchema("test.A", []), MessageSchema("test.A", [])], enums: [])
        }
        #expect(throws: ProtobufError("map field test.A.m has an invalid key type double")) {
            try SchemaRegistry(messages: [MessageSchema("test.A", [.map(1, "m", .double, .string)])], enums: [])
        }
    }

    /// A singular message field seen twice merges, whatever lies between the occurrences, and a
    /// long run of duplicates costs linear time.
    @Test func duplicateMessagesMergeLinearly() throws {
        // Document{create_time{seconds 1}, name "n", create_time{nanos 1000}}
        #expect(try decode("1a 02 08 01 0a 01 6e 1a 03 10 e8 07", document) == ["createTime": "1970-01-01T00:00:01.000001Z", "name": "n"])
        // 100,000 repeated `readTime{seconds 1}` fields.
        let many = [UInt8](repeating: 0, count: 0).reserved(400_000) { bytes in
            for _ in 0..<100_000 { bytes += [0x1A, 0x02, 0x08, 0x01] }
        }
        #expect(try ProtoJSON.decode(many, as: document) == ["createTime": "1970-01-01T00:00:01Z"])
    }
}

extension Array {
    /// A copy with room for `n` elements, filled by `body`.
    func reserved(_ n: Int, _ body: (inout [Element]) -> Void) -> [Element] {
        var a = self
        a.reserveCapacity(n)
        body(&a)
        return a
    }
}
