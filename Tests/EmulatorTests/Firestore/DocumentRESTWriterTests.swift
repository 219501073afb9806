import EmulatorCore
import EmulatorStore
import Testing

@testable import Emulator

/// The REST bytes written straight from a document are the bytes of its JSON tree serialized
/// (`Document.json` then `serializedBytes`): for every value type, nesting, awkward doubles,
/// names that need escaping or sort by their bytes, and no fields at all.
@Suite struct DocumentRESTWriterTests {
    static func tree(_ d: Document, _ project: String = "p", _ database: String = "(default)") -> [UInt8] {
        d.json(project: project, database: database).serializedBytes()
    }

    @Test func everyTypeAndNoFieldsMatchTheTree() {
        let doc = DocumentReplyTests.document()
        #expect(DocumentRESTWriter.bytes(doc, project: "p", database: "(default)") == Self.tree(doc))
        let empty = DocumentReplyTests.document([:], path: "a/b/c/d")
        #expect(DocumentRESTWriter.bytes(empty, project: "proj-1", database: "db") == Self.tree(empty, "proj-1", "db"))
    }

    /// Random documents from a seeded generator: values of every kind nested up to four levels,
    /// keys with quotes, control characters, non-ASCII and differing normalisations.
    @Test func randomDocumentsMatchTheTree() {
        let g = IDGenerator(seed: 29)
        let keys = ["a", "B", "", "é", "e\u{301}", "q\"uote", "back\\slash", "tab\t", "\u{01}", "😀", "__name", "z9", "10", "9"]
        let doubles: [Double] = [0, -0.0, 1, -1.5, 0.1, 1e300, -2.5e-300, .nan, .infinity, -.infinity, 1e15, 123456789.125, .leastNonzeroMagnitude]
        func pick<T>(_ xs: [T]) -> T { xs[Int(g.next(below: UInt64(xs.count)))] }
        func value(_ depth: Int) -> Value {
            switch g.next(below: depth > 3 ? 9 : 11) {
            case 0: return .null
            case 1: return .boolean(g.next(below: 2) == 0)
            case 2: return .integer(Int64(bitPattern: g.next()) >> Int64(g.next(below: 64)))
            case 3: return .double(pick(doubles))
            case 4: return .timestamp(Timestamp(seconds: Int64(g.next(below: 253_402_300_799)), nanos: Int32(g.next(below: 1_000_000)) * 1000))
            case 5: return .string(pick(keys) + pick(keys))
            case 6: return .bytes(g.bytes(Int(g.next(below: 7))))
            case 7: return .reference("projects/p/databases/(default)/documents/c/" + g.documentID())
            case 8: return .geoPoint(latitude: pick(doubles.filter { abs($0) <= 90 }), longitude: pick(doubles.filter { abs($0) <= 180 }))
            case 9: return .array((0..<Int(g.next(below: 4))).map { _ in value(depth + 1) })
            default: return .map(map(depth + 1))
            }
        }
        func map(_ depth: Int) -> FieldMap {
            var m = FieldMap()
            for _ in 0..<Int(g.next(below: 5)) { m[pick(keys)] = value(depth) }
            return m
        }
        for k in 0..<300 {
            let doc = Document(
                path: "c/d\(k)", fields: map(0), createTime: Timestamp(seconds: Int64(k), nanos: Int32(k) * 1000),
                updateTime: Timestamp(seconds: Int64(k) + 1_800_000_000, nanos: Int32(k % 7) * 1_000_000))
            #expect(DocumentRESTWriter.bytes(doc, project: "p", database: "(default)") == Self.tree(doc))
        }
    }
}
