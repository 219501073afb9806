import EmulatorCore
import EmulatorStore

/// One ListenResponse: most in proto3 JSON form; document changes (the bulk of an initial
/// snapshot, and what every listener of a collection receives on each commit) as their parts, so
/// a transport can encode the document once and share it (`FirestoreGRPCService` does).
enum ListenMessage {
    /// Any response, in proto3 JSON.
    case json(JSON)
    /// A `DocumentChange` of `document` for `targets` (and leaving `removed`).
    case documentChange(Document, targets: [Int32], removed: [Int32], shared: Bool)

    /// The proto3 JSON form (for transports that speak JSON, and for tests).
    func json(project: String, database: String) -> JSON {
        switch self {
        case .json(let j): return j
        case .documentChange(let d, let targets, let removed, _):
            var change: UTF8Dictionary<JSON> = [
                "document": d.json(project: project, database: database),
                "targetIds": .array(targets.map { .int(Int64($0)) }),
            ]
            if !removed.isEmpty { change["removedTargetIds"] = .array(removed.map { .int(Int64($0)) }) }
            return ["documentChange": .object(change)]
        }
    }
}

/// Store events → ListenResponse messages.
extension FirestoreListen {
    /// The responses for a batch of events, in order, handed to `send` a chunk at a time (at most
    /// `chunk` messages), so a large initial result is encoded and sent as it goes rather than held
    /// in wire form. Consecutive commits share one global NO_CHANGE at the latest read time (a
    /// client applies their changes in order either way, and a fast writer then costs a slow
    /// listener fewer snapshots).
    func responses(for events: [WatchEvent], chunk: Int = 256, send: ([ListenMessage]) async throws -> Void) async throws {
        guard let db = database else { return }
        var out: [ListenMessage] = []
        var pendingSnapshot: Timestamp?
        func flush() {
            if let t = pendingSnapshot { out.append(.json(snapshot(t))) }
            pendingSnapshot = nil
        }
        func drain(_ force: Bool = false) async throws {
            guard out.count >= chunk || (force && !out.isEmpty) else { return }
            try await send(out)
            out.removeAll(keepingCapacity: true)
        }
        for e in events {
            switch e {
            case .added(let t, let reset, let resumed, let docs, let removed, let count, let readTime):
                flush()
                out.append(.json(Self.targetChange("ADD", [t])))
                if reset { out.append(.json(Self.targetChange("RESET", [t]))) }
                for d in docs {
                    out.append(.documentChange(d, targets: [t], removed: [], shared: false))
                    try await drain()
                }
                let rt = JSON.string(readTime.rfc3339())
                for p in removed {
                    out.append(
                        .json([
                            "documentRemove": [
                                "document": .string(DocumentName.full(project: db.project, database: db.database, path: p)),
                                "removedTargetIds": [.int(Int64(t))], "readTime": rt,
                            ]
                        ]))
                }
                if resumed, state.withLock({ $0.expected[t] }) != nil {
                    out.append(.json(["filter": ["targetId": .int(Int64(t)), "count": .int(Int64(count))]]))
                }
                out.append(.json(Self.targetChange("CURRENT", [t], resumeToken: token(readTime), readTime: readTime)))
                out.append(.json(snapshot(readTime)))
            case .changed(let readTime, let deltas):
                let rt = JSON.string(readTime.rfc3339())
                for d in deltas {
                    let name = JSON.string(DocumentName.full(project: db.project, database: db.database, path: d.path))
                    let removed = JSON.array(d.removedTargets.map { .int(Int64($0)) })
                    if d.deleted {
                        out.append(.json(["documentDelete": ["document": name, "removedTargetIds": removed, "readTime": rt]]))
                    } else if !d.targets.isEmpty, let doc = d.document {
                        out.append(.documentChange(doc, targets: d.targets, removed: d.removedTargets, shared: true))
                    } else {
                        out.append(.json(["documentRemove": ["document": name, "removedTargetIds": removed, "readTime": rt]]))
                    }
                    try await drain()
                }
                pendingSnapshot = readTime
            case .failed(let t, let error):
                flush()
                out.append(
                    .json([
                        "targetChange": [
                            "targetChangeType": "REMOVE", "targetIds": [.int(Int64(t))],
                            "cause": ["code": .int(Int64(error.code.grpcNumber)), "message": .string(error.message)],
                        ]
                    ]))
            case .removed(let t):
                flush()
                out.append(.json(Self.targetChange("REMOVE", [t])))
            }
        }
        flush()
        try await drain(true)
    }

    /// A global NO_CHANGE: no target ids, the read time, and the resume token for it.
    func snapshot(_ readTime: Timestamp) -> JSON {
        ["targetChange": ["readTime": .string(readTime.rfc3339()), "resumeToken": token(readTime)]]
    }

    /// The opaque resume token for a read time (base64 in proto3 JSON).
    func token(_ readTime: Timestamp) -> JSON {
        .string(Base64.encode(WatchResumePoint(epoch: api.store.epoch, readTime: readTime).token))
    }

    /// A `TargetChange` of `type` for `ids`. CURRENT carries its read time, as production and
    /// Google's emulator send it (clients take the snapshot's version from the global NO_CHANGE).
    static func targetChange(_ type: String, _ ids: [Int32], resumeToken: JSON? = nil, readTime: Timestamp? = nil) -> JSON {
        var o: UTF8Dictionary<JSON> = ["targetChangeType": .string(type), "targetIds": .array(ids.map { .int(Int64($0)) })]
        if let resumeToken { o["resumeToken"] = resumeToken }
        if let readTime { o["readTime"] = .string(readTime.rfc3339()) }
        return ["targetChange": .object(o)]
    }
}
