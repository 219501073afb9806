import Testing

@testable import EmulatorCore

/// A value whose reference count shows whether the dictionary holding it was copied.
private final class Token {}

/// A member that can tell whether it is the only holder of its token.
private struct Probe {
    var token = Token()
    mutating func isUnique() -> Bool { isKnownUniquelyReferenced(&token) }
}

@Suite struct UTF8DictionaryTests {
    /// Mutating a member through `dict[key]?...` edits it in place. Without a `_modify` accessor the
    /// optional subscript reads a copy and writes it back, so every nested edit copied the whole
    /// inner dictionary: the store's equality index (collection → field → value → paths) paid
    /// O(collection size) per write, a 1-update commit to a 100,000-document collection 300 ms.
    @Test func nestedMutationThroughTheOptionalSubscriptDoesNotCopy() {
        var outer = UTF8Dictionary<UTF8Dictionary<Probe>>()
        outer["a", default: [:]]["b"] = Probe()
        #expect(outer["a"]?["b"]?.isUnique() == true)
    }

    @Test func optionalSubscriptStillInsertsAndRemoves() {
        var d = UTF8Dictionary<Int>()
        d["x"] = 1
        d["x"]? += 1
        #expect(d["x"] == 2)
        d["x"] = nil
        #expect(d["x"] == nil)
        #expect(d.isEmpty)
    }
}
