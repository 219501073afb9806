import EmulatorCore
import Testing

@testable import EmulatorStore

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
