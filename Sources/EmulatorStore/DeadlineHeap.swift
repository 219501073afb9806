import EmulatorCore

/// Ids ordered by a deadline, earliest first (a binary min-heap): what expires next is found in
/// O(1) and taken out in O(log n), so purging expired entries never scans the live ones.
///
/// A value type, mutated only by its owner (`OpenTransactions`, under its database's lock).
struct DeadlineHeap: Sendable {
    /// One queued deadline.
    struct Entry: Sendable {
        var deadline: Timestamp
        var id: String
    }

    private var entries: [Entry] = []

    /// Queued entries (stale ones included: the owner drops those as they come out).
    var count: Int { entries.count }

    /// The earliest entry, if any.
    var first: Entry? { entries.first }

    /// Queues `id` until `deadline`.
    mutating func push(_ deadline: Timestamp, _ id: String) {
        entries.append(Entry(deadline: deadline, id: id))
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].deadline < entries[parent].deadline else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    /// Takes out the earliest entry.
    mutating func popFirst() -> Entry? {
        guard let top = entries.first else { return nil }
        let last = entries.removeLast()
        guard !entries.isEmpty else { return top }
        entries[0] = last
        siftDown(from: 0)
        return top
    }

    /// Replaces every entry with `all` (in O(n)); used to drop stale entries in one pass.
    mutating func rebuild(_ all: [Entry]) {
        entries = all
        var i = entries.count / 2
        while i > 0 {
            i -= 1
            siftDown(from: i)
        }
    }

    /// Empties the heap.
    mutating func removeAll() { entries.removeAll() }

    private mutating func siftDown(from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < entries.count else { return }
            let right = left + 1
            let child = right < entries.count && entries[right].deadline < entries[left].deadline ? right : left
            guard entries[child].deadline < entries[parent].deadline else { return }
            entries.swapAt(child, parent)
            parent = child
        }
    }
}
