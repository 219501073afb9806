import EmulatorCore
import Testing

@testable import EmulatorStore

/// `FieldMask` projects as applying each path in turn did (get it, set it into the result), for
/// overlapping paths, missing fields, paths through non-maps, empty maps and `__name__`.
struct FieldMaskTests {
    /// The per-path projection the mask replaced: the reference.
    static func reference(_ paths: [FieldPath], _ fields: FieldMap) -> FieldMap {
        var f = FieldMap()
        for p in paths where !p.isName { if let v = p.get(in: fields) { p.set(v, in: &f) } }
        return f
    }

    static let doc: FieldMap = [
        "a": .map(["b": .integer(1), "c": .map(["d": .string("x"), "e": .null]), "empty": .map([:])]),
        "n": .integer(7),
        "s": .string("t"),
        "arr": .array([.map(["k": .integer(1)])]),
        "dot.ted": .boolean(true),
        "empty": .map([:]),
    ]

    static let masks: [[String]] = [
        [], ["a"], ["a.b"], ["a.b", "a"], ["a", "a.b"], ["a.c.d", "n"], ["a.c.zz"], ["n.x"], ["arr.k"], ["`dot.ted`"],
        ["empty"], ["a.empty"], ["a.empty.x"], ["missing", "a.missing.deep"], ["__name__"], ["__name__", "s"],
        ["a.c", "a.c.d", "a.b", "s", "arr", "empty"],
    ]

    @Test(arguments: masks)
    func projectsAsEachPathInTurnDid(_ texts: [String]) throws {
        let paths = try texts.map { try FieldPath(parsing: $0) }
        #expect(FieldMask(paths).apply(to: Self.doc) == Self.reference(paths, Self.doc), "\(texts)")
    }

    /// Many paths against a small document, and one path against a wide one: either way only the
    /// smaller side is walked, and the result is the same as path by path.
    @Test func wideMasksAndWideDocuments() throws {
        let paths = try (0..<4000).map { try FieldPath(parsing: "f\($0)") } + [try FieldPath(parsing: "n")]
        #expect(FieldMask(paths).apply(to: Self.doc) == ["n": .integer(7)])
        let wide = FieldMap((0..<4000).map { ("f\($0)", Value.integer(Int64($0))) })
        let one = [try FieldPath(parsing: "f3999")]
        #expect(FieldMask(one).apply(to: wide) == Self.reference(one, wide))
        #expect(FieldMask(paths).apply(to: wide) == wide)
    }
}
