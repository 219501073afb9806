import EmulatorCore

/// One message handed to a subscriber: its ack id, the message and the delivery attempt.
public struct PubSubDelivery: Sendable {
    /// The ack id (`<position>-<lease>`; opaque to clients).
    public let ackId: String
    /// The message.
    public let message: PublishedMessage
    /// 1 for the first delivery (reported only with a dead-letter policy, as production does).
    public let attempt: Int32
}

/// A message that used up its delivery attempts, on its way to the dead-letter topic.
struct PubSubDeadLetter: Sendable {
    /// The entry's position in its source subscription (to put it back there).
    let seq: Int64
    let message: PublishedMessage
    let attempts: Int32
}

extension PubSubBacklog {
    /// The ack id of a lease.
    static func ackId(seq: Int64, lease: Int64) -> String { "\(seq)-\(lease)" }

    /// The (position, lease) an ack id names, nil when malformed.
    static func parseAckId(_ text: String) -> (seq: Int64, lease: Int64)? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].utf8.count <= 19, parts[1].utf8.count <= 19, let s = Int64(parts[0]), let l = Int64(parts[1]), s > 0, l > 0
        else {
            return nil
        }
        return (s, l)
    }

    /// Whether the lease named by (`seq`, `lease`) is still held.
    func isLeased(seq: Int64, lease: Int64) -> Bool {
        guard let i = index(of: seq) else { return false }
        return entries[i].state == .leased && entries[i].lease == lease
    }

    /// Returns every lease past its deadline to the subscription (nack), collecting dead letters.
    mutating func expire(now: Timestamp, config: PubSubSubscriptionConfig, deadLetters: inout [PubSubDeadLetter]) {
        for i in entries.indices where entries[i].state == .leased && entries[i].deadline <= now {
            nack(i, now: now, config: config, deadLetters: &deadLetters)
        }
    }

    /// Ends entry `i`'s lease without an ack: it goes to the dead-letter topic when its attempts
    /// are used up, else back to the subscription (after the retry backoff, when there is a retry
    /// policy). With ordering, the later leased messages of its key come back with it, so the key
    /// is redelivered in order.
    mutating func nack(_ i: Int, now: Timestamp, config: PubSubSubscriptionConfig, deadLetters: inout [PubSubDeadLetter]) {
        guard entries[i].state == .leased else { return }
        let attempts = entries[i].attempts
        if let dl = config.deadLetter, attempts >= Int32(dl.maxAttempts) {
            deadLetters.append(PubSubDeadLetter(seq: entries[i].seq, message: entries[i].message, attempts: attempts))
            markAcked(i, at: now)
        } else {
            entries[i].state = .available
            entries[i].lease = 0
            if let r = config.retry {
                let backoff = min(r.max, r.min * Double(1 << min(Int(max(attempts, 1)) - 1, 20)))
                entries[i].notBefore = now.adding(seconds: backoff)
            }
        }
        let key = entries[i].message.orderingKey
        guard config.ordered, !key.isEmpty else { return }
        var j = i + 1
        while j < entries.count {
            if entries[j].message.orderingKey == key, entries[j].state == .leased {
                entries[j].state = .available
                entries[j].lease = 0
                entries[j].notBefore = entries[i].notBefore
            }
            j += 1
        }
    }

    /// Leases up to `max` deliverable messages (and at most about `maxBytes` bytes when given) for
    /// `deadlineSeconds`. With ordering, a key's messages are handed out in order and not while an
    /// earlier message of the key is outstanding or backing off.
    mutating func lease(max: Int, maxBytes: Int?, deadlineSeconds: Int, now: Timestamp, config: PubSubSubscriptionConfig) -> [PubSubDelivery] {
        var out: [PubSubDelivery] = []
        var bytes = 0
        var blocked: Set<String> = []
        let deadline = now.adding(seconds: Double(deadlineSeconds))
        var i = 0
        while i < entries.count, out.count < max {
            defer { i += 1 }
            let e = entries[i]
            let key = config.ordered ? e.message.orderingKey : ""
            if !key.isEmpty, blocked.contains(key) { continue }
            switch e.state {
            case .acked: continue
            case .leased:
                if !key.isEmpty { blocked.insert(key) }
                continue
            case .available:
                if let nb = e.notBefore, nb > now {
                    if !key.isEmpty { blocked.insert(key) }
                    continue
                }
            }
            if let maxBytes, !out.isEmpty, bytes + e.message.size > maxBytes { break }
            bytes += e.message.size
            entries[i].state = .leased
            entries[i].attempts += 1
            entries[i].lease = nextLease
            entries[i].deadline = deadline
            entries[i].notBefore = nil
            nextLease += 1
            out.append(PubSubDelivery(ackId: Self.ackId(seq: e.seq, lease: entries[i].lease), message: e.message, attempt: entries[i].attempts))
        }
        return out
    }

    /// Sets the deadline of the named leases to `seconds` from now; 0 returns them (nack).
    mutating func modifyDeadline(
        _ ids: [(seq: Int64, lease: Int64)], seconds: Int, now: Timestamp, config: PubSubSubscriptionConfig,
        deadLetters: inout [PubSubDeadLetter]
    ) {
        for id in ids {
            guard let i = index(of: id.seq), entries[i].state == .leased, entries[i].lease == id.lease else { continue }
            if seconds == 0 {
                nack(i, now: now, config: config, deadLetters: &deadLetters)
            } else {
                entries[i].deadline = now.adding(seconds: Double(seconds))
            }
        }
    }

    /// The earliest future time at which something becomes deliverable without a new publish: a
    /// lease's deadline or a backoff's end.
    func nextWake(after now: Timestamp) -> Timestamp? {
        var best: Timestamp?
        for e in entries {
            let t: Timestamp?
            switch e.state {
            case .leased: t = e.deadline
            case .available: t = e.notBefore
            case .acked: t = nil
            }
            if let t, t > now, best.map({ t < $0 }) ?? true { best = t }
        }
        return best
    }

    /// Whether anything is deliverable now.
    func hasDeliverable(now: Timestamp) -> Bool {
        entries.contains { e in
            switch e.state {
            case .available: return e.notBefore.map { $0 <= now } ?? true
            case .leased: return e.deadline <= now
            case .acked: return false
            }
        }
    }
}
