import EmulatorCore

/// Why messages cannot be added to a project's backlogs.
enum PubSubNoRoom {
    /// This subscription would pass the per-subscription limit.
    case subscription(String, PubSubSubscriptionState)
    /// The project's subscriptions would pass the project budget by adding this many entries and bytes.
    case project(adding: Int, bytes: Int)
}

/// The limits every path that adds backlog entries checks before it changes anything: a
/// publish, dead letters, a seek (`PubSubLimits`).
extension PubSubService {
    /// Whether `messages` fit when fanned out to `topic`'s subscriptions: each attached one must
    /// stay within `maxMessages`/`maxBytes` with the messages its filter passes, and the project
    /// within its budget with all of them. `outside` is a subscription of the project taken out
    /// of `ps` while this runs (a dead letter's source): its backlog counts toward the project,
    /// and it receives the messages too when it is attached to `topic`. The messages need not
    /// have ids yet: sizes and filters read only payloads, attributes and keys.
    static func noRoom(
        _ ps: PubSubProjectState, topic: String, _ messages: [PublishedMessage], _ limits: PubSubLimits,
        outside: (name: String, state: PubSubSubscriptionState)? = nil
    ) -> PubSubNoRoom? {
        let all = (count: messages.count, bytes: messages.reduce(0) { $0 + $1.size })
        var adding = 0, addingBytes = 0
        var receivers = ps.subscriptionNames(of: topic).compactMap { t in ps.subscriptions[t].map { (t, $0) } }
        if let outside, outside.state.config.topic == topic { receivers.append(outside) }
        for (t, s) in receivers where !s.config.detached {
            var gets = all
            if let filter = s.config.filter {
                gets = (0, 0)
                for m in messages where filter.matches(m.attributes) { gets = (gets.count + 1, gets.bytes + m.size) }
            }
            guard gets.count > 0 else { continue }
            if !s.backlog.hasRoom(count: gets.count, bytes: gets.bytes, limits) { return .subscription(t, s) }
            adding += gets.count
            addingBytes += gets.bytes
        }
        let held = ps.subscriptions.unacked + (outside?.state.backlog.unacked ?? 0)
        let heldBytes = ps.subscriptions.unackedBytes + (outside?.state.backlog.unackedBytes ?? 0)
        if held + adding > limits.maxProjectMessages || heldBytes + addingBytes > limits.maxProjectBytes {
            return .project(adding: adding, bytes: addingBytes)
        }
        return nil
    }

    /// The RESOURCE_EXHAUSTED a publish that does not fit answers.
    static func publishRefusal(_ why: PubSubNoRoom, _ ps: PubSubProjectState, project: String, _ limits: PubSubLimits) -> EmulatorError {
        switch why {
        case .subscription(let t, let s):
            return EmulatorError(
                .resourceExhausted,
                "Subscription \(t) holds \(s.backlog.unacked) unacknowledged messages (\(s.backlog.unackedBytes) bytes), the emulator's limit (\(limits.maxMessages) messages or \(limits.maxBytes >> 20) MiB); acknowledge or seek before publishing more."
            )
        case .project(let count, let bytes):
            return EmulatorError(
                .resourceExhausted,
                "Project \(project)'s subscriptions hold \(ps.subscriptions.unacked) unacknowledged messages (\(ps.subscriptions.unackedBytes) bytes) and this publish would add \(count) (\(bytes) bytes) across them, past the emulator's limit (\(limits.projectBudgetText)); acknowledge, seek or delete subscriptions before publishing more."
            )
        }
    }

    /// Nil when a seek that changed subscription `name` from `before` to `after` may be applied:
    /// one that adds no unacknowledged entries always may (it frees room, or moves none), one
    /// that adds some must leave the subscription and the project (`ps`, holding `before`) within
    /// their limits. Else the RESOURCE_EXHAUSTED it answers.
    static func seekRefusal(
        _ ps: PubSubProjectState, name: String, before: PubSubBacklog, after: PubSubBacklog, project: String, _ limits: PubSubLimits
    ) -> EmulatorError? {
        let adding = after.unacked - before.unacked, addingBytes = after.unackedBytes - before.unackedBytes
        guard adding > 0 || addingBytes > 0 else { return nil }
        if after.unacked > limits.maxMessages || after.unackedBytes > limits.maxBytes {
            return EmulatorError(
                .resourceExhausted,
                "Seeking would make subscription \(name) hold \(after.unacked) unacknowledged messages (\(after.unackedBytes) bytes), past the emulator's limit (\(limits.maxMessages) messages or \(limits.maxBytes >> 20) MiB); acknowledge some first."
            )
        }
        let held = ps.subscriptions.unacked + adding, heldBytes = ps.subscriptions.unackedBytes + addingBytes
        if held > limits.maxProjectMessages || heldBytes > limits.maxProjectBytes {
            return EmulatorError(
                .resourceExhausted,
                "Seeking \(name) would make project \(project)'s subscriptions hold \(held) unacknowledged messages (\(heldBytes) bytes), past the emulator's limit (\(limits.projectBudgetText)); acknowledge or delete subscriptions first."
            )
        }
        return nil
    }
}
