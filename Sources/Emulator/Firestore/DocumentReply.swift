import EmulatorCore
import EmulatorProtobuf
import EmulatorStore

/// A response that is one document: a stored version, whose REST JSON and protobuf encodings are
/// made once per version and kept with it (`DocumentEncodings`), or a JSON tree made for this
/// request alone (a masked read, which must not reuse the full document's bytes).
enum DocumentReply: Sendable {
    /// A stored version, named in `DatabaseRef`'s database.
    case version(Document, DatabaseRef)
    /// A document message built for this request.
    case json(JSON)

    /// `d` as a reply: the stored version itself, or with a `mask` (a field mask, a query's
    /// projection) the JSON of the masked fields, made for this request.
    init(_ d: Document, _ db: DatabaseRef, mask: FieldMask?) {
        if let mask {
            self = .json(d.json(project: db.project, database: db.database, mask: mask))
        } else {
            self = .version(d, db)
        }
    }

    /// The proto3 JSON tree (for callers that inspect or embed it).
    var json: JSON {
        switch self {
        case .version(let d, let db): d.json(project: db.project, database: db.database)
        case .json(let j): j
        }
    }

    /// The REST body: compact JSON with sorted keys, exactly as `JSON.serializedBytes()` writes
    /// `json`.
    func restJSON() -> [UInt8] {
        switch self {
        case .version(let d, let db): Self.restJSON(d, db)
        case .json(let j): j.serializedBytes()
        }
    }

    /// The protobuf `google.firestore.v1.Document` message, exactly as `ProtoJSON.encode` writes
    /// `json`.
    func protobuf() throws -> [UInt8] {
        switch self {
        case .version(let d, let db): try Self.protobuf(d, db)
        case .json(let j): try ProtoJSON.encode(j, as: FirestoreSchemas.document)
        }
    }

    /// `d`'s REST JSON, from its cache when made before.
    static func restJSON(_ d: Document, _ db: DatabaseRef) -> [UInt8] {
        let make = { DocumentRESTWriter.bytes(d, project: db.project, database: db.database) }
        guard let cache = d.encodings else { return make() }
        return cache.bytes(.restJSON, project: db.project, database: db.database, make: make)
    }

    /// `d`'s protobuf bytes, from its cache when made before.
    static func protobuf(_ d: Document, _ db: DatabaseRef) throws -> [UInt8] {
        let make = { () throws(ProtobufError) -> [UInt8] in
            try ProtoJSON.encode(d.json(project: db.project, database: db.database), as: FirestoreSchemas.document)
        }
        guard let cache = d.encodings else { return try make() }
        return try cache.bytes(.protobuf, project: db.project, database: db.database, make: make)
    }
}
