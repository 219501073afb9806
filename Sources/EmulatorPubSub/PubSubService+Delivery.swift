import EmulatorCore

/// Pull, Acknowledge, ModifyAckDeadline, and what StreamingPull sessions call.
extension PubSubService {
    /// The most messages one Pull answers.
    static let maxPullMessages = 1000
    /// How long a Pull without `return_immediately` waits for a message (wall time).
    static let pullWaitSeconds = 10.0

    /// Pull: leases up to `max_messages`; without `return_immediately` waits a while for one.
    public func pull(_ request: JSON) async throws -> JSON {
        let name = try PubSubName(PubSubRequest.string(request, "subscription"), kind: .subscriptions)
        let max = try PubSubRequest.int(request, "maxMessages", "max_messages")
        guard max > 0 else { throw EmulatorError.invalidArgument("No max_messages specified") }
        let immediate = PubSubRequest.bool(request, "returnImmediately", "return_immediately")
        let started = WallClock().now()
        while true {
            let (got, withAttempts) = try lease(name, max: Int(min(max, Int64(Self.maxPullMessages))), maxBytes: nil, deadlineSeconds: nil)
            let waited = Double(WallClock().now().microseconds - started.microseconds) / 1e6
            if !got.isEmpty || immediate || waited >= Self.pullWaitSeconds || Task.isCancelled {
                return ["receivedMessages": .array(got.map { Self.received($0, withAttempts) })]
            }
            await waitForMessages(name, atMost: Self.pullWaitSeconds - waited)
        }
    }

    /// A ReceivedMessage in proto3 JSON (`deliveryAttempt` only with a dead-letter policy).
    static func received(_ d: PubSubDelivery, _ withAttempts: Bool) -> JSON {
        var o: UTF8Dictionary<JSON> = ["ackId": .string(d.ackId), "message": d.message.json]
        if withAttempts { o["deliveryAttempt"] = .int(Int64(d.attempt)) }
        return .object(o)
    }

    /// Leases messages of a subscription (returning expired leases first and forwarding what used
    /// up its attempts to the dead-letter topic). Returns the deliveries and whether attempts are
    /// reported (a dead-letter policy is set).
    public func lease(_ name: PubSubName, max: Int, maxBytes: Int?, deadlineSeconds: Int?) throws -> ([PubSubDelivery], Bool) {
        var woken: [String] = []
        let result: ([PubSubDelivery], Bool) = try mutate(name.project) { ps, commit in
            guard var s = ps.subscriptions.removeValue(forKey: name.full) else { throw EmulatorError.notFound("Subscription does not exist") }
            defer { ps.subscriptions[name.full] = s }
            guard !s.config.detached else {
                throw EmulatorError.failedPrecondition("Subscription \(name.full) is detached: it receives no messages.")
            }
            let now = self.now(name.project)
            woken = try expire(&s, name: name, ps: &ps, now: now, commit: commit)
            s.backlog.compact(now: now, config: s.config, room: ps.subscriptions.retainRoom(limits))
            let got = s.backlog.lease(
                max: max, maxBytes: maxBytes, deadlineSeconds: deadlineSeconds ?? s.config.ackDeadlineSeconds, now: now, config: s.config)
            return (got, s.config.deadLetter != nil)
        }
        for w in woken { wakeups.wake(w) }
        return result
    }

    /// Returns expired leases; journals and forwards dead letters. `s` is out of `ps` while this runs.
    func expire(
        _ s: inout PubSubSubscriptionState, name: PubSubName, ps: inout PubSubProjectState, now: Timestamp,
        commit: (JSON) throws -> Void
    ) throws -> [String] {
        var dead: [PubSubDeadLetter] = []
        s.backlog.expire(now: now, config: s.config, deadLetters: &dead)
        return try forward(dead, from: &s, name: name, ps: &ps, now: now, commit: commit)
    }

