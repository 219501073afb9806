import EmulatorCore
import EmulatorProtobuf
import EmulatorStore
import Testing

@testable import Emulator

/// The per-version encoding cache (`DocumentEncodings`, `DocumentReply`): cached bytes are the
/// fresh encoding's bytes, a changed or new version is never answered from an old cache, a mask
/// bypasses it, and another database's name is not served from it.
@Suite struct DocumentReplyTests {
    static let db = DatabaseRef(project: "p", database: "(default)")

    /// One field of every value type (and the awkward doubles and nesting).
    static let everyType: [String: Value] = [
        "null": .null, "bool": .boolean(true), "int": .integer(-9_007_199_254_740_993), "double": .double(0.25),
        "nan": .double(.nan), "inf": .double(-.infinity), "negzero": .double(-0.0),
        "time": .timestamp(Timestamp(seconds: 1_800_000_000, nanos: 123_456_000)), "string": .string("é \u{1F600} \"q\"\n"),
        "bytes": .bytes([0, 255, 7]), "ref": .reference("projects/p/databases/(default)/documents/a/b"),
        "geo": .geoPoint(latitude: -12.5, longitude: 170), "array": .array([.integer(1), .string("x"), .null]),
        "map": .map(["k": .map(["deep": .array([.boolean(false)])]), "": .string("empty key")]),
        "emptyArray": .array([]), "emptyMap": .map([:]),
    ]

    static func document(_ fields: [String: Value] = everyType, path: String = "tasks/t1") -> Document {
        Document(
            path: path, fields: fields, createTime: Timestamp(seconds: 1_800_000_000), updateTime: Timestamp(seconds: 1_800_000_001, nanos: 5000))
    }

    /// Every value type alone and all together: the first (made) and second (cached) answers are
    /// the fresh encodings, byte for byte.
    @Test(arguments: Array(everyType.keys).sorted() + ["*"])
    func cachedBytesAreTheFreshEncoding(_ field: String) throws {
        let doc = Self.document(field == "*" ? Self.everyType : [field: Self.everyType[field] ?? .null])
        let freshJSON = doc.json(project: "p", database: "(default)").serializedBytes()
        let freshProto = try ProtoJSON.encode(doc.json(project: "p", database: "(default)"), as: FirestoreSchemas.document)
        let reply = DocumentReply.version(doc, Self.db)
        #expect(doc.encodings?.cached(.restJSON, project: "p", database: "(default)") == nil)
        for _ in 0..<2 {
            #expect(reply.restJSON() == freshJSON)
            #expect(try reply.protobuf() == freshProto)
        }
        #expect(doc.encodings?.cached(.restJSON, project: "p", database: "(default)") == freshJSON)
        #expect(doc.encodings?.cached(.protobuf, project: "p", database: "(default)") == freshProto)
    }

    /// A copy shares its version's cache; changing a copy drops it, so the changed value is encoded
    /// fresh and the original keeps its own bytes.
    @Test func aChangedValueIsNeverAnsweredFromTheOldCache() throws {
        let doc = Self.document(["n": .integer(1)])
        let old = DocumentReply.version(doc, Self.db).restJSON()
        var changed = doc
        #expect(changed.encodings === doc.encodings)
        changed.fields["n"] = .integer(2)
        #expect(changed.encodings == nil)
        let new = DocumentReply.version(changed, Self.db).restJSON()
        #expect(new == changed.json(project: "p", database: "(default)").serializedBytes() && new != old)
        var touched = doc
        touched.updateTime = Timestamp(seconds: 1_900_000_000)
        #expect(touched.encodings == nil)
        #expect(DocumentReply.version(doc, Self.db).restJSON() == old)
    }

    /// Bytes made for one database's name are not served for another's.
    @Test func anotherDatabaseIsEncodedFresh() throws {
        let doc = Self.document(["n": .integer(1)])
        _ = DocumentReply.version(doc, Self.db).restJSON()
        let other = DatabaseRef(project: "q", database: "named")
        let bytes = DocumentReply.version(doc, other).restJSON()
        #expect(bytes == doc.json(project: "q", database: "named").serializedBytes())
        #expect(
            try DocumentReply.version(doc, other).protobuf()
                == ProtoJSON.encode(doc.json(project: "q", database: "named"), as: FirestoreSchemas.document))
    }
}
