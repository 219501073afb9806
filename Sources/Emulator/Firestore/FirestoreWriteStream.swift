import EmulatorCore
import EmulatorStore

/// The Write stream protocol of one stream (the mobile SDKs' only way to write), independent of
/// transport: WriteRequest messages (proto3 JSON) in, WriteResponse messages out.
///
/// 1. The handshake names the database and nothing else; the answer carries `streamId` and a
///    non-empty `streamToken`, and no results.
/// 2. Each later request is one atomic batch through the same commit path as every other write
///    (rules, transforms, `verify`, triggers, journal); its answer carries a new token, one result
///    per write and the commit time, in request order.
/// 3. A request without writes (the teardown the SDKs send before half-closing) gets no answer.
/// An error ends the stream with its status; a batch that failed changed nothing. A fault rule
/// for `write` ends it too (`FirestoreAPI.checkStreamFault`), not one for `commit`.
///
/// Used by the stream's one reading task; the counter is behind a `Mutex` all the same, since the
/// type is shared with the task that owns the call.
final class FirestoreWriteStream: Sendable {
    /// The stream's database, id and token sequence.
    struct State {
        var db: DatabaseRef?
        var streamId = ""
        var sequence: UInt64 = 0
    }

    /// The commit path.
    let api: FirestoreAPI
    /// The stream's credential (`authorization` metadata).
    let context: FirestoreCallContext
    private let state = Mutex(State())

    /// Creates the protocol state of a new stream.
    init(api: FirestoreAPI, context: FirestoreCallContext) {
        self.api = api
        self.context = context
    }

    /// The stream's database, once the handshake named it.
    var database: DatabaseRef? { state.withLock { $0.db } }

    /// Handles one WriteRequest; returns the response to send, if any. A fault rule for `write`
    /// that fires as the request arrives is thrown before it is handled (every transport).
    func handle(_ request: JSON) throws -> JSON? {
        try api.checkStreamFault(.write, database ?? (try? FirestoreAPI.database(request["database"], field: "database")))
        let r = try FirestoreAPI.object(request, "Write")
        let writes = r["writes"]?.arrayValue ?? []
        guard let db = database else {
            let db = try FirestoreAPI.database(r["database"], field: "database")
            guard writes.isEmpty else {
                throw EmulatorError.invalidArgument("The first WriteRequest is the handshake: it names the database and carries no writes.")
            }
            let id = api.services.projects.environment(for: db.project).ids.documentID()
            let token = state.withLock { s -> [UInt8] in
                s.db = db
                s.streamId = id
                return Self.token(&s)
            }
            return ["streamId": .string(id), "streamToken": .string(Base64.encode(token))]
        }
        if let d = r["database"], !d.isNull, try FirestoreAPI.database(d, field: "database") != db {
            throw EmulatorError.invalidArgument(
                "A Write stream serves one database; it started with projects/\(db.project)/databases/\(db.database).")
        }
        guard !writes.isEmpty else { return nil }
        let result = try api.commit(["database": .string("projects/\(db.project)/databases/\(db.database)"), "writes": .array(writes)], context)
        let token = state.withLock { Self.token(&$0) }
        var out = result.objectValue ?? [:]
        out["streamToken"] = .string(Base64.encode(token))
        return .object(out)
    }

    /// The next stream token: the stream's sequence number (never empty; clients echo it back).
    private static func token(_ s: inout State) -> [UInt8] {
        s.sequence += 1
        var out: [UInt8] = [0x77]  // "w"
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: s.sequence >> UInt64(shift))) }
        return out
    }
}