    /// Sends dead letters to the subscription's dead-letter topic (new ids, production's
    /// `CloudPubSubDeadLetterSource*` attributes), journaled with their acks on the source; when
    /// the journal refuses, they are put back on the source and the call fails. When they do not
    /// fit (a subscription of the dead-letter topic is full, or the project would pass its
    /// budget: `noRoom`) they stay on the source, unacknowledged, as a publish would be refused:
    /// a dead-letter topic that feeds the subscriptions dead lettering into it otherwise
    /// multiplies their backlog on every round of nacks or expired leases.
    func forward(
        _ dead: [PubSubDeadLetter], from s: inout PubSubSubscriptionState, name: PubSubName, ps: inout PubSubProjectState,
        now: Timestamp, commit: (JSON) throws -> Void
    ) throws -> [String] {
        guard !dead.isEmpty, let dl = s.config.deadLetter else { return [] }
        // Built without ids first: their sizes and the filters they meet (the added attributes
        // count) decide whether they fit, and a forward that does not fit draws nothing.
        var messages: [PublishedMessage] = dead.map { d in
            var m = d.message
            m.publishTime = now
            m.attributes["CloudPubSubDeadLetterSourceDeliveryCount"] = String(d.attempts)
            m.attributes["CloudPubSubDeadLetterSourceSubscription"] = name.id
            m.attributes["CloudPubSubDeadLetterSourceSubscriptionProject"] = name.project
            m.attributes["CloudPubSubDeadLetterSourceTopicPublishTime"] = d.message.publishTime.rfc3339()
            return m
        }
        let ack: JSON = ["op": "ack", "subscription": .string(name.full), "messageIds": .array(dead.map { .string($0.message.id) })]
        let topicExists = ps.topics[dl.topic] != nil
        let keep = { (s: inout PubSubSubscriptionState) in for d in dead { if let i = s.backlog.index(of: d.seq) { s.backlog.markUnacked(i) } } }
        if topicExists {
            if Self.noRoom(ps, topic: dl.topic, messages, limits, outside: (name.full, s)) != nil {
                keep(&s)
                return []
            }
            let env = environments.environment(for: name.project)
            for i in messages.indices {
                messages[i].id = env.ids.digits(16)
                messages[i].serial = ps.lastSerial + Int64(i) + 1
            }
        }
        do {
            var entries = [ack]
            if topicExists { entries.append(["op": "publish", "topic": .string(dl.topic), "messages": .array(messages.map(\.stored))]) }
            try commit(["op": "batch", "entries": .array(entries)])
        } catch {
            keep(&s)
            throw error
        }
        guard topicExists else { return [] }
        // The source subscription is out of `ps` now; a dead-letter topic that feeds it gets the
        // messages when it is put back (fanOut only sees subscriptions in `ps`).
        var woken = Self.fanOut(&ps, topic: dl.topic, messages, now: now, limits: limits)
        if s.config.topic == dl.topic {
            for m in messages where s.config.filter?.matches(m.attributes) ?? true { s.backlog.append(m) }
            woken.append(name.full)
        }
        if let observer = hooks.withLock({ $0.observer }) {
            observer.call(name.project, String(dl.topic.split(separator: "/").last ?? ""), messages)
        }
        return woken
    }

    /// Parses ack ids; a malformed one is Google's `Invalid ack id (ack_id=...)`.
    static func ackIds(_ texts: [String]) throws(EmulatorError) -> [(seq: Int64, lease: Int64)] {
        guard !texts.isEmpty else { throw EmulatorError.invalidArgument("No ack ids specified.") }
        var out: [(seq: Int64, lease: Int64)] = []
        out.reserveCapacity(texts.count)
        for t in texts {
            guard let id = PubSubBacklog.parseAckId(t) else {
                throw EmulatorError.invalidArgument("Invalid ack id (ack_id=\(String(t.prefix(200))))")
            }
            out.append(id)
        }
        return out
    }

    /// Acknowledge.
    public func acknowledge(_ request: JSON) throws -> JSON {
        let name = try PubSubName(PubSubRequest.string(request, "subscription"), kind: .subscriptions)
        try acknowledge(name, try Self.ackIds(try PubSubRequest.strings(request, "ackIds", "ack_ids")))
        return .object([:])
    }

    /// Acknowledges parsed ack ids (journaled by message id). With exactly-once delivery, ack ids
    /// whose lease ended fail the call with INVALID_ARGUMENT after the valid ones are acknowledged.
    public func acknowledge(_ name: PubSubName, _ ids: [(seq: Int64, lease: Int64)]) throws {
        let failed: Int = try mutate(name.project) { ps, commit in
            guard var s = ps.subscriptions.removeValue(forKey: name.full) else { throw EmulatorError.notFound("Subscription does not exist") }
            defer { ps.subscriptions[name.full] = s }
            let now = self.now(name.project)
            let (targets, failed) = s.backlog.ackTargets(ids, now: now, exactlyOnce: s.config.exactlyOnce)
            if !targets.isEmpty {
                try commit([
                    "op": "ack", "subscription": .string(name.full), "messageIds": .array(targets.map { .string(s.backlog.entries[$0].message.id) }),
                ])
                for i in targets { s.backlog.markAcked(i, at: now) }
                s.backlog.compact(now: now, config: s.config, room: ps.subscriptions.retainRoom(limits))
            }
            return failed
        }
        wakeups.wake(name.full)  // streams under flow control may lease again
        if failed > 0 {
            throw EmulatorError.invalidArgument(
                "\(failed) of the acknowledgement ids in the request were invalid: their leases have expired (exactly-once delivery).")
        }
    }

