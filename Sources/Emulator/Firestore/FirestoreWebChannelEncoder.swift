import EmulatorCore
import EmulatorHTTP
import EmulatorStore

/// Encodes ListenResponses as WebChannel array payloads (`[<ListenResponse JSON>]`, ASCII text).
/// The JSON of a document a commit changed is shared by every session listening to it (one
/// serialization per commit, not one per listener), as `ListenEncoder` shares protobuf bytes for
/// gRPC: with a hundred listeners on a collection, serializing is what fan-out would otherwise
/// spend its time on.
///
/// The caches are behind `Mutex`es and bounded: documents keyed by name and update time (a
/// document's JSON never changes for a given update time), other messages by their JSON (the
/// global NO_CHANGE of a commit is the same for every listener of the database).
final class FirestoreWebChannelEncoder: Sendable {
    private let cache = Mutex<[String: [UInt8]]>([:])
    private let messages = Mutex<[JSON: [UInt8]]>([:])
    /// Cached documents kept at most (the cache is dropped whole when full: recent commits refill it).
    static let capacity = 4096
    /// Cached other messages kept at most (target changes, global snapshots), dropped whole when full.
    static let messageCapacity = 256

    /// The array payload of one ListenResponse: `[<message>]` as ASCII JSON text.
    func payload(_ message: ListenMessage, project: String, database: String) -> [UInt8] {
        switch message {
        case .json(let j):
            // The same message goes to every listener of a commit (its global NO_CHANGE): serialize it once.
            if let hit = messages.withLock({ $0[j] }) { return hit }
            let bytes = WebChannelFraming.ascii(JSON.array([j]).serializedBytes())
            messages.withLock { c in
                if c.count >= Self.messageCapacity { c.removeAll(keepingCapacity: true) }
                c[j] = bytes
            }
            return bytes
        case .documentChange(let doc, let targets, let removed, let shared):
            let document =
                shared
                ? sharedDocument(doc, project: project, database: database)
                : WebChannelFraming.ascii(doc.json(project: project, database: database).serializedBytes())
            var out: [UInt8] = []
            out.reserveCapacity(document.count + 64 + 8 * (targets.count + removed.count))
            out.append(contentsOf: #"[{"documentChange":{"document":"#.utf8)
            out.append(contentsOf: document)
            if !removed.isEmpty { out.append(contentsOf: ",\"removedTargetIds\":\(Self.list(removed))".utf8) }
            out.append(contentsOf: ",\"targetIds\":\(Self.list(targets))}}]".utf8)
            return out
        }
    }

    private static func list(_ ids: [Int32]) -> String { "[" + ids.map(String.init).joined(separator: ",") + "]" }

    private func sharedDocument(_ doc: Document, project: String, database: String) -> [UInt8] {
        let key = "\(project)\u{0}\(database)\u{0}\(doc.path)\u{0}\(doc.updateTime.microseconds)"
        if let hit = cache.withLock({ $0[key] }) { return hit }
        let bytes = WebChannelFraming.ascii(doc.json(project: project, database: database).serializedBytes())
        cache.withLock { c in
            if c.count >= Self.capacity { c.removeAll(keepingCapacity: true) }
            c[key] = bytes
        }
        return bytes
    }
}
