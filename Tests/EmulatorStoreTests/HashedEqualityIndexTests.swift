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
        s.ensureEqualityIndex("c", "k")
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

    /// A field is indexed from the first query that filters it by `==` (built from the documents
    /// already there) and kept by later writes; until then no memory goes to it, and a query on a
    /// field that is not indexed scans, with the same answer.
    @Test func aFieldIsIndexedFromItsFirstEqualityQueryAndKeptByWrites() throws {
        var s = DatabaseState()
        let t = Timestamp(seconds: 10)
        for i in 0..<6 {
            s.put(Document(path: "c/d\(i)", fields: ["k": .integer(Int64(i % 2)), "u": .integer(Int64(i))], createTime: t, updateTime: t))
        }
        #expect(s.equalityIndex.isEmpty)
        let filter = QueryFilter.field(FieldPath(["k"]), .equal, .integer(1))
        #expect(s.candidates(filter, "c") == nil)  // not indexed: the caller scans
        let q = try StructuredQuery(
            json: [
                "from": [["collectionId": "c"]],
                "where": ["fieldFilter": ["field": ["fieldPath": "k"], "op": "EQUAL", "value": ["integerValue": "1"]]],
            ])
        let scanned = s.run(q, parent: "", project: "p", database: "(default)").map(\.path)
        s.prepareEqualityIndexes(for: q, parent: "")
        #expect(s.equalityIndex["c"]?["u"] == nil)  // only the filtered field
        #expect(s.candidates(filter, "c")?.sorted() == ["c/d1", "c/d3", "c/d5"])
        #expect(s.run(q, parent: "", project: "p", database: "(default)").map(\.path) == scanned)
        // Writes after keep the index: an update moves a document, a delete and a create count.
        s.put(Document(path: "c/d1", fields: ["k": .integer(0)], createTime: t, updateTime: Timestamp(seconds: 11)))
        s.remove("c/d3", at: Timestamp(seconds: 12))
        s.put(Document(path: "c/d9", fields: ["k": .double(1.0)], createTime: t, updateTime: Timestamp(seconds: 13)))
        #expect(s.candidates(filter, "c")?.sorted() == ["c/d5", "c/d9"])
        #expect(s.run(q, parent: "", project: "p", database: "(default)").map(\.path) == ["c/d5", "c/d9"])
    }

    /// A query on a field no document holds leaves nothing behind: a caller naming ever new fields
    /// cannot grow the set of indexed fields.
    @Test func aFieldNoDocumentHoldsIsNotRemembered() throws {
        var s = DatabaseState()
        let t = Timestamp(seconds: 10)
        s.put(Document(path: "c/a", fields: ["k": .integer(1)], createTime: t, updateTime: t))
        for i in 0..<100 {
            let q = try StructuredQuery(
                json: [
                    "from": [["collectionId": "c"]],
                    "where": ["fieldFilter": ["field": ["fieldPath": .string("absent\(i)")], "op": "EQUAL", "value": ["integerValue": "1"]]],
                ])
            s.prepareEqualityIndexes(for: q, parent: "")
            #expect(s.run(q, parent: "", project: "p", database: "(default)").isEmpty)
        }
        #expect(s.indexedFields.isEmpty && s.equalityIndex.isEmpty)
    }
}