    /// ModifyAckDeadline.
    public func modifyAckDeadline(_ request: JSON) throws -> JSON {
        let name = try PubSubName(PubSubRequest.string(request, "subscription"), kind: .subscriptions)
        let seconds = try PubSubRequest.int(request, "ackDeadlineSeconds", "ack_deadline_seconds")
        let ids = try Self.ackIds(try PubSubRequest.strings(request, "ackIds", "ack_ids"))
        try modifyAckDeadline(name, ids, seconds: seconds)
        return .object([:])
    }

    /// Extends (or, with 0, ends) the named leases.
    public func modifyAckDeadline(_ name: PubSubName, _ ids: [(seq: Int64, lease: Int64)], seconds: Int64) throws {
        // Negative: Google's emulator's words. Above 600: production's documented bound (Google's
        // emulator accepts it; docs/pubsub.md lists the difference).
        guard seconds >= 0 else { throw EmulatorError.invalidArgument("Ack deadline cannot be negative") }
        guard seconds <= 600 else {
            throw EmulatorError.invalidArgument("Invalid ack deadline given: \(seconds) (it must be between 0 and 600 seconds).")
        }
        var woken: [String] = []
        try mutate(name.project) { ps, commit in
            guard var s = ps.subscriptions.removeValue(forKey: name.full) else { throw EmulatorError.notFound("Subscription does not exist") }
            defer { ps.subscriptions[name.full] = s }
            let now = self.now(name.project)
            var dead: [PubSubDeadLetter] = []
            s.backlog.modifyDeadline(ids, seconds: Int(seconds), now: now, config: s.config, deadLetters: &dead)
            woken = try forward(dead, from: &s, name: name, ps: &ps, now: now, commit: commit)
            // Dead letters are acknowledged here; compacting now, as replaying their journaled
            // ack does, keeps what a retaining subscription holds the same live and replayed.
            s.backlog.compact(now: now, config: s.config, room: ps.subscriptions.retainRoom(limits))
            if seconds == 0 { woken.append(name.full) }
        }
        for w in woken { wakeups.wake(w) }
    }

    /// Of the leases a stream handed out, those still held (StreamingPull flow control).
    public func stillLeased(_ name: PubSubName, _ ids: [(seq: Int64, lease: Int64)]) -> [Bool] {
        read(name.project) { ps in
            guard let s = ps.subscriptions[name.full] else { return ids.map { _ in false } }
            return ids.map { s.backlog.isLeased(seq: $0.seq, lease: $0.lease) }
        }
    }

    /// The subscription's settings (StreamingPull's handshake); NOT_FOUND when it does not exist.
    public func subscriptionConfig(_ name: PubSubName) throws -> PubSubSubscriptionConfig {
        try read(name.project) { ps in
            guard let s = ps.subscriptions[name.full] else { throw EmulatorError.notFound("Subscription does not exist") }
            return s.config
        }
    }

    /// Waits until the subscription may have something to deliver: woken by a publish, nack, seek
    /// or reset, or at the next lease deadline or backoff end on the project clock (converted to
    /// wall time, and re-checked at least every second in case the clock is moved).
    public func waitForMessages(_ name: PubSubName, atMost seconds: Double) async {
        let now = self.now(name.project)
        let (deliverable, wake) = read(name.project) { ps -> (Bool, Timestamp?) in
            guard let s = ps.subscriptions[name.full] else { return (false, nil) }
            return (s.backlog.hasDeliverable(now: now), s.backlog.nextWake(after: now))
        }
        if deliverable { return }
        var wait = min(seconds, 1.0)
        if let wake { wait = min(wait, max(0.005, Double(wake.microseconds - now.microseconds) / 1e6)) }
        await wakeups.wait(name.full, seconds: wait)
    }
}

extension PubSubBacklog {
    /// The entries the ack ids acknowledge (see `PubSubService.acknowledge`) and how many failed
    /// under exactly-once delivery. Unknown positions (already acknowledged and dropped) are ignored.
    func ackTargets(_ ids: [(seq: Int64, lease: Int64)], now: Timestamp, exactlyOnce: Bool) -> ([Int], Int) {
        var targets: [Int] = []
        var failed = 0
        for id in ids {
            guard let i = index(of: id.seq), !entries[i].isAcked else { continue }
            let current = entries[i].state == .leased && entries[i].lease == id.lease && entries[i].deadline > now
            if exactlyOnce && !current {
                failed += 1
                continue
            }
            if entries[i].state == .leased && entries[i].lease != id.lease { continue }  // redelivered under a newer lease
            targets.append(i)
        }
        return (targets, failed)
    }
}

extension PubSubService {
    /// The (position, lease) an ack id names, nil when malformed (for transports that track leases).
    public static func parseAckId(_ text: String) -> (seq: Int64, lease: Int64)? { PubSubBacklog.parseAckId(text) }
}
