import EmulatorCore
import Testing

@testable import EmulatorStore

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
