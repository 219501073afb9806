import EmulatorCore

extension StoreService {
    /// The length of the transaction ids this store issues.
    static let transactionIdBytes = 12

    /// Begins a transaction; read-only ones read at `readTime` (default: now).
    public func beginTransaction(project: String, database: String, readOnly: Bool, readTime: Timestamp? = nil) throws -> [UInt8] {
        try withDatabase(project, database) { data, env, _ in
            try Self.open(&data, env, readOnly: readOnly, readTime: readTime, idle: options.transactionIdleSeconds)
        }
    }

    static func open(_ data: inout DatabaseData, _ env: ProjectEnvironment, readOnly: Bool, readTime: Timestamp?, idle: Double) throws -> [UInt8] {
        let now = env.clock.now()
        data.transactions = data.transactions.filter { $0.value.lastUsed.adding(seconds: idle) > now }
        let id = env.ids.bytes(transactionIdBytes)
        let snapshot = readOnly ? (readTime ?? max(now.truncatedToMicroseconds, data.state.lastCommit)) : nil
        data.transactions[Base64.encode(id)] = StoreTransaction(readOnly: readOnly, readTime: snapshot, lastUsed: now)
        return id
    }

    /// Ends a transaction without committing. Rolling back a finished one is fine; an id that
    /// this store cannot have issued (not `transactionIdBytes` long) is refused with production's
    /// message. (A well-formed id that was never issued passes: ids are random and finished ones
    /// are not remembered.)
    public func rollback(project: String, database: String, transaction: [UInt8]) throws {
        guard transaction.count == Self.transactionIdBytes else { throw EmulatorError.invalidArgument("Invalid transaction.") }
        try withDatabase(project, database) { data, _, _ in
            _ = data.transactions.removeValue(forKey: Base64.encode(transaction))
        }
    }

    /// The open transaction `id`, or the emulator's errors for unknown or expired ids.
    static func transaction(_ data: inout DatabaseData, _ id: [UInt8], now: Timestamp, idle: Double) throws -> StoreTransaction {
        let key = Base64.encode(id)
        guard let t = data.transactions[key] else {
            throw EmulatorError.invalidArgument("Transaction is invalid or expired.")
        }
        guard t.lastUsed.adding(seconds: idle) > now else {
            data.transactions[key] = nil
            throw EmulatorError.aborted("The referenced transaction has expired or is no longer valid.")
        }
        return t
    }

    /// Resolves a read's consistency inside the lock: the read time to use and the transaction
    /// to record reads in (its id, and whether a new one was begun).
    static func resolve(_ c: ReadConsistency, _ data: inout DatabaseData, _ env: ProjectEnvironment, idle: Double) throws
        -> (readTime: Timestamp?, txn: String?, newId: [UInt8]?)
    {
        let now = env.clock.now()
        switch c {
        case .latest: return (nil, nil, nil)
        case .readTime(let t): return (t.truncatedToMicroseconds, nil, nil)
        case .transaction(let id):
            var t = try transaction(&data, id, now: now, idle: idle)
            t.lastUsed = now
            data.transactions[Base64.encode(id)] = t
            return (t.readTime, t.readOnly ? nil : Base64.encode(id), nil)
        case .newTransaction(let readOnly, let readTime):
            let id = try open(&data, env, readOnly: readOnly, readTime: readTime, idle: idle)
            guard let t = data.transactions[Base64.encode(id)] else { throw EmulatorError.internal("The new transaction was not recorded.") }
            return (t.readTime, readOnly ? nil : Base64.encode(id), id)
        }
    }
}
