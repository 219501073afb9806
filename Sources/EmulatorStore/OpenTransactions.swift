import EmulatorCore

/// One database's open transactions, by id (base64 of the id bytes), with their deadlines queued
/// earliest first. Beginning a transaction purges the expired ones first; with the queue that
/// costs O(log n) per expired transaction, where a filter over all of them once made each begin
/// cost what every open transaction numbered (30,000 open: 20 ms a begin).
///
/// A value type inside `DatabaseData`: only ever used under its database's lock.
///
/// The queue is lazy. A transaction's queued deadline is where it was put in the queue; using it
/// moves its real deadline later without touching the queue (so a read costs no queue work), and
/// when its entry comes out the transaction is dropped if really expired, or queued again at its
/// real deadline. Entries of finished transactions stay until they come out or the queue is
/// rebuilt, which happens once it holds twice as many entries as there are transactions.
struct OpenTransactions: Sendable {
    private struct Slot: Sendable {
        var transaction: StoreTransaction
        /// The deadline of this transaction's live entry in `queue` (entries with another
        /// deadline are stale).
        var queued: Timestamp
    }

    private var slots: [String: Slot] = [:]
    private var queue = DeadlineHeap()

    /// How many transactions are held (expired ones included until purged).
    var count: Int { slots.count }

    /// How many deadlines are queued, stale ones included (at most about twice `count`).
    var queued: Int { queue.count }

    /// The transaction with id `key`, expired or not.
    subscript(key: String) -> StoreTransaction? { slots[key]?.transaction }

    /// Adds a transaction under `key`.
    mutating func insert(_ t: StoreTransaction, key: String) {
        slots[key] = Slot(transaction: t, queued: t.deadline)
        queue.push(t.deadline, key)
        compactIfStale()
    }

    /// Changes the transaction `key` in place (no copy of its recorded reads), if it is held.
    mutating func update(_ key: String, _ body: (inout StoreTransaction) throws -> Void) rethrows {
        guard var slot = slots.removeValue(forKey: key) else { return }
        defer {
            // The deadline moves earlier only when the project clock was moved back: queue it
            // again, or it would outlive its deadline in the count.
            if slot.transaction.deadline < slot.queued {
                slot.queued = slot.transaction.deadline
                queue.push(slot.queued, key)
            }
            slots[key] = slot
        }
        try body(&slot.transaction)
    }

    /// Drops the transaction `key` (its queue entry goes stale).
    @discardableResult
    mutating func remove(_ key: String) -> StoreTransaction? {
        let t = slots.removeValue(forKey: key)?.transaction
        compactIfStale()
        return t
    }

    /// Drops every transaction.
    mutating func removeAll() {
        slots.removeAll()
        queue.removeAll()
    }

    /// Drops every transaction whose deadline is at or before `now`.
    mutating func purge(now: Timestamp) {
        while let next = queue.first, next.deadline <= now {
            _ = queue.popFirst()
            guard var slot = slots[next.id], slot.queued == next.deadline else { continue }  // stale
            if slot.transaction.deadline <= now {
                slots[next.id] = nil
            } else {
                slot.queued = slot.transaction.deadline
                slots[next.id] = slot
                queue.push(slot.queued, next.id)
            }
        }
        compactIfStale()
    }

    /// Rebuilds the queue from the held transactions once stale entries are at least half of it,
    /// so its size stays proportional to the transactions held (amortized O(1) per entry).
    private mutating func compactIfStale() {
        guard queue.count > 2 * slots.count + 64 else { return }
        queue.rebuild(slots.map { DeadlineHeap.Entry(deadline: $0.value.queued, id: $0.key) })
    }
}
