import EmulatorCore
import Testing

@testable import EmulatorStore

/// Firestore orders and compares strings by their UTF-8 bytes, with no Unicode normalization:
/// "é" written precomposed (U+00E9) and decomposed ("e" + U+0301) are different strings. Swift's
/// `==` treats them as equal (canonical equivalence), which made the order non-transitive
/// (é == e\u{301} < f < é). Found by the `value` fuzz target's transitivity check.
@Suite struct StringOrderTests {
    static let precomposed = "\u{E9}", decomposed = "e\u{301}"

    @Test func canonicallyEquivalentStringsAreDifferentAndOrderedByBytes() {
        let nfc = Value.string(Self.precomposed), nfd = Value.string(Self.decomposed), f = Value.string("f")
        #expect(Value.compare(nfd, nfc) == -1)  // 0x65 ... < 0xC3 ...
        #expect(Value.compare(nfc, nfd) == 1)
        #expect(Value.compare(nfd, f) == -1)
        #expect(Value.compare(f, nfc) == -1)
        #expect(!Value.queryEquals(nfc, nfd))
        // Transitive in every order of the three.
        let values = [nfc, nfd, f]
        for a in values {
            for b in values {
                for c in values where Value.compare(a, b) <= 0 && Value.compare(b, c) <= 0 {
                    #expect(Value.compare(a, c) <= 0, "\(a) <= \(b) <= \(c)")
                }
            }
        }
    }

    @Test func equalityQueriesMatchBytesWithAndWithoutTheIndex() throws {
        let (s, _) = try makeStore()
        try set(s, "c/nfc", ["name": .string(Self.precomposed)])
        try set(s, "c/nfd", ["name": .string(Self.decomposed)])
        let from: JSON = ["from": [["collectionId": "c"]]]
        func q(_ filter: JSON, ordered: Bool = false) throws -> [String] {
            var json = from
            if case .object(var o) = json {
                o["where"] = filter
                if ordered { o["orderBy"] = [["field": ["fieldPath": "name"], "direction": "DESCENDING"]] }
                json = .object(o)
            }
            return try query(s, json)
        }
        // The equality index answers the first; the ordered query scans and sorts.
        #expect(try q(fieldFilter("name", "EQUAL", ["stringValue": .string(Self.precomposed)])) == ["c/nfc"])
        #expect(try q(fieldFilter("name", "EQUAL", ["stringValue": .string(Self.decomposed)])) == ["c/nfd"])
        #expect(try q(fieldFilter("name", "EQUAL", ["stringValue": .string(Self.decomposed)]), ordered: true) == ["c/nfd"])
        #expect(try q(fieldFilter("name", "GREATER_THAN", ["stringValue": .string(Self.decomposed)]), ordered: true) == ["c/nfc"])
        #expect(try q(fieldFilter("name", "IN", ["arrayValue": ["values": [["stringValue": .string(Self.precomposed)]]]])) == ["c/nfc"])
    }
}
