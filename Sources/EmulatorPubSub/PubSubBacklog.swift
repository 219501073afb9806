import EmulatorCore

/// One subscription's messages and their delivery state: available (maybe backing off until
/// `notBefore`), leased under an ack id until a deadline, or acknowledged (kept only for seek when
/// the subscription retains acknowledged messages). Entries are in publish order. A value type
/// owned by `PubSubProjectState` (so snapshots of the project copy it on write).
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
    }

    /// Marks entry `i` unacknowledged and available again (seek).
    mutating func markUnacked(_ i: Int) {
        if entries[i].isAcked {
            unacked += 1
            unackedBytes += entries[i].message.size
        }
        entries[i].state = .available
        entries[i].notBefore = nil
        entries[i].lease = 0
    }

    /// Oldest unacknowledged message's publish time (the UI's backlog age).
    public var oldestUnacked: Timestamp? { entries.first { !$0.isAcked }?.message.publishTime }

    /// The unacknowledged messages, oldest first (export, the UI).
    public var unackedMessages: [PublishedMessage] { entries.filter { !$0.isAcked }.map(\.message) }

    /// Drops what no longer needs keeping: acknowledged entries (unless retained for seek) and
    /// anything older than the retention period. Cheap when nothing is due: a prefix check, and
    /// a full pass only when at least half the entries are acknowledged.
    mutating func compact(now: Timestamp, config: PubSubSubscriptionConfig) {
        let horizon = now.adding(seconds: -config.retentionSeconds)
        var drop = 0
        while drop < entries.count {
            let e = entries[drop]
            let expired = e.message.publishTime < horizon
            guard expired || (e.isAcked && !config.retainAcked) else { break }
            if !e.isAcked {
                unacked -= 1
                unackedBytes -= e.message.size
            }
            drop += 1
        }
        if drop > 0 { entries.removeFirst(drop) }
        if !config.retainAcked, entries.count >= 64, entries.count - unacked > entries.count / 2 {
            entries.removeAll { $0.isAcked }
        }
    }
}
