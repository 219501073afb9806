import EmulatorCore

extension StoreService {
    /// The length of the transaction ids this store issues.
    static let transactionIdBytes = 12

    /// Begins a transaction; read-only ones read at `readTime` (default: now).
    public func beginTransaction(project: String, database: String, readOnly: Bool, readTime: Timestamp? = nil) throws -> [UInt8] {
        try withDatabase(project, database) { data, env, _ in
            try Self.open(&data, env, readOnly: readOnly, readTime: readTime, options: options, database: database)
        }
    }

    /// Opens a transaction. RESOURCE_EXHAUSTED when `maxOpenTransactions` are open in the
    /// database; expired ones never count (at the limit they are dropped first).
    static func open(
        _ data: inout DatabaseData, _ env: ProjectEnvironment, readOnly: Bool, readTime: Timestamp?, options: StoreOptions, database: String
    ) throws -> [UInt8] {
        let now = env.clock.now()
        guard data.transactions.makeRoom(limit: options.maxOpenTransactions, now: now) else {
            throw EmulatorError(
                .resourceExhausted,
                "Too many open transactions: database '\(database)' already has \(options.maxOpenTransactions), the limit "
                    + "(firestore.maxOpenTransactions). Commit or roll back the ones you are done with; idle ones expire on their own.")
        }
        let id = env.ids.bytes(transactionIdBytes)
        let snapshot = readOnly ? (readTime ?? max(now.truncatedToMicroseconds, data.state.lastCommit)) : nil
        let t = StoreTransaction(
            readOnly: readOnly, readTime: snapshot, idleUntil: now.adding(seconds: options.transactionIdleSeconds),
            endOfLife: now.adding(seconds: options.transactionLifetimeSeconds))
        data.transactions.insert(t, key: Base64.encode(id))
        return id
    }

    /// Ends a transaction without committing. Rolling back a finished one is fine; an id that
    /// this store cannot have issued (not `transactionIdBytes` long) is refused with production's
    /// message. (A well-formed id that was never issued passes: ids are random and finished ones
    /// are not remembered.)
    public func rollback(project: String, database: String, transaction: [UInt8]) throws {
        guard transaction.count == Self.transactionIdBytes else { throw EmulatorError.invalidArgument("Invalid transaction.") }
        _ = try withDatabase(project, database, keep: false) { data, _, _ in
            data.transactions.remove(Base64.encode(transaction))
        }
    }

    /// The open transaction `id`, or the emulator's errors for unknown or expired ids (idle or
    /// past its lifetime: the same answer, as production gives both).
    static func transaction(_ data: inout DatabaseData, _ id: [UInt8], now: Timestamp) throws -> StoreTransaction {
        let key = Base64.encode(id)
        guard let t = data.transactions[key] else {
            throw EmulatorError.invalidArgument("Transaction is invalid or expired.")
        }
        guard now < t.deadline else {
            data.transactions.remove(key)
            throw EmulatorError.aborted("The referenced transaction has expired or is no longer valid.")
        }
        return t
    }

    /// Resolves a read's consistency inside the lock: the read time to use and the transaction
    /// to record reads in (its id, and whether a new one was begun).
    static func resolve(_ c: ReadConsistency, _ data: inout DatabaseData, _ env: ProjectEnvironment, options: StoreOptions, database: String)
        throws -> (readTime: Timestamp?, txn: String?, newId: [UInt8]?)
    {
        let now = env.clock.now()
        switch c {
        case .latest: return (nil, nil, nil)
        case .readTime(let t): return (t.truncatedToMicroseconds, nil, nil)
        case .transaction(let id):
            let t = try transaction(&data, id, now: now)
            let key = Base64.encode(id)
            // A use defers the idle expiry, never the end of the lifetime.
            data.transactions.update(key) { $0.idleUntil = now.adding(seconds: options.transactionIdleSeconds) }
            return (t.readTime, t.readOnly ? nil : key, nil)
        case .newTransaction(let readOnly, let readTime):
            let id = try open(&data, env, readOnly: readOnly, readTime: readTime, options: options, database: database)
            guard let t = data.transactions[Base64.encode(id)] else { throw EmulatorError.internal("The new transaction was not recorded.") }
            return (t.readTime, readOnly ? nil : Base64.encode(id), id)
        }
    }

    /// Refuses reading `paths` in the read-write transaction `txn` when they would take it past
    /// `transactionMaxReads` documents.
    static func checkRoomForReads(_ data: DatabaseData, txn: String, paths: [String], options: StoreOptions) throws {
        guard let t = data.transactions[txn] else { return }
        try t.checkRoomForReads(paths, limit: options.transactionMaxReads)
    }

    /// Refuses a query in the read-write transaction `txn` (if any) that has already run
    /// `transactionMaxQueries`; called before the query runs, so a refused one costs nothing.
    static func checkRoomForQuery(_ data: DatabaseData, txn: String?, options: StoreOptions) throws {
        guard let txn, let t = data.transactions[txn] else { return }
        try t.checkRoomForQuery(limit: options.transactionMaxQueries)
    }
}
