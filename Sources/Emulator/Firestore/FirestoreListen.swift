import EmulatorCore
import EmulatorStore

/// The Listen protocol of one stream, independent of transport: ListenRequest messages (proto3
/// JSON) in, ListenResponse messages out. Targets are added to and removed from the store's
/// change feed; store events become the response sequence real clients expect
/// (../docs/grpc.md, "Listen"): per added target exactly one ADD, then RESET when a resume point
/// could not be honoured, the documents, CURRENT, and a global NO_CHANGE whose read time marks one
/// consistent snapshot of every target of the stream; per commit the document changes, deletes and
/// removes, then one global NO_CHANGE.
///
/// Requests are handled by the stream's reading task and events encoded by its sending task, so
/// the little shared state (database, active targets, expected counts) is behind a `Mutex`.
final class FirestoreListen: Sendable {
    /// The stream's database, its active targets and their expected counts.
    struct State {
        var db: DatabaseRef?
        var active: Set<Int32> = []
        var expected: [Int32: Int] = [:]
        var nextAssigned: Int32 = 1 << 30
    }

    /// The store and the caller resolution.
    /// Targets one stream may hold at once (mobile SDKs use a few dozen; each target keeps its
    /// result's document names, so a hostile client is bounded).
    static let maxTargets = 1000

    let api: FirestoreAPI
    /// The stream's credential (`authorization` metadata).
    let context: FirestoreCallContext
    /// The queue the store delivers this stream's events into.
    let session = ListenSession()
    /// Shared between the reading and the sending task.
    let state = Mutex(State())

    /// Creates the protocol state of a new stream.
    init(api: FirestoreAPI, context: FirestoreCallContext) {
        self.api = api
        self.context = context
    }

    /// The stream's database, once the first request named it.
    var database: DatabaseRef? { state.withLock { $0.db } }

    /// Handles one ListenRequest. Throws only for errors that end the stream (no database, another
    /// database, a target id already in use); a target that cannot be added is answered with a
    /// REMOVE carrying the cause, as production does. After the request, a fault rule for `listen`
    /// that fires now is thrown (every transport ends the stream with it).
    func handle(_ request: JSON) throws {
        try apply(request)
        try api.checkStreamFault(.listen, database)
    }

    private func apply(_ request: JSON) throws {
        let r = try FirestoreAPI.object(request, "Listen")
        if let d = r["database"], !d.isNull {
            let ref = try FirestoreAPI.database(d, field: "database")
            try state.withLock { s throws(EmulatorError) in
                if let db = s.db, db != ref {
                    throw EmulatorError.invalidArgument(
                        "A Listen stream serves one database; it started with projects/\(db.project)/databases/\(db.database).")
                }
                s.db = ref
            }
        }
        guard let db = database else { throw EmulatorError.invalidArgument("The first ListenRequest must name the database.") }
        if let add = r["addTarget"], !add.isNull {
            try addTarget(add, db)
        } else if let rm = r["removeTarget"], !rm.isNull {
            guard let id = try FirestoreAPI.int32(rm, field: "removeTarget") else { return }
            state.withLock { s in
                s.active.remove(Int32(id))
                s.expected[Int32(id)] = nil
            }
            if !api.store.removeWatch(project: db.project, database: db.database, sink: session, target: Int32(id)) {
                session.deliver(.removed(target: Int32(id)))  // one REMOVE per remove_target, known or not
            }
        }
    }

    private func addTarget(_ t: JSON, _ db: DatabaseRef) throws {
        let requested = Int32(try FirestoreAPI.int32(t["targetId"], field: "addTarget.targetId") ?? 0)
        let once = t["once"]?.boolValue ?? false
        // The id to use, or nil when the stream already holds as many targets as it may.
        let assigned = try state.withLock { s throws(EmulatorError) -> Int32? in
            var id = requested
            if id == 0 {  // the server assigns an id and names it in the ADD
                while s.active.contains(s.nextAssigned) { s.nextAssigned += 1 }
                id = s.nextAssigned
                s.nextAssigned += 1
            }
            guard !s.active.contains(id) else {
                throw EmulatorError.invalidArgument("Target id \(id) is already in use on this Listen stream.")
            }
            guard s.active.count < Self.maxTargets else { return nil }
            if !once { s.active.insert(id) }
            if let n = t["expectedCount"], let c = n.intValue { s.expected[id] = Int(c) }
            return id
        }
        guard let id = assigned else {
            session.deliver(
                .failed(
                    target: requested,
                    EmulatorError(
                        .resourceExhausted,
                        "A Listen stream may hold at most \(Self.maxTargets) targets; remove some or open another stream.")))
            return
        }
        do {
            let spec = try Self.spec(t, db)
            if case .query(_, let query) = spec { try api.services.indexes.check(project: db.project, database: db.database, query: query) }
            var resume: WatchResumePoint?
            if let token = try FirestoreAPI.bytes(t["resumeToken"], field: "resumeToken"), !token.isEmpty {
                // A token from another emulator process (or anything unreadable) cannot be honoured: start over.
                resume = WatchResumePoint(token: token) ?? WatchResumePoint(epoch: api.store.epoch &+ 1, readTime: Timestamp(seconds: 0))
            } else if let rt = try FirestoreRequest.timestamp(t["readTime"], "readTime") {
                resume = WatchResumePoint(epoch: api.store.epoch, readTime: rt.truncatedToMicroseconds)
            }
            try api.store.addWatch(
                project: db.project, database: db.database, sink: session, target: id, spec: spec, resume: resume,
                once: once, caller: try api.caller(context, db))
        } catch {
            state.withLock { s in
                s.active.remove(id)
                s.expected[id] = nil
            }
            let e = (error as? EmulatorError) ?? EmulatorError.internal("Internal error encountered.")
            session.deliver(.failed(target: id, e))
        }
    }

    /// The watch spec of a `Target`: a query (`parent` + `structuredQuery`) or documents by name.
    static func spec(_ t: JSON, _ db: DatabaseRef) throws -> WatchSpec {
        if let q = t["query"], !q.isNull {
            let (ref, parent) = try FirestoreAPI.parent(q["parent"], field: "query.parent")
            guard ref == db else { throw EmulatorError.invalidArgument("The target's parent is not in this stream's database.") }
            guard let sq = q["structuredQuery"] else { throw EmulatorError.invalidArgument("A query target needs a structuredQuery.") }
            return .query(parent: parent, try StructuredQuery(json: sq))
        }
        if let d = t["documents"], !d.isNull {
            let names = d["documents"]?.arrayValue ?? []
            guard !names.isEmpty else { throw EmulatorError.invalidArgument("A documents target needs at least one document name.") }
            return .documents(
                try names.map { n in
                    let (ref, path) = try FirestoreAPI.documentName(n, field: "documents.documents")
                    guard ref == db else { throw EmulatorError.invalidArgument("Document \(n.stringValue ?? "") is not in this stream's database.") }
                    return path
                })
        }
        throw EmulatorError.invalidArgument("A target needs a query or documents.")
    }

    /// Forgets every target (the stream ended).
    func close() {
        session.close()
        if let db = database { api.store.removeWatches(project: db.project, database: db.database, sink: session) }
    }

    /// A heartbeat: a global NO_CHANGE with a fresh read time, when the stream has targets (idle
    /// streams would otherwise be recycled by some clients).
    func heartbeat() -> JSON? {
        guard let db = database, state.withLock({ !$0.active.isEmpty }) else { return nil }
        let t = api.store.reserveReadTime(project: db.project, database: db.database)
        return snapshot(t)
    }
}
