import EmulatorCore

/// One database's open transactions, by id (base64 of the id bytes).
///
/// A value type inside `DatabaseData`: only ever used under its database's lock.
///
/// Expired transactions are dropped only when the database is at its limit (`makeRoom`): one pass
/// over all of them, which a begin pays at most once per time the limit is reached. Below the
/// limit they cost nothing but memory the limit already bounds, and a use of one finds it expired
/// by its deadline (`StoreService.transaction`). A pass that leaves the database full means the
/// begin is refused anyway; so that a flood of refused begins does not pass over every transaction
/// each, the earliest deadline left is noted and no pass runs before it (nothing can expire
/// sooner). A pass on every begin once cost each begin what every open transaction numbered
/// (30,000 open: 20 ms a begin).
struct OpenTransactions: Sendable {
    private var byKey: [String: StoreTransaction] = [:]

    /// No held transaction expires before this (so a pass before it would drop nothing); nil when
    /// not known. Lowered by any insert or use that brings a deadline earlier, so it stays true.
    private(set) var noneExpireBefore: Timestamp?

    /// How many transactions are held (expired ones included until a pass drops them).
    var count: Int { byKey.count }

    /// The transaction with id `key`, expired or not.
    subscript(key: String) -> StoreTransaction? { byKey[key] }

    /// Adds a transaction under `key`.
    mutating func insert(_ t: StoreTransaction, key: String) {
        byKey[key] = t
        lowerBound(to: t.deadline)
    }

    /// Changes the transaction `key` in place (no copy of its recorded reads), if it is held.
    mutating func update(_ key: String, _ body: (inout StoreTransaction) throws -> Void) rethrows {
        guard var t = byKey.removeValue(forKey: key) else { return }
        defer {
            // A use moves the deadline earlier only when the project clock was moved back.
            lowerBound(to: t.deadline)
            byKey[key] = t
        }
        try body(&t)
    }

    /// Drops the transaction `key`.
    @discardableResult
    mutating func remove(_ key: String) -> StoreTransaction? {
        byKey.removeValue(forKey: key)
    }

    /// Drops every transaction.
    mutating func removeAll() {
        byKey.removeAll()
        noneExpireBefore = nil
    }

    /// Whether one more transaction fits under `limit` at `now`. At the limit, drops every
    /// transaction whose deadline is at or before `now` first (expired ones never count), unless
    /// none can have expired yet.
    mutating func makeRoom(limit: Int, now: Timestamp) -> Bool {
        guard byKey.count >= limit else { return true }
        if let bound = noneExpireBefore, now < bound { return false }
        byKey = byKey.filter { now < $0.value.deadline }
        noneExpireBefore = byKey.values.lazy.map(\.deadline).min()
        return byKey.count < limit
    }

    private mutating func lowerBound(to deadline: Timestamp) {
        if let bound = noneExpireBefore, deadline < bound { noneExpireBefore = deadline }
    }
}
