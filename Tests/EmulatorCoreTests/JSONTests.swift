import Testing

@testable import EmulatorCore

@Suite struct JSONTests {
    @Test(arguments: [
        ("{}", JSON.object([:])),
        ("[]", JSON.array([])),
        ("1", JSON.int(1)),
        ("-0", JSON.int(0)),
        ("1.5", JSON.double(1.5)),
        ("1e3", JSON.double(1000)),
        ("9223372036854775808", JSON.double(9223372036854775808)),
        ("\"a\\u00e9\\ud83d\\ude00\"", JSON.string("aé😀")),
        ("{\"a\":[true,false,null]}", JSON.object(["a": [true, false, nil]])),
    ])
    func parsesValidDocuments(text: String, expected: JSON) throws {
        #expect(try JSON.parse(text) == expected)
    }

    @Test(arguments: ["", "{", "[1,]", "01", "1.", "\"\\ud800\"", "{\"a\" 1}", "tru", "[1] x", "\"\u{01}\""])
    func rejectsInvalidDocuments(text: String) {
        #expect(throws: JSONParseError.self) { try JSON.parse(text) }
    }

    @Test func rejectsInvalidUTF8() {
        #expect(throws: JSONParseError.self) { try JSON.parse([0x22, 0xFF, 0x22]) }
    }

    @Test func deepNestingIsAnErrorNotACrash() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONParseError.self) { try JSON.parse(deep) }
    }

    @Test func serializesDeterministically() throws {
        let v: JSON = ["b": 1, "a": ["x\n", 2.5, nil], "c": .double(.nan)]
        #expect(v.serialized() == #"{"a":["x\n",2.5,null],"b":1,"c":"NaN"}"#)
        #expect(try JSON.parse(v.serialized())["a"] == ["x\n", 2.5, nil])
    }

    @Test func prettyPrintsWithTwoSpaces() {
        let v: JSON = ["error": ["code": 400]]
        #expect(v.prettySerialized() == "{\n  \"error\": {\n    \"code\": 400\n  }\n}")
    }
}

@Suite struct TimestampTests {
    @Test func formatsAndParsesRFC3339() throws {
        let t = try #require(Timestamp(rfc3339: "2026-11-22T10:12:16.123456Z"))
        #expect(t.seconds == 1_795_342_336)
        #expect(t.nanos == 123_456_000)
        #expect(t.rfc3339() == "2026-11-22T10:12:16.123456Z")
        #expect(Timestamp(seconds: 0).rfc3339() == "1970-01-01T00:00:00Z")
        #expect(Timestamp(rfc3339: "2026-11-22T12:12:16+02:00")?.seconds == 1_795_342_336)
        #expect(Timestamp(seconds: -1).rfc3339() == "1969-12-31T23:59:59Z")
    }

    @Test(arguments: ["", "2026-13-01T00:00:00Z", "2026-01-01 00:00:00Z", "2026-01-01T00:00:00", "2026-01-01T00:00:00.Z"])
    func rejectsMalformedTimestamps(text: String) {
        #expect(Timestamp(rfc3339: text) == nil)
    }

    @Test func projectClockFreezesAndAdvances() {
        let clock = ProjectClock()
        clock.freeze(at: Timestamp(seconds: 100))
        #expect(clock.now() == Timestamp(seconds: 100))
        clock.advance(seconds: 1.5)
        #expect(clock.now() == Timestamp(seconds: 101, nanos: 500_000_000))
    }
}

@Suite struct IDGeneratorTests {
    @Test func seededSequencesRepeat() {
        let a = IDGenerator(seed: 42), b = IDGenerator(seed: 42)
        #expect(a.documentID() == b.documentID())
        #expect(a.uid().count == 28)
        a.reseed(7)
        b.reseed(7)
        #expect(a.digits(6) == b.digits(6))
    }

    @Test func unseededIdsDiffer() {
        let g = IDGenerator()
        #expect(g.documentID() != g.documentID())
    }
}

@Suite struct Base64Tests {
    @Test(arguments: [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg==")])
    func roundTripsStandard(plain: String, encoded: String) {
        #expect(Base64.encode(Array(plain.utf8)) == encoded)
        #expect(Base64.decode(encoded) == Array(plain.utf8))
    }

    @Test func urlSafeIsUnpadded() {
        #expect(Base64.urlEncode([0xFB, 0xFF]) == "-_8")
        #expect(Base64.decode("-_8") == [0xFB, 0xFF])
        #expect(Base64.decode("a b") == nil)
        #expect(Base64.decode("Zg=x") == nil)
    }
}
