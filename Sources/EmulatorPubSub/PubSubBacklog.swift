import EmulatorCore

/// One subscription's messages and their delivery state: available (maybe backing off until
/// `notBefore`), leased under an ack id until a deadline, or acknowledged (kept only for seek when
/// the subscription retains acknowledged messages, within `RetainRoom`). Entries are in publish
/// order. A value type owned by `PubSubProjectState` (so snapshots of the project copy it on
/// write), behind `PubSubService`'s lock like the rest of a project's state.
public struct PubSubBacklog: Sendable {
    /// Delivery state of one entry.
    enum State: Sendable, Equatable {
        /// Waiting to be delivered.
        case available
        /// Delivered under lease `lease` until `deadline`.
        case leased
        /// Acknowledged at this time.
        case acked(Timestamp)
    }

    /// One message in the subscription.
    struct Entry: Sendable {
        /// Position in the subscription (increasing).
        var seq: Int64
        /// The message.
        var message: PublishedMessage
        /// Delivery state.
        var state: State = .available
        /// Deliveries so far.
        var attempts: Int32 = 0
        /// Not to be redelivered before this time (retry backoff).
        var notBefore: Timestamp?
        /// The lease's deadline while leased.
        var deadline = Timestamp(seconds: 0)
        /// The current lease number (ack ids name it, so an old ack id cannot ack a redelivery).
        var lease: Int64 = 0

        var isAcked: Bool { if case .acked = state { return true } else { return false } }
    }

    /// Messages in publish order.
    var entries: [Entry] = []
    /// Next entry position.
    var nextSeq: Int64 = 1
    /// Next lease number.
    var nextLease: Int64 = 1
    /// Unacknowledged entries.
    public private(set) var unacked = 0
    /// Bytes of the unacknowledged entries' messages.
    public private(set) var unackedBytes = 0
    /// Bytes of the acknowledged entries' messages still held (retained for seek, or not yet
    /// compacted away).
    public private(set) var ackedBytes = 0

    /// Acknowledged entries still held: everything that is not unacknowledged.
    public var acked: Int { entries.count - unacked }

    /// How many acknowledged entries, and bytes of them, a subscription that retains them may
    /// keep: `maxMessages`/`maxBytes` of its own, less when the rest of the project already holds
    /// most of `maxProjectMessages`/`maxProjectBytes` (`PubSubSubscriptionTable.retainRoom`).
    /// Without it a client publishing and acknowledging on such a subscription grew the process
    /// for the whole retention period (up to 31 days).
    public struct RetainRoom: Sendable, Equatable {
        /// The most acknowledged entries kept.
        public var messages: Int
        /// The most bytes of them kept.
        public var bytes: Int

        /// Creates a room.
        public init(messages: Int, bytes: Int) {
            self.messages = messages
            self.bytes = bytes
        }
    }

    /// Creates an empty backlog.
    public init() {}

    /// Whether `count` more messages of `bytes` bytes fit within `limits`.
    func hasRoom(count: Int, bytes: Int, _ limits: PubSubLimits) -> Bool {
        unacked + count <= limits.maxMessages && unackedBytes + bytes <= limits.maxBytes
    }

    /// Appends a newly published message.
    mutating func append(_ m: PublishedMessage) {
        entries.append(Entry(seq: nextSeq, message: m))
        nextSeq += 1
        unacked += 1
        unackedBytes += m.size
    }

    /// The entry's index by its position, by binary search (entries are sorted by `seq`).
    func index(of seq: Int64) -> Int? {
        var lo = 0, hi = entries.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if entries[mid].seq < seq { lo = mid + 1 } else { hi = mid }
        }
        return lo < entries.count && entries[lo].seq == seq ? lo : nil
    }

    /// Marks entry `i` acknowledged.
    mutating func markAcked(_ i: Int, at now: Timestamp) {
        guard !entries[i].isAcked else { return }
        entries[i].state = .acked(now)
        unacked -= 1
        unackedBytes -= entries[i].message.size
        ackedBytes += entries[i].message.size
    }

    /// Marks entry `i` unacknowledged and available again (seek).
    mutating func markUnacked(_ i: Int) {
        if entries[i].isAcked {
            unacked += 1
            unackedBytes += entries[i].message.size
            ackedBytes -= entries[i].message.size
        }
        entries[i].state = .available
        entries[i].notBefore = nil
        entries[i].lease = 0
    }

    /// Oldest unacknowledged message's publish time (the UI's backlog age).
    public var oldestUnacked: Timestamp? { entries.first { !$0.isAcked }?.message.publishTime }

    /// The unacknowledged messages, oldest first (export, the UI).
    public var unackedMessages: [PublishedMessage] { entries.filter { !$0.isAcked }.map(\.message) }

    /// Drops what no longer needs keeping: acknowledged entries (unless retained for seek, and
    /// then the oldest past `room`) and anything older than the retention period. Cheap when
    /// nothing is due: a prefix check, and a full pass only when at least half the entries are
    /// acknowledged (or, retaining, more than `room` of them are).
    mutating func compact(now: Timestamp, config: PubSubSubscriptionConfig, room: RetainRoom) {
        let horizon = now.adding(seconds: -config.retentionSeconds)
        var drop = 0
        while drop < entries.count {
            let e = entries[drop]
            let expired = e.message.publishTime < horizon
            guard expired || (e.isAcked && !config.retainAcked) else { break }
            if e.isAcked {
                ackedBytes -= e.message.size
            } else {
                unacked -= 1
                unackedBytes -= e.message.size
            }
            drop += 1
        }
        if drop > 0 { entries.removeFirst(drop) }
        if !config.retainAcked, entries.count >= 64, entries.count - unacked > entries.count / 2 {
            entries.removeAll { $0.isAcked }
            ackedBytes = 0
        }
        if config.retainAcked { trimRetained(room) }
    }

    /// Drops the oldest acknowledged entries when more than `room` are held, down to an eighth
    /// under it, so the pass (a scan of the front and a shift of the rest) is paid for by that
    /// many acknowledgements rather than run on each. Unacknowledged entries stay, wherever they
    /// sit among them. While the acknowledged entries are under an eighth of the entries (and of
    /// their bytes) they wait: `room` can be near 0 when the rest of the project holds its
    /// budget, and a pass per acknowledgement over a large unacknowledged backlog would cost its
    /// length each time; what waits is bounded by that backlog, itself within the limits.
    mutating func trimRetained(_ room: RetainRoom) {
        let count = acked
        guard count > room.messages || ackedBytes > room.bytes else { return }
        guard entries.count < 64 || count >= entries.count / 8 || ackedBytes >= (unackedBytes + ackedBytes) / 8 else { return }
        let keep = max(0, room.messages - room.messages / 8), keepBytes = max(0, room.bytes - room.bytes / 8)
        var dropped = 0, droppedBytes = 0, cut = 0
        while cut < entries.count, count - dropped > keep || ackedBytes - droppedBytes > keepBytes {
            if entries[cut].isAcked {
                dropped += 1
                droppedBytes += entries[cut].message.size
            }
            cut += 1
        }
        guard dropped > 0 else { return }
        entries.replaceSubrange(0..<cut, with: entries[0..<cut].filter { !$0.isAcked })
        ackedBytes -= droppedBytes
    }
}
