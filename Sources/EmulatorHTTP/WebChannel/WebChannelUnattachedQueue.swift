/// Sessions that have not attached a backchannel yet, oldest first, with removal by id: what the
/// maintenance pass reaps after `unattachedTimeout` and what a handshake at a cap evicts.
///
/// A value type, kept in `WebChannelSessionTable` behind the server's `Mutex`. Entries are
/// numbered in order of arrival and `low` is the lowest number still present, so `first`, `append`
/// and `remove` cost O(1) amortized (`low` only moves forward, over numbers each given out once):
/// a scan of the session table per handshake would let a client at the cap buy 20,000 steps of
/// server time with each request.
struct WebChannelUnattachedQueue {
    /// One session waiting for its first backchannel.
    struct Entry {
        /// The session id.
        let id: String
        /// When the session entered the table (monotonic nanoseconds).
        let openedAt: UInt64
    }

    private var byNumber: [UInt64: Entry] = [:]
    private var numberOf: [String: UInt64] = [:]
    private var low: UInt64 = 0
    private var next: UInt64 = 0

    /// Entries waiting.
    var count: Int { numberOf.count }

    /// The oldest entry.
    var first: Entry? { byNumber[low] }

    /// Adds `id` as the newest entry (nothing when it is already there).
    mutating func append(_ id: String, openedAt: UInt64) {
        guard numberOf[id] == nil else { return }
        byNumber[next] = Entry(id: id, openedAt: openedAt)
        numberOf[id] = next
        next += 1  // at most one per handshake since the queue was last empty: never near 2^64
    }

    /// Removes `id`; returns whether it was there.
    @discardableResult
    mutating func remove(_ id: String) -> Bool {
        guard let n = numberOf.removeValue(forKey: id) else { return false }
        byNumber[n] = nil
        if numberOf.isEmpty {  // start the numbering over
            low = 0
            next = 0
        } else {
            while low < next, byNumber[low] == nil { low += 1 }
        }
        return true
    }
}
