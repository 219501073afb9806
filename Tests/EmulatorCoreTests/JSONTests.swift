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
        ("{\"é😀\":\"aé😀\",\"plain\":\"ascii only\"}", JSON.object(["é😀": "aé😀", "plain": "ascii only"])),
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
        // Overlong, a lone continuation, a truncated sequence, a surrogate: in values and keys.
        for bad: [UInt8] in [[0xC0, 0xAF], [0x80], [0xE2, 0x82], [0xED, 0xA0, 0x80]] {
            #expect(throws: JSONParseError.self) { try JSON.parse([0x22, 0x61] + bad + [0x22]) }
            #expect(throws: JSONParseError.self) { try JSON.parse([0x7B, 0x22] + bad + [0x22, 0x3A, 0x31, 0x7D]) }
        }
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

    /// Strings with nothing to escape are copied whole; the others escape exactly the quote, the
    /// backslash and control characters (non-ASCII passes through as UTF-8).
    @Test func escapesOnlyWhatJSONNeeds() {
        #expect(JSON.string("plain é 😀 /<>").serialized() == "\"plain é 😀 /<>\"")
        #expect(JSON.string("q\"b\\t\tn\nr\r\u{01}\u{1F}").serialized() == #""q\"b\\t\tn\nr\r\u0001\u001f""#)
        #expect(JSON.string("").serialized() == "\"\"")
        #expect(JSON.object(["k\"": "v"]).serialized() == #"{"k\"":"v"}"#)
        // Strings too long to be stored inline take the same paths (scan, copy, escape).
        let long = String(repeating: "abcdefgh", count: 8)
        #expect(JSON.string(long).serialized() == "\"\(long)\"")
        #expect(JSON.string(long + "\n\"").serialized() == "\"\(long)\\n\\\"\"")
        #expect(JSON.object([long: .string(long)]).serialized() == "{\"\(long)\":\"\(long)\"}")
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

    /// The text of every write's times: the byte-writing path gives exactly what the
    /// component-by-component formatting gives (kept here as the reference), for times across
    /// years 1–9999, every precision and explicit fraction digits.
    @Test func formattingMatchesTheReferenceFormatting() {
        func pad(_ v: Int64, _ width: Int) -> String {
            let s = String(v)
            return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
        }
        func reference(_ t: Timestamp, _ fractionDigits: Int?) -> String {
            let days = t.seconds >= 0 || t.seconds % 86_400 == 0 ? t.seconds / 86_400 : t.seconds / 86_400 - 1
            let (y, mo, d) = Timestamp.civilFromDays(days)
            let sod = t.seconds - days * 86_400
            var out = "\(pad(y, 4))-\(pad(mo, 2))-\(pad(d, 2))T\(pad(sod / 3600, 2)):\(pad(sod % 3600 / 60, 2)):\(pad(sod % 60, 2))"
            let n = t.nanos
            let digits = fractionDigits ?? (n == 0 ? 0 : n % 1_000_000 == 0 ? 3 : n % 1000 == 0 ? 6 : 9)
            if digits > 0 { out += "." + String(pad(Int64(n), 9).prefix(digits)) }
            return out + "Z"
        }
        let g = IDGenerator(seed: 11)
        for k in 0..<3000 {
            let seconds = Int64(g.next(below: 253_402_300_800 + 62_135_596_800)) - 62_135_596_800
            let nanos: Int32 = [0, 1, 999_999_999, 120_000_000, 123_456_000, 5_000][k % 6] &+ Int32(k % 2 == 0 ? 0 : g.next(below: 1000) * 1_000_000)
            let t = Timestamp(seconds: seconds, nanos: nanos % 1_000_000_000)
            #expect(t.rfc3339() == reference(t, nil))
            let fd = k % 12
            #expect(t.rfc3339(fractionDigits: fd) == reference(t, fd))
        }
        #expect(Timestamp(seconds: 253_402_300_799, nanos: 999_999_999).rfc3339() == "9999-12-31T23:59:59.999999999Z")
        #expect(Timestamp(seconds: -62_135_596_800).rfc3339() == "0001-01-01T00:00:00Z")
        #expect(Timestamp(seconds: 1, nanos: 5_000).rfc3339(fractionDigits: 6) == "1970-01-01T00:00:01.000005Z")
        #expect(Timestamp(seconds: 253_402_300_800).rfc3339() == "10000-01-01T00:00:00Z")
    }

    @Test(arguments: ["", "2026-13-01T00:00:00Z", "2026-01-01 00:00:00Z", "2026-01-01T00:00:00", "2026-01-01T00:00:00.Z"])
    func rejectsMalformedTimestamps(text: String) {
        #expect(Timestamp(rfc3339: text) == nil)
    }

    @Test func projectClockFreezesAndAdvances() throws {
        let clock = ProjectClock()
        try clock.freeze(at: Timestamp(seconds: 100))
        #expect(clock.now() == Timestamp(seconds: 100))
        try clock.advance(seconds: 1.5)
        #expect(clock.now() == Timestamp(seconds: 101, nanos: 500_000_000))
    }

    /// Three advances of 98 years once overflowed the system-mode offset and trapped.
    @Test func projectClockRefusesToLeaveFirestoresRangeAndNeverOverflows() throws {
        let clock = ProjectClock(base: FixedClock(Timestamp(seconds: 1_800_000_000)))
        try clock.advance(seconds: 3.1e9)
        try clock.advance(seconds: 3.1e9)
        #expect(throws: EmulatorError.self) { try clock.advance(seconds: 3.1e9) }
        #expect(clock.mode == .system(offsetNanos: 6_200_000_000_000_000_000))
        for bad in [Double.nan, .infinity, -.infinity, 1e300] { #expect(throws: EmulatorError.self) { try clock.advance(seconds: bad) } }
        try clock.freeze(at: Timestamp(seconds: 253_402_300_000))
        #expect(throws: EmulatorError.self) { try clock.advance(seconds: 800) }
        try clock.advance(seconds: 799.999999999)
        #expect(clock.now() == .latest)
        #expect(throws: EmulatorError.self) { try clock.freeze(at: Timestamp(seconds: -62_135_596_801)) }
        try clock.freeze(at: .earliest)
        #expect(throws: EmulatorError.self) { try clock.advance(seconds: -0.001) }
        #expect(clock.now() == .earliest && Timestamp.earliest.rfc3339() == "0001-01-01T00:00:00Z")
    }

    /// `adding(seconds:)` converts to whole seconds: a delta of 1e300 (an unbounded option) trapped.
    @Test func addingSecondsNeverTraps() {
        let t = Timestamp(seconds: 100, nanos: 5)
        #expect(t.adding(seconds: 1e300) == Timestamp(seconds: 100 + 1_000_000_000_000, nanos: 5))
        #expect(t.adding(seconds: -.infinity) == Timestamp(seconds: 100 - 1_000_000_000_000, nanos: 5))
        #expect(t.adding(seconds: .nan) == t)
        #expect(t.adding(seconds: -1.5) == Timestamp(seconds: 98, nanos: 500_000_005))
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

    /// A seeded string is the characters `next(below:)` picks one after another: the sequence a
    /// seed gives does not change with how strings are built.
    @Test func seededStringsAreNextBelowPicks() {
        let a = IDGenerator(seed: 42), b = IDGenerator(seed: 42)
        let alphabet = Array(IDGenerator.alphanumerics)
        let expected = String((0..<20).map { _ in alphabet[Int(b.next(below: UInt64(alphabet.count)))] })
        #expect(a.documentID() == expected)
        let unicode = IDGenerator(seed: 3), reference = IDGenerator(seed: 3)
        let letters = Array("αβγ")
        #expect(unicode.string(length: 5, alphabet: "αβγ") == String((0..<5).map { _ in letters[Int(reference.next(below: 3))] }))
    }

    /// Unseeded ids draw several characters per system random value: still every character of
    /// the alphabet, and only those, at the asked length.
    @Test func unseededIdsUseTheWholeAlphabet() {
        let g = IDGenerator()
        var seen = Set<Character>()
        for _ in 0..<400 {
            let id = g.documentID()
            #expect(id.count == 20)
            seen.formUnion(id)
        }
        #expect(seen == Set(IDGenerator.alphanumerics))
        #expect(g.string(length: 0, alphabet: "ab").isEmpty)
        #expect(Set(g.string(length: 64, alphabet: "x")) == ["x"])
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

/// A clock that always reads `time`.
private struct FixedClock: EmulatorClock {
    let time: Timestamp
    init(_ time: Timestamp) { self.time = time }
    func now() -> Timestamp { time }
}
