import EmulatorCore
import EmulatorStore

/// Transactions and batched writes: BeginTransaction, Commit, Rollback, BatchWrite.
extension FirestoreAPI {
    /// BeginTransaction: `{database, options: {readOnly: {readTime} | readWrite}}` → `{transaction}`.
    func beginTransaction(_ request: JSON, _ context: FirestoreCallContext) throws -> JSON {
        let r = try Self.object(request, "BeginTransaction")
        let db = try Self.database(r["database"], field: "database")
        var readOnly = false
        var readTime: Timestamp?
        if case .object(let opts)? = r["options"], let ro = opts["readOnly"], !ro.isNull {
            readOnly = true
            readTime = try FirestoreRequest.timestamp(ro["readTime"], "options.readOnly.readTime")
        }
        let id = try store.beginTransaction(project: db.project, database: db.database, readOnly: readOnly, readTime: readTime)
        return ["transaction": .string(Base64.encode(id))]
    }

    /// Rollback: `{database, transaction}` → `Empty`.
    func rollback(_ request: JSON, _ context: FirestoreCallContext) throws -> JSON {
        let r = try Self.object(request, "Rollback")
        let db = try Self.database(r["database"], field: "database")
        guard let id = try FirestoreRequest.transactionId(r["transaction"]) else { throw EmulatorError.invalidArgument("Invalid transaction.") }
        try store.rollback(project: db.project, database: db.database, transaction: id)
        return .object([:])
    }

    /// Commit: `{database, writes, transaction}` → `{writeResults, commitTime}`; atomic, in order.
    func commit(_ request: JSON, _ context: FirestoreCallContext) throws -> JSON {
        let r = try Self.object(request, "Commit")
        let db = try Self.database(r["database"], field: "database")
        let writes = try Self.writes(r, db)
        let res = try store.commit(
            project: db.project, database: db.database, writes: writes,
            transaction: try FirestoreRequest.transactionId(r["transaction"]), caller: try caller(context, db))
        return ["writeResults": .array(res.writeResults.map(Self.writeResultJSON)), "commitTime": .string(res.commitTime.rfc3339())]
    }

    /// BatchWrite: `{database, writes, labels}` → `{writeResults, status}`, one of each per write
    /// in order; each write applies (or fails) on its own.
    func batchWrite(_ request: JSON, _ context: FirestoreCallContext) throws -> JSON {
        let r = try Self.object(request, "BatchWrite")
        let db = try Self.database(r["database"], field: "database")
        let writes = try Self.writes(r, db)
        let results = try store.batchWrite(project: db.project, database: db.database, writes: writes, caller: try caller(context, db))
        var wr: [JSON] = [], status: [JSON] = []
        for result in results {
            switch result {
            case .success(let a):
                wr.append(Self.writeResultJSON(a))
                status.append([:])
            case .failure(let e):
                wr.append([:])
                status.append(["code": .int(Int64(e.code.grpcNumber)), "message": .string(e.message)])
            }
        }
        return ["writeResults": .array(wr), "status": .array(status)]
    }

    /// The `writes` of a Commit or BatchWrite request; every document must be in `db`.
    static func writes(_ r: UTF8Dictionary<JSON>, _ db: DatabaseRef) throws -> [StoreWrite] {
        guard let list = r["writes"], !list.isNull else { return [] }
        guard let items = list.arrayValue else { throw EmulatorError.invalidArgument("'writes' must be an array.") }
        return try items.map { try StoreWrite(json: $0, project: db.project, database: db.database) }
    }

    /// A `WriteResult`: `updateTime` (absent for deletes) and one transform result per transform.
    static func writeResultJSON(_ a: AppliedWrite) -> JSON {
        var o: UTF8Dictionary<JSON> = [:]
        if let t = a.updateTime { o["updateTime"] = .string(t.rfc3339()) }
        if !a.transformResults.isEmpty { o["transformResults"] = .array(a.transformResults.map(\.json)) }
        return .object(o)
    }
}
