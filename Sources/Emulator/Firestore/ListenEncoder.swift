import EmulatorCore
import EmulatorProtobuf
import EmulatorStore

/// Encodes ListenResponse messages for gRPC. A document change is assembled around the document's
/// protobuf bytes, and the bytes of a document a commit changed are shared by every listener of it
/// (one encoding per commit, not one per listener): with a hundred listeners on a collection, the
/// encoding is what fan-out would otherwise spend its time on.
///
/// A stored version's bytes live in its own cache (`DocumentEncodings`, shared with GetDocument);
/// for a document value without one, this encoder's cache is behind a `Mutex`, bounded, and keyed
/// by name and update time (a document's bytes never change for a given update time).
final class ListenEncoder: Sendable {
    private let cache = Mutex<[String: [UInt8]]>([:])
    /// Cached documents kept at most (the cache is dropped whole when full: recent commits refill it).
    static let capacity = 4096

    /// The protobuf bytes of one ListenResponse.
    func encode(_ message: ListenMessage, project: String, database: String) throws -> [UInt8] {
        switch message {
        case .json(let j):
            return try ProtoJSON.encode(j, as: FirestoreSchemas.listenResponse)
        case .documentChange(let doc, let targets, let removed, let shared):
            // A stored version's bytes come from its own cache (`DocumentEncodings`), shared with
            // GetDocument and every listener; a shared value without one from this encoder's
            // cache; anything else is encoded fresh (`DocumentReply.protobuf` without a cache).
            let document =
                shared && doc.encodings == nil
                ? try sharedDocument(doc, project: project, database: database)
                : try DocumentReply.protobuf(doc, DatabaseRef(project: project, database: database))
            // DocumentChange {document = 1, target_ids = 5 (packed), removed_target_ids = 6 (packed)}
            var change: [UInt8] = []
            change.reserveCapacity(document.count + 16 + 5 * (targets.count + removed.count))
            Self.lengthDelimited(1, document, into: &change)
            if !targets.isEmpty { Self.lengthDelimited(5, Self.packed(targets), into: &change) }
            if !removed.isEmpty { Self.lengthDelimited(6, Self.packed(removed), into: &change) }
            // ListenResponse {document_change = 3}
            var out: [UInt8] = []
            out.reserveCapacity(change.count + 6)
            Self.lengthDelimited(3, change, into: &out)
            return out
        }
    }

    private func sharedDocument(_ doc: Document, project: String, database: String) throws -> [UInt8] {
        let key = "\(project)\u{0}\(database)\u{0}\(doc.path)\u{0}\(doc.updateTime.microseconds)"
        if let hit = cache.withLock({ $0[key] }) { return hit }
        let bytes = try ProtoJSON.encode(doc.json(project: project, database: database), as: FirestoreSchemas.document)
        cache.withLock { c in
            if c.count >= Self.capacity { c.removeAll(keepingCapacity: true) }
            c[key] = bytes
        }
        return bytes
    }

    /// Appends a base-128 varint.
    static func varint(_ value: UInt64, into out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    /// Appends a length-delimited field (key, length, payload).
    static func lengthDelimited(_ field: Int, _ payload: [UInt8], into out: inout [UInt8]) {
        varint(UInt64(field << 3 | 2), into: &out)
        varint(UInt64(payload.count), into: &out)
        out.append(contentsOf: payload)
    }

    /// Packed int32s (negative ones as 10-byte varints, as proto3 writes them).
    static func packed(_ values: [Int32]) -> [UInt8] {
        var out: [UInt8] = []
        for v in values { varint(UInt64(bitPattern: Int64(v)), into: &out) }
        return out
    }
}
