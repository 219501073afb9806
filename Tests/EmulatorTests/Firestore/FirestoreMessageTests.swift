import EmulatorCore
import EmulatorProtobuf
import EmulatorStore
import Testing

@testable import Emulator

/// Streaming read messages with a stored document (`FirestoreMessage.document`): the REST bytes
/// are what serializing the whole JSON tree writes, and the protobuf bytes are the generic
/// encoding's, with the document from the version's cache.
@Suite struct FirestoreMessageTests {
    static let db = DatabaseRef(project: "p", database: "(default)")
    static let readTime = JSON.string(Timestamp(seconds: 1_800_000_002, nanos: 7000).rfc3339())

    static func schema(_ method: String) throws -> MessageSchema {
        try #require(FirestoreSchemas.method(path: "/google.firestore.v1.Firestore/\(method)")).response
    }

    static let messages: [(String, String, UTF8Dictionary<JSON>)] = [
        ("RunQuery", "document", ["readTime": readTime]),
        ("RunQuery", "document", ["readTime": readTime, "skippedResults": 3, "done": true]),
        ("BatchGetDocuments", "found", ["readTime": readTime]),
        ("BatchGetDocuments", "found", [:]),
    ]

    @Test(arguments: 0..<messages.count)
    func splicedBytesAreTheGenericEncoding(_ index: Int) throws {
        let (method, member, rest) = Self.messages[index]
        let doc = DocumentReplyTests.document()
        let schema = try Self.schema(method)
        for mask in [nil, [try FieldPath(parsing: "map.k")]] as [FieldMask?] {
            let message = FirestoreMessage.document(member: member, DocumentReply(doc, Self.db, mask: mask), rest: rest)
            var tree = rest
            tree[member] = doc.json(project: "p", database: "(default)", mask: mask)
            for _ in 0..<2 {  // made, then from the cache
                #expect(message.restJSON() == JSON.object(tree).serializedBytes())
                #expect(try message.protobuf(as: schema) == ProtoJSON.encode(.object(tree), as: schema))
            }
        }
        #expect(doc.encodings?.cached(.restJSON, project: "p", database: "(default)") != nil)
    }

    @Test func aStreamIsTheJSONArray() throws {
        let doc = DocumentReplyTests.document(["n": .integer(1)])
        let messages: [FirestoreMessage] = [
            .json(["transaction": "dHg=", "readTime": Self.readTime]),
            .document(member: "document", DocumentReply(doc, Self.db, mask: nil), rest: ["readTime": Self.readTime, "done": true]),
        ]
        #expect(FirestoreRESTRoutes.restArray(messages) == JSON.array(messages.map(\.json)).serializedBytes())
        #expect(FirestoreRESTRoutes.restArray([]) == JSON.array([]).serializedBytes())
    }

    /// ListDocuments' page (`FirestoreMessage.documents`): stored versions, masked ones and missing
    /// names, with and without a next page token, as the JSON tree and the generic encoding write them.
    @Test func aPageOfDocumentsIsTheGenericEncoding() throws {
        let schema = try Self.schema("ListDocuments")
        let a = DocumentReplyTests.document(["n": .integer(1)]), b = DocumentReplyTests.document()
        let missing = DocumentReply.json(["name": "projects/p/databases/(default)/documents/c/gone"])
        for rest in [[:], ["nextPageToken": "dG9rZW4="]] as [UTF8Dictionary<JSON>] {
            for mask in [nil, [try FieldPath(parsing: "map.k")]] as [FieldMask?] {
                for docs in [[DocumentReply(a, Self.db, mask: mask), missing, DocumentReply(b, Self.db, mask: mask)], []] {
                    let message = FirestoreMessage.documents(member: "documents", docs, rest: rest)
                    var tree = rest
                    tree["documents"] = .array(docs.map(\.json))
                    for _ in 0..<2 {  // made, then from the cache
                        #expect(message.restJSON() == JSON.object(tree).serializedBytes())
                        #expect(try message.protobuf(as: schema) == ProtoJSON.encode(.object(tree), as: schema))
                    }
                }
            }
        }
    }
}
