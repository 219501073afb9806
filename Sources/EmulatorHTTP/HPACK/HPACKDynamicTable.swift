/// An HPACK dynamic table (RFC 7541 §2.3.2, §4): a FIFO of fields, newest at the lowest index
/// (62 in the combined index space), whose size is the sum of name + value + 32 octets per entry
/// and never exceeds `maxSize`; adding evicts the oldest entries until the new one fits.
///
/// A value type owned by one decoder or encoder (one connection, one thread).
struct HPACKDynamicTable: Sendable {
    /// One entry. `size` is counted from the octets on the wire, not from the Strings, so that a
    /// value with invalid UTF-8 (decoded with replacement characters) still counts what the
    /// peer's encoder counted.
    struct Entry: Sendable {
        /// The field name.
        var name: String
        /// The field value.
        var value: String
        /// The name's octet count on the wire.
        var nameOctets: Int
        /// The value's octet count on the wire.
        var valueOctets: Int
        /// The entry's size: name octets + value octets + 32.
        var size: Int { nameOctets + valueOctets + HPACKDynamicTable.entryOverhead }
    }

    /// The per-entry overhead of RFC 7541 §4.1.
    static let entryOverhead = 32

    /// Entries from `head` on, oldest first; the slots before `head` are evicted and reclaimed
    /// in bulk (amortized O(1) eviction without a ring buffer's index arithmetic on every access).
    private var storage: [Entry] = []
    /// The first live slot of `storage`.
    private var head = 0
    /// The sum of the live entries' sizes.
    private(set) var size = 0
    /// The current maximum size (changed by dynamic table size updates).
    private(set) var maxSize: Int
    /// Entries ever inserted: lets the encoder name an entry by insertion number, which stays
    /// valid while younger entries push it to higher indices.
    private(set) var insertions = 0

    /// An empty table of the given maximum size.
    init(maxSize: Int) {
        self.maxSize = maxSize
    }

    /// The number of live entries.
    var count: Int { storage.count - head }

    /// The entry at `i`, 0 being the newest (combined index 62). `i` must be < `count`.
    subscript(i: Int) -> Entry {
        storage[storage.count - 1 - i]
    }

    /// The entries as fields, newest first (tests and diagnostics).
    var fields: [HPACKHeaderField] {
        (0..<count).map { HPACKHeaderField(name: self[$0].name, value: self[$0].value) }
    }

    /// The insertion number of the oldest live entry: insertion numbers below it are evicted.
    var oldestInsertion: Int { insertions - count }

    /// Adds a field whose name and value took the given octet counts on the wire, evicting the
    /// oldest entries to make room. An entry larger than `maxSize` empties the table and is not
    /// added (§4.4).
    mutating func add(name: String, value: String, nameOctets: Int, valueOctets: Int) {
        insertions += 1
        let size = nameOctets + valueOctets + Self.entryOverhead
        guard size <= maxSize else {
            removeAll()
            return
        }
        evict(toFit: maxSize - size)
        storage.append(Entry(name: name, value: value, nameOctets: nameOctets, valueOctets: valueOctets))
        self.size += size
    }

    /// Sets a new maximum size, evicting the oldest entries until the table fits (§4.3).
    mutating func setMaxSize(_ newMax: Int) {
        maxSize = newMax
        evict(toFit: newMax)
    }

    /// Evicts oldest entries until `size <= limit`.
    private mutating func evict(toFit limit: Int) {
        while size > limit && head < storage.count {
            size -= storage[head].size
            head += 1
        }
        if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 32 && head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
    }

    /// Evicts everything.
    private mutating func removeAll() {
        storage.removeAll(keepingCapacity: true)
        head = 0
        size = 0
    }
}
