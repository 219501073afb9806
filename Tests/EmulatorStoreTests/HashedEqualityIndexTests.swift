import EmulatorCore
import Testing

@testable import EmulatorStore

/// The equality index keys values by a hash; an entry holding a path whose value does not match
/// (what a hash collision does) adds a candidate, never a result.
@Suite struct HashedEqualityIndexTests {
    /// Values a query calls equal share a hash (1 and 1.0, 0 and -0.0); NaN has none.
    @Test func queryEqualValuesShareAHash() {
        #expect(Value.integer(1).equalityHash == Value.double(1.0).equalityHash)
        #expect(Value.double(-0.0).equalityHash == Value.integer(0).equalityHash)
        #expect(Value.double(1.5).equalityHash == Value.double(1.5).equalityHash)
        #expect(Value.double(.nan).equalityHash == nil)
        #expect(Value.string("é").equalityHash != Value.string("e\u{301}").equalityHash)
        #expect(Value.array([.integer(1)]).equalityHash == Value.array([.double(1)]).equalityHash)
    }

    @Test func aCollidingEntryOnlyAddsACandidate() throws {
        var s = DatabaseState()
        let t = Timestamp(seconds: 10)
        s.put(Document(path: "c/a", fields: ["k": .string("x")], createTime: t, updateTime: t))
        s.put(Document(path: "c/b", fields: ["k": .string("y")], createTime: t, updateTime: t))
        let hash = try #require(Value.string("x").equalityHash)
        s.equalityIndex["c"]?["k"]?.insertPath("c/b", forKey: hash)  // as if "y" collided with "x"
        #expect(s.candidates(.field(FieldPath(["k"]), .equal, .string("x")), "c")?.sorted() == ["c/a", "c/b"])
        for limit: Int? in [nil, 5] {
            var o: [String: JSON] = [
                "from": [["collectionId": "c"]],
                "where": ["fieldFilter": ["field": ["fieldPath": "k"], "op": "EQUAL", "value": ["stringValue": "x"]]],
            ]
            if let limit { o["limit"] = .int(Int64(limit)) }
            let q = try StructuredQuery(json: .object(UTF8Dictionary(o)))
            #expect(s.run(q, parent: "", project: "p", database: "(default)").map(\.path) == ["c/a"])
        }
    }
}
