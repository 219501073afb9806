import EmulatorCore
import Testing

@testable import EmulatorStore

/// The chunked name index keeps exactly the order and contents a single sorted array had.
@Suite struct SortedPathsTests {
    /// The reference: every path once, sorted by `compareNames`.
    static func reference(_ set: Set<UTF8Key>) -> [String] { set.map(\.string).sorted { DocumentName.compareNames($0, $1) < 0 } }

    /// Thousands of inserts and removals (enough to split and empty chunks) in a scrambled order,
    /// numeric ids (`__id7__`) and byte-order traps included: always the reference order.
    @Test func insertsAndRemovalsKeepNameOrder() {
        var list = SortedPaths()
        var expected = Set<UTF8Key>()
        var rng = SystemRandomNumberGenerator()
        let names = (0..<5000).map { i in i % 7 == 0 ? "c/__id\(i)__" : (i % 5 == 0 ? "c/e\u{301}\(i)" : "c/d\(i)") }
        for name in names.shuffled(using: &rng) {
            list.insert(name)
            expected.insert(UTF8Key(name))
        }
        list.insert(names[3])  // a duplicate is not added twice
        #expect(list.count == expected.count)
        #expect(list.array == Self.reference(expected))
        #expect(Array(list) == list.array)
        for name in names.shuffled(using: &rng).prefix(4000) {
            let removed = list.remove(name)
            #expect(removed)
            expected.remove(UTF8Key(name))
        }
        let absent = list.remove("c/absent")
        #expect(!absent)
        #expect(list.count == expected.count)
        #expect(list.array == Self.reference(expected))
    }

    /// Pages start after the given name (present or not) and run across chunk boundaries.
    @Test func pagesRunAcrossChunks() {
        var list = SortedPaths()
        for i in 0..<2000 { list.insert("c/\(String(i + 10000))") }
        let all = list.array
        #expect(list.page(after: nil, limit: 3) == Array(all.prefix(3)))
        #expect(list.page(after: "c/10511", limit: 1000) == Array(all[512..<1512]))
        #expect(list.page(after: "c/105115", limit: 2) == Array(all[512..<514]), "a name that is not stored")
        #expect(list.page(after: "c/11999", limit: 5).isEmpty)
        #expect(SortedPaths().page(after: "c/x", limit: 5).isEmpty)
    }
}

/// The single-path form of an equality index entry becomes a set and back.
@Suite struct IndexedPathsTests {
    @Test func oneManyAndBack() {
        var e = IndexedPaths.one("c/a")
        e.insert("c/a")
        #expect(e.count == 1)
        e.insert("c/b")
        e.insert("c/c")
        #expect(e.paths == ["c/a", "c/b", "c/c"])
        let a = e.remove("c/a"), b = e.remove("c/b")
        #expect(a && b)
        #expect(e.count == 1 && e.paths == ["c/c"])
        let c = e.remove("c/c")
        #expect(!c)
    }
}

/// A document written once keeps no history list, and reads at any time answer as before.
@Suite struct ImplicitHistoryTests {
    static func doc(_ path: String, _ n: Int64, created: Int64, updated: Int64) -> Document {
        Document(path: path, fields: ["n": .integer(n)], createTime: Timestamp(seconds: created), updateTime: Timestamp(seconds: updated))
    }

    @Test func firstVersionIsImplicitAndReadTimesAnswerAsBefore() {
        var s = DatabaseState()
        s.put(Self.doc("c/a", 1, created: 10, updated: 10))
        #expect(s.history["c/a"] == nil)
        #expect(s.document("c/a", at: Timestamp(seconds: 9)) == nil)
        #expect(s.document("c/a", at: Timestamp(seconds: 10))?.fields["n"] == .integer(1))
        s.put(Self.doc("c/a", 2, created: 10, updated: 20))
        #expect(s.history["c/a"]?.count == 2)
        #expect(s.document("c/a", at: Timestamp(seconds: 15))?.fields["n"] == .integer(1))
        #expect(s.document("c/a", at: Timestamp(seconds: 20))?.fields["n"] == .integer(2))
        s.remove("c/a", at: Timestamp(seconds: 30))
        #expect(s.document("c/a", at: Timestamp(seconds: 25))?.fields["n"] == .integer(2))
        #expect(s.document("c/a", at: Timestamp(seconds: 30)) == nil)
        #expect(s.documentPaths(inCollection: "c", at: Timestamp(seconds: 25)) == ["c/a"])
    }

    @Test func aDeleteOfAFirstVersionKeepsItForOlderReads() {
        var s = DatabaseState()
        s.put(Self.doc("c/a", 1, created: 10, updated: 10))
        let undo = s.undoEntry("c/a")
        s.remove("c/a", at: Timestamp(seconds: 20))
        #expect(s.document("c/a", at: Timestamp(seconds: 15))?.fields["n"] == .integer(1))
        #expect(s.collectionIds(under: "", at: Timestamp(seconds: 15)) == ["c"])
        s.restore("c/a", undo)
        #expect(s.history["c/a"] == nil && s.docs["c/a"] != nil && s.collections["c"]?.count == 1)
    }
}

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
