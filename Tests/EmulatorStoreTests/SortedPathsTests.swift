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
