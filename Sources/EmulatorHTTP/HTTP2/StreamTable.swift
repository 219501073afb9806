/// A connection's open streams by id: the ids in ascending order beside their values, found by
/// binary search.
///
/// A `Dictionary` hashed each id with SipHash: a unary gRPC call looks its stream up about
/// fourteen times, and those hashes were 3% of its instructions. Peers open streams in ascending
/// id order (RFC 9113 §5.1.1), so a new stream is appended; a closed one leaves a hole, and the
/// holes are squeezed out once they are half of the table, so removal is amortised O(1) and a
/// lookup is O(log n) whatever ids a peer chooses.
///
/// A value type used by one event loop's thread (inside `HTTP2Connection`).
struct StreamTable<Value> {
    /// Every slot's id, ascending; a hole keeps its id until `compact`.
    private var ids: [UInt32] = []
    /// The value of each slot of `ids`; nil for a hole.
    private var slots: [Value?] = []
    /// Values present (slots minus holes).
    private(set) var count = 0

    /// Creates an empty table.
    init() {}

    /// True when no stream is open.
    var isEmpty: Bool { count == 0 }

    /// The stream `id`'s value, or nil; setting nil removes it.
    subscript(id: UInt32) -> Value? {
        get {
            guard let i = index(of: id) else { return nil }
            return slots[i]
        }
        set {
            if let newValue { insert(id, newValue) } else { removeValue(forKey: id) }
        }
    }

    /// Every value, in id order.
    var values: [Value] { slots.compactMap { $0 } }

    /// Every id with its value, in id order.
    var entries: [(id: UInt32, value: Value)] { zip(ids, slots).compactMap { id, slot in slot.map { (id, $0) } } }

    /// Removes and returns `id`'s value.
    @discardableResult
    mutating func removeValue(forKey id: UInt32) -> Value? {
        guard let i = index(of: id), let old = slots[i] else { return nil }
        slots[i] = nil
        count -= 1
        if count == 0 {
            // Idle connections keep nothing: after a burst, the memory goes back.
            ids.removeAll(keepingCapacity: ids.capacity <= 64)
            slots.removeAll(keepingCapacity: slots.capacity <= 64)
        } else if slots.count - count > max(16, count) {
            compact()
        }
        return old
    }

    /// Adds or replaces `id`'s value.
    private mutating func insert(_ id: UInt32, _ value: Value) {
        if let last = ids.last, id <= last {
            // Not the newest: replace in place, fill its hole, or insert in order (never on the
            // HTTP/2 path, where a new id exceeds every earlier one, but kept correct).
            let at = lowerBound(id)
            if at < ids.count, ids[at] == id {
                if slots[at] == nil { count += 1 }
                slots[at] = value
                return
            }
            ids.insert(id, at: at)
            slots.insert(value, at: at)
        } else {
            ids.append(id)
            slots.append(value)
        }
        count += 1
    }

    /// The slot of a present `id`, or nil.
    private func index(of id: UInt32) -> Int? {
        let at = lowerBound(id)
        guard at < ids.count, ids[at] == id, slots[at] != nil else { return nil }
        return at
    }

    /// The first slot whose id is not below `id`.
    private func lowerBound(_ id: UInt32) -> Int {
        // The newest stream is the likeliest one asked for.
        if let last = ids.last, last == id { return ids.count - 1 }
        var low = 0, high = ids.count
        while low < high {
            let mid = low + (high - low) / 2
            if ids[mid] < id { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// Drops the holes, keeping the order.
    private mutating func compact() {
        var keptIds: [UInt32] = []
        var kept: [Value?] = []
        keptIds.reserveCapacity(count)
        kept.reserveCapacity(count)
        for (id, slot) in zip(ids, slots) where slot != nil {
            keptIds.append(id)
            kept.append(slot)
        }
        ids = keptIds
        slots = kept
    }
}
