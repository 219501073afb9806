import Testing

@testable import EmulatorCore

/// A copy-on-write value that counts the copies its mutations had to make (a mutation of a
/// shared buffer copies it, as the standard collections do).
private struct CopyCounting {
    final class Buffer {
        var items: [Int] = []
    }
    var buffer = Buffer()
    var copies = 0

    mutating func append(_ x: Int) {
        if !isKnownUniquelyReferenced(&buffer) {
            let fresh = Buffer()
            fresh.items = buffer.items
            buffer = fresh
            copies += 1
        }
        buffer.items.append(x)
    }
}

/// Members of a `UTF8Dictionary` are edited in place: an optional-chained mutation through one
/// or two levels copies nothing (the store's equality index is edited this way on every write; a
/// get/set pair copied a whole field's index each time).
@Suite struct UTF8DictionaryTests {
    @Test func optionalChainedMutationsEditInPlace() {
        var flat: UTF8Dictionary<CopyCounting> = ["a": CopyCounting()]
        flat["a"]?.append(1)
        flat["a"]?.append(2)
        #expect(flat["a"]?.copies == 0)
        #expect(flat["a"]?.buffer.items == [1, 2])

        var nested: UTF8Dictionary<UTF8Dictionary<CopyCounting>> = ["x": ["y": CopyCounting()]]
        nested["x"]?["y"]?.append(3)
        #expect(nested["x"]?["y"]?.copies == 0)
        #expect(nested["x"]?["y"]?.buffer.items == [3])
        nested["x"]?["missing"]?.append(4)  // nothing there: nothing is added
        #expect(nested["x"]?.count == 1)
    }

    /// A shared member is still copied before it changes (value semantics hold).
    @Test func aSharedMemberIsCopiedBeforeItChanges() {
        var d: UTF8Dictionary<CopyCounting> = ["a": CopyCounting()]
        let kept = d["a"]
        d["a"]?.append(1)
        #expect(d["a"]?.copies == 1)
        #expect(kept?.buffer.items == [])
    }
}
