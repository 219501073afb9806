import EmulatorCore
import Testing

@testable import EmulatorStore

@Suite struct ValueTests {
    /// Firestore's total order across and within types, ascending.
    static let ordered: [Value] = [
        .null, .boolean(false), .boolean(true), .double(.nan), .double(-.infinity), .integer(Int64.min), .double(-1.5),
        .integer(-1), .integer(0), .double(0.5), .integer(1), .integer(9_007_199_254_740_992), .integer(9_007_199_254_740_993),
        .double(9_007_199_254_740_994), .double(.infinity),
        .timestamp(Timestamp(seconds: 0)), .timestamp(Timestamp(seconds: 1)),
        .string(""), .string("a"), .string("b"), .string("\u{FF5E}"), .string("\u{10000}"),
        .bytes([]), .bytes([0]), .bytes([0, 1]), .bytes([255]),
        .reference("projects/p/databases/d/documents/c/a"), .reference("projects/p/databases/d/documents/c/a/sub/x"),
        .reference("projects/p/databases/d/documents/c/b"),
        .geoPoint(latitude: -10, longitude: 5), .geoPoint(latitude: 0, longitude: -5), .geoPoint(latitude: 0, longitude: 5),
        .array([]), .array([.integer(1), .integer(2)]), .array([.integer(1), .integer(2), .integer(1)]), .array([.integer(2)]),
        .map(["__type__": .string("__vector__"), "value": .array([.double(9)])]),
        .map(["__type__": .string("__vector__"), "value": .array([.double(1), .double(2)])]),
        .map([:]), .map(["a": .integer(1)]), .map(["a": .integer(2)]), .map(["b": .integer(0)]),
    ]

    @Test func totalOrderTable() {
        for i in Self.ordered.indices {
            for j in Self.ordered.indices {
                let c = Value.compare(Self.ordered[i], Self.ordered[j])
                let expected = i < j ? -1 : (i == j ? 0 : 1)
                #expect(c == expected, "compare(\(Self.ordered[i]), \(Self.ordered[j])) = \(c)")
            }
        }
    }

    @Test func intsAndDoublesCompareExactly() {
        #expect(Value.compare(.integer(1), .double(1.0)) == 0)
        #expect(Value.compare(.double(-0.0), .integer(0)) == 0)
        #expect(Value.compare(.double(.nan), .double(.nan)) == 0)
        #expect(!Value.queryEquals(.double(.nan), .double(.nan)))
        #expect(Value.transformEquals(.double(.nan), .double(.nan)))
    }

    @Test func jsonRoundTripsEveryKind() throws {
        let values: [Value] = [
            .null, .boolean(true), .integer(-42), .double(2.5), .double(.nan), .double(-.infinity),
            .timestamp(Timestamp(seconds: 1_700_000_000, nanos: 123_456_000)), .string("héllo"), .bytes([0, 255, 7]),
            .reference("projects/p/databases/(default)/documents/c/d"), .geoPoint(latitude: 1.5, longitude: -2),
            .array([.integer(1), .string("x")]), .map(["k": .map(["n": .null])]),
        ]
        for v in values {
            let back = try Value(json: try JSON.parse(v.json.serialized()))
            #expect(Value.compare(back, v) == 0 && back.typeOrder == v.typeOrder, "\(v)")
        }
    }

    @Test func acceptsLenientInputs() throws {
        #expect(try Value(json: ["integerValue": 5]) == .integer(5))
        #expect(try Value(json: ["doubleValue": "1.5"]) == .double(1.5))
        #expect(try Value(json: ["nullValue": "NULL_VALUE"]) == .null)
        #expect(
            try Value(json: ["timestampValue": "2026-01-01T00:00:00.123456789Z"]) == .timestamp(Timestamp(seconds: 1_767_225_600, nanos: 123_456_000))
        )
    }

    @Test(
        arguments: [
            (JSON.object(["integerValue": "x"]), "Invalid integerValue"),
            (["stringValue": 3], "Invalid stringValue"),
            (["a": 1, "b": 2], "exactly one of"),
            (["arrayValue": ["values": [["arrayValue": [:]]]]], "Cannot convert an array value in an array value."),
            (["mapValue": ["fields": ["__x__": ["nullValue": nil]]]], "field name __x__ is reserved"),
            (["referenceValue": "tasks/t1"], "Invalid referenceValue"),
            (["geoPointValue": ["latitude": 91, "longitude": 0]], "latitude '91.0' outside permitted range"),
            (["bytesValue": "!!"], "expected base64"),
            (["unknownValue": 1], "unknown value kind"),
        ] as [(JSON, String)])
    func rejectsBadValuesWithAMessage(json: JSON, fragment: String) {
        do {
            _ = try Value(json: json)
            Issue.record("accepted \(json)")
        } catch let e as EmulatorError {
            #expect(e.code == .invalidArgument)
            #expect(e.message.contains(fragment), "\(e.message)")
        } catch { Issue.record("\(error)") }
    }

    @Test func rejectsDeepNesting() {
        var j: JSON = ["nullValue": nil]
        for _ in 0..<25 { j = ["mapValue": ["fields": ["a": j]]] }
        #expect(throws: EmulatorError.self) { try Value(json: j) }
    }

    @Test func fieldPathsParseQuotedSegments() throws {
        #expect(try FieldPath(parsing: "a.b").segments == ["a", "b"])
        #expect(try FieldPath(parsing: "`a.b`.c").segments == ["a.b", "c"])
        #expect(try FieldPath(parsing: "`x\\`y`").segments == ["x`y"])
        #expect(FieldPath(["a.b", "c", "1x"]).description == "`a.b`.c.`1x`")
        for bad in ["", "a..b", "`open", "a.", ".a"] { #expect(throws: EmulatorError.self) { try FieldPath(parsing: bad) } }
    }
}
