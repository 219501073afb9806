/// One project's subscriptions by full name, keeping three things exact as they change: the sum
/// of their backlogs' unacknowledged entries and bytes (the project budget, `PubSubLimits.
/// maxProjectMessages`), the sum of the acknowledged entries they still hold (retained for seek:
/// bounded by the same figures, `retainRoom`), and each topic's subscriptions (so a publish does
/// not look at every subscription of the project).
///
/// Every change goes through here: a subscription is stored, taken out (`removeValue`) to be
/// worked on and stored back, or removed, and each of those adds or subtracts what its backlog
/// holds. A backlog is never changed in place inside the table, so the sums follow every backlog
/// mutation (publish, ack, expiry, nack, seek, detach, delete, import) without the call sites
/// counting; while a subscription is out, the sums leave it out (`PubSubService.forward` adds it
/// back when it checks room). A value type owned by `PubSubProjectState`, so behind
/// `PubSubService`'s lock like the rest of a project's state.
public struct PubSubSubscriptionTable: Sendable, Sequence {
    /// The subscriptions by full name.
    private var byName: [String: PubSubSubscriptionState] = [:]
    /// Full names of the subscriptions attached to each topic (by the topic's full name, or
    /// `_deleted-topic_`), detached ones included. A set: a subscription taken out and stored
    /// back on every publish costs two hash operations, where a sorted list would move its tail.
    private var byTopic: [String: Set<String>] = [:]
    /// Unacknowledged entries of all the backlogs stored here.
    public private(set) var unacked = 0
    /// Bytes of those entries, each counting its message's size (`PublishedMessage.size`).
    public private(set) var unackedBytes = 0
    /// Acknowledged entries the backlogs stored here still hold (`PubSubBacklog.acked`).
    public private(set) var acked = 0
    /// Bytes of those entries.
    public private(set) var ackedBytes = 0

    /// An empty table.
    public init() {}

    /// The subscription named `name`; setting one replaces it, setting nil removes it.
    public subscript(name: String) -> PubSubSubscriptionState? {
        get { byName[name] }
        set {
            removeValue(forKey: name)
            if let newValue { insert(newValue, name) }
        }
    }

    /// Takes the subscription out (to work on it, or for good), its backlog leaving the sums.
    @discardableResult
    public mutating func removeValue(forKey name: String) -> PubSubSubscriptionState? {
        guard let old = byName.removeValue(forKey: name) else { return nil }
        unacked -= old.backlog.unacked
        unackedBytes -= old.backlog.unackedBytes
        acked -= old.backlog.acked
        ackedBytes -= old.backlog.ackedBytes
        if byTopic[old.config.topic]?.remove(name) != nil, byTopic[old.config.topic]?.isEmpty == true {
            byTopic[old.config.topic] = nil
        }
        return old
    }

    private mutating func insert(_ s: PubSubSubscriptionState, _ name: String) {
        byName[name] = s
        unacked += s.backlog.unacked
        unackedBytes += s.backlog.unackedBytes
        acked += s.backlog.acked
        ackedBytes += s.backlog.ackedBytes
        byTopic[s.config.topic, default: []].insert(name)
    }

    /// How many acknowledged entries a subscription may retain: its own limit, or what the
    /// project's retained-entry budget leaves once the others' are counted, whichever is less.
    /// The subscription is either taken out of here (its entries no longer in the sums) or still
    /// in, worked on as a copy, and then `stored` is its backlog as stored here, left out of the
    /// sums so both ways give the same room (a live seek works on a copy; its replay on one taken
    /// out). Only the subscription being compacted gives way, so one that publishes and
    /// acknowledges steadily keeps the fewest while idle ones keep theirs until their retention
    /// passes.
    public func retainRoom(_ limits: PubSubLimits, stored: PubSubBacklog? = nil) -> PubSubBacklog.RetainRoom {
        let others = acked - (stored?.acked ?? 0), othersBytes = ackedBytes - (stored?.ackedBytes ?? 0)
        return PubSubBacklog.RetainRoom(
            messages: Swift.max(0, Swift.min(limits.maxMessages, limits.maxProjectMessages - others)),
            bytes: Swift.max(0, Swift.min(limits.maxBytes, limits.maxProjectBytes - othersBytes)))
    }

    /// Full names of the subscriptions attached to `topic` (detached ones included), sorted so
    /// that fan-out, and which full subscription a refusal names, do not depend on hashing.
    public func names(of topic: String) -> [String] { byTopic[topic]?.sorted() ?? [] }

    /// Full names, in no particular order.
    public var keys: Dictionary<String, PubSubSubscriptionState>.Keys { byName.keys }
    /// The subscriptions, in no particular order.
    public var values: Dictionary<String, PubSubSubscriptionState>.Values { byName.values }
    /// No subscriptions.
    public var isEmpty: Bool { byName.isEmpty }
    /// How many subscriptions.
    public var count: Int { byName.count }

    /// (name, subscription) pairs, in no particular order.
    public func makeIterator() -> Dictionary<String, PubSubSubscriptionState>.Iterator { byName.makeIterator() }

    /// The sums and the topic lists computed again from every entry of every backlog, for tests
    /// that check the maintained ones: nil when they agree, else what differs.
    func recountMismatch() -> String? {
        var count = 0, bytes = 0, ackedCount = 0, ackedSum = 0
        var topics: [String: Set<String>] = [:]
        for (name, s) in byName {
            let held = s.backlog.entries.filter { !$0.isAcked }
            let heldBytes = held.reduce(0) { $0 + $1.message.size }
            if held.count != s.backlog.unacked || heldBytes != s.backlog.unackedBytes {
                return "\(name) counts \(s.backlog.unacked) (\(s.backlog.unackedBytes) bytes) but holds \(held.count) (\(heldBytes) bytes)"
            }
            let done = s.backlog.entries.filter(\.isAcked)
            let doneBytes = done.reduce(0) { $0 + $1.message.size }
            if done.count != s.backlog.acked || doneBytes != s.backlog.ackedBytes {
                return "\(name) counts \(s.backlog.acked) acknowledged (\(s.backlog.ackedBytes) bytes) but holds \(done.count) (\(doneBytes) bytes)"
            }
            count += held.count
            bytes += heldBytes
            ackedCount += done.count
            ackedSum += doneBytes
            topics[s.config.topic, default: []].insert(name)
        }
        if count != unacked || bytes != unackedBytes {
            return "the table counts \(unacked) (\(unackedBytes) bytes) but the backlogs hold \(count) (\(bytes) bytes)"
        }
        if ackedCount != acked || ackedSum != ackedBytes {
            return "the table counts \(acked) acknowledged (\(ackedBytes) bytes) but the backlogs hold \(ackedCount) (\(ackedSum) bytes)"
        }
        return topics == byTopic ? nil : "the topic lists \(byTopic) differ from \(topics)"
    }
}
