import EmulatorCore
import Testing

@testable import EmulatorPubSub

/// Topics, subscriptions and delivery through the service's RPC functions, on a frozen clock.
struct PubSubServiceTests {
    static let p = "demo-project"
    static let topic = "projects/demo-project/topics/orders"
    static let sub = "projects/demo-project/subscriptions/orders-sub"

    /// A service whose project clock is frozen (advance it with `env.clock.advance`).
    static func make() throws -> (PubSubService, ProjectEnvironment) {
        let envs = LocalEnvironmentProvider()
        let env = envs.environment(for: p)
        try env.clock.freeze(at: Timestamp(seconds: 1_800_000_000))
        env.ids.reseed(7)
        return (PubSubService(environments: envs), env)
    }

    static func publish(_ s: PubSubService, _ messages: [JSON], topic: String = topic) throws -> [String] {
        try s.publish(["topic": .string(topic), "messages": .array(messages)])["messageIds"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    static func pull(_ s: PubSubService, _ max: Int = 10, sub: String = sub) async throws -> [JSON] {
        try await s.pull(["subscription": .string(sub), "maxMessages": .int(Int64(max)), "returnImmediately": true])["receivedMessages"]?.arrayValue
            ?? []
    }

    static func data(_ r: JSON) -> String { String(decoding: Base64.decode(r["message"]?["data"]?.stringValue ?? "") ?? [], as: UTF8.self) }
    static func b64(_ s: String) -> JSON { .string(Base64.encode(Array(s.utf8))) }

    /// A negative deadline is refused in Google's emulator's words; above 600 s is refused as
    /// production documents (Google's emulator takes it: docs/pubsub.md lists the difference).
    @Test func modifyAckDeadlineBounds() async throws {
        let (s, _) = try Self.make()
        _ = try s.createTopic(["name": .string(Self.topic)])
        _ = try s.createSubscription(["name": .string(Self.sub), "topic": .string(Self.topic)])
        _ = try Self.publish(s, [["data": Self.b64("x")]])
        let ack = try await Self.pull(s).first?["ackId"] ?? .null
        #expect(throws: EmulatorError.invalidArgument("Ack deadline cannot be negative")) {
            try s.modifyAckDeadline(["subscription": .string(Self.sub), "ackIds": [ack], "ackDeadlineSeconds": -1])
        }
        #expect(throws: EmulatorError.invalidArgument("Invalid ack deadline given: 601 (it must be between 0 and 600 seconds).")) {
            try s.modifyAckDeadline(["subscription": .string(Self.sub), "ackIds": [ack], "ackDeadlineSeconds": 601])
        }
    }

    @Test func topicsAndSubscriptionsAnswerAsGooglesEmulator() throws {
        let (s, _) = try Self.make()
        let t = try s.createTopic(["name": .string(Self.topic)])
        #expect(t["name"]?.stringValue == Self.topic)
        #expect(throws: EmulatorError.alreadyExists("Topic already exists")) { try s.createTopic(["name": .string(Self.topic)]) }
        #expect(throws: EmulatorError.invalidArgument("Invalid [topics] name: (name=projects/demo-project/topics/ab)")) {
            try s.createTopic(["name": "projects/demo-project/topics/ab"])
        }
        #expect(throws: EmulatorError.notFound("Topic not found")) { try s.getTopic(["topic": "projects/demo-project/topics/nope"]) }
        #expect(throws: EmulatorError.notFound("Subscription topic does not exist")) {
            try s.createSubscription(["name": .string(Self.sub), "topic": "projects/demo-project/topics/nope"])
        }
        let created = try s.createSubscription(["name": .string(Self.sub), "topic": .string(Self.topic)])
        #expect(created["ackDeadlineSeconds"] == 10)
        #expect(created["messageRetentionDuration"] == "604800s")
        #expect(created["pushConfig"] == .object([:]))
        #expect(throws: EmulatorError.invalidArgument("ack_deadline_secs out of bounds")) {
            try s.createSubscription(["name": "projects/demo-project/subscriptions/other", "topic": .string(Self.topic), "ackDeadlineSeconds": 700])
        }
        #expect(
            throws: EmulatorError(
                .outOfRange, "The value for max_delivery_attempts is too small. You passed 3 in the request, but the minimum value is 5.")
        ) {
            try s.createSubscription([
                "name": "projects/demo-project/subscriptions/other", "topic": .string(Self.topic),
                "deadLetterPolicy": ["deadLetterTopic": .string(Self.topic), "maxDeliveryAttempts": 3],
            ])
        }
        let list = try s.listTopicSubscriptions(["topic": .string(Self.topic)])
        #expect(list["subscriptions"] == [.string(Self.sub)])
        let updated = try s.updateTopic(["topic": ["name": .string(Self.topic), "labels": ["a": "b"]], "updateMask": "labels"])
        #expect(updated["labels"]?["a"] == "b")
        #expect(throws: EmulatorError.self) { try s.updateTopic(["topic": ["name": .string(Self.topic)], "updateMask": ["paths": []]]) }
        _ = try s.deleteTopic(["topic": .string(Self.topic)])
        #expect(try s.getSubscription(["subscription": .string(Self.sub)])["topic"] == "_deleted-topic_")
        #expect(throws: EmulatorError.notFound("Topic not found")) { try Self.publish(s, [["data": Self.b64("x")]]) }
    }

    @Test func publishPullAckAndRedeliveryAfterTheDeadline() async throws {
        let (s, env) = try Self.make()
        _ = try s.createTopic(["name": .string(Self.topic)])
        _ = try s.createSubscription(["name": .string(Self.sub), "topic": .string(Self.topic)])
        #expect(throws: EmulatorError.invalidArgument("Some messages are empty")) { try Self.publish(s, [[:]]) }
        #expect(throws: EmulatorError.invalidArgument("No messages to publish")) { try Self.publish(s, []) }
        let ids = try Self.publish(s, [["data": Self.b64("one"), "attributes": ["k": "v"]], ["data": Self.b64("two")]])
        #expect(ids.count == 2 && ids[0] != ids[1])
        let got = try await Self.pull(s)
        #expect(got.map(Self.data) == ["one", "two"])
        #expect(got[0]["message"]?["attributes"]?["k"] == "v")
        #expect(got[0]["message"]?["messageId"]?.stringValue == ids[0])
        #expect(got[0]["message"]?["publishTime"] == "2027-01-15T08:00:00Z")
        #expect(got[0]["deliveryAttempt"] == nil)
        #expect(try await Self.pull(s).isEmpty)  // leased
        _ = try s.acknowledge(["subscription": .string(Self.sub), "ackIds": [got[0]["ackId"] ?? .null]])
        try env.clock.advance(seconds: 10)
        let again = try await Self.pull(s)
        #expect(again.map(Self.data) == ["two"])  // the unacknowledged one, after its deadline
        #expect(again[0]["ackId"] != got[1]["ackId"])
        // An old ack id does not ack the redelivered message's new lease.
        _ = try s.acknowledge(["subscription": .string(Self.sub), "ackIds": [got[1]["ackId"] ?? .null]])
        _ = try s.modifyAckDeadline(["subscription": .string(Self.sub), "ackIds": [again[0]["ackId"] ?? .null], "ackDeadlineSeconds": 0])
        #expect(try await Self.pull(s).map(Self.data) == ["two"])  // nack: at once
        #expect(throws: EmulatorError.invalidArgument("Invalid ack id (ack_id=garbage)")) {
            try s.acknowledge(["subscription": .string(Self.sub), "ackIds": ["garbage"]])
        }
        #expect(throws: EmulatorError.invalidArgument("No ack ids specified.")) {
            try s.acknowledge(["subscription": .string(Self.sub), "ackIds": []])
        }
    }

    @Test func orderingKeysAreDeliveredInOrderOneLeaseAtATime() async throws {
        let (s, _) = try Self.make()
        _ = try s.createTopic(["name": .string(Self.topic)])
        _ = try s.createSubscription(["name": .string(Self.sub), "topic": .string(Self.topic), "enableMessageOrdering": true])
        _ = try Self.publish(
            s,
            [
                ["data": Self.b64("a1"), "orderingKey": "a"], ["data": Self.b64("b1"), "orderingKey": "b"],
                ["data": Self.b64("a2"), "orderingKey": "a"],
            ])
        let first = try await Self.pull(s, 1)
        #expect(first.map(Self.data) == ["a1"])
        // a2 waits for a1; b1 is free.
        let second = try await Self.pull(s, 10)
        #expect(second.map(Self.data) == ["b1"])
        _ = try s.modifyAckDeadline(["subscription": .string(Self.sub), "ackIds": [first[0]["ackId"] ?? .null], "ackDeadlineSeconds": 0])
        let third = try await Self.pull(s, 10)
        #expect(third.map(Self.data) == ["a1", "a2"])
    }

    @Test func deadLettersAndRetryBackoffFollowTheProjectClock() async throws {
        let (s, env) = try Self.make()
        let dlTopic = "projects/demo-project/topics/dead", dlSub = "projects/demo-project/subscriptions/dead-sub"
        _ = try s.createTopic(["name": .string(Self.topic)])
        _ = try s.createTopic(["name": .string(dlTopic)])
        _ = try s.createSubscription(["name": .string(dlSub), "topic": .string(dlTopic)])
        let created = try s.createSubscription([
            "name": .string(Self.sub), "topic": .string(Self.topic),
            "deadLetterPolicy": ["deadLetterTopic": .string(dlTopic), "maxDeliveryAttempts": 5],
            "retryPolicy": ["minimumBackoff": "1s", "maximumBackoff": "3s"],
        ])
        #expect(created["retryPolicy"]?["maximumBackoff"] == "3s")
        _ = try Self.publish(s, [["data": Self.b64("poison")]])
        for attempt in 1...5 {
            let got = try await Self.pull(s)
            #expect(got.count == 1, "attempt \(attempt)")
            #expect(got.first?["deliveryAttempt"] == .int(Int64(attempt)))
            _ = try s.modifyAckDeadline(["subscription": .string(Self.sub), "ackIds": [got.first?["ackId"] ?? .null], "ackDeadlineSeconds": 0])
            #expect(try await Self.pull(s).isEmpty, "backing off after attempt \(attempt)")
            try env.clock.advance(seconds: 3)
        }
        #expect(try await Self.pull(s).isEmpty)
        let dead = try await Self.pull(s, sub: dlSub)
        #expect(dead.map(Self.data) == ["poison"])
        #expect(dead.first?["message"]?["attributes"]?["CloudPubSubDeadLetterSourceDeliveryCount"] == "5")
        #expect(dead.first?["message"]?["attributes"]?["CloudPubSubDeadLetterSourceSubscription"] == "orders-sub")
    }

    /// Two subscriptions of a topic that is also their dead-letter topic: every dead letter of
    /// one lands on both, so nacking alone once doubled the backlog each round. Dead letters bound
    /// for a full subscription now stay on their source, and no backlog passes the limit.
    @Test func deadLettersIntoTheirOwnTopicStopAtTheBacklogLimit() async throws {
        let envs = LocalEnvironmentProvider()
        try envs.environment(for: Self.p).clock.freeze(at: Timestamp(seconds: 1_800_000_000))
        let limits = PubSubLimits(maxMessages: 8, maxBytes: 1 << 20)
        let s = PubSubService(environments: envs, limits: limits)
        _ = try s.createTopic(["name": .string(Self.topic)])
        let subs = ["projects/demo-project/subscriptions/loop-a", "projects/demo-project/subscriptions/loop-b"]
        for sub in subs {
            _ = try s.createSubscription([
                "name": .string(sub), "topic": .string(Self.topic),
                "deadLetterPolicy": ["deadLetterTopic": .string(Self.topic), "maxDeliveryAttempts": 5],
            ])
        }
        _ = try Self.publish(s, [["data": Self.b64("loop")]])
        var held: [Int] = []
        for _ in 0..<40 {
            for sub in subs {
                let got = try await Self.pull(s, 100, sub: sub)
                if !got.isEmpty {
                    try s.modifyAckDeadline(["subscription": .string(sub), "ackIds": .array(got.compactMap { $0["ackId"] }), "ackDeadlineSeconds": 0])
                }
            }
            held = subs.map { s.snapshot(project: Self.p).subscriptions[$0]?.backlog.unacked ?? -1 }
            #expect(held.allSatisfy { $0 <= limits.maxMessages }, "\(held)")
        }
        #expect(held.contains(limits.maxMessages), "the loop ran until a backlog was full: \(held)")
        #expect(throws: EmulatorError.self) { try Self.publish(s, [["data": Self.b64("more")]]) }
    }

    /// Snapshots copy their subscription's backlog: a project holds a bounded number of them and
    /// of messages in them, checked before the copy.
    @Test func snapshotsAreBoundedInCountAndMessages() throws {
        let limits = PubSubLimits(maxMessages: 100, maxBytes: 1 << 20, maxSnapshots: 2, maxSnapshotMessages: 5)
        let s = PubSubService(environments: LocalEnvironmentProvider(), limits: limits)
        _ = try s.createTopic(["name": .string(Self.topic)])
        _ = try s.createSubscription(["name": .string(Self.sub), "topic": .string(Self.topic)])
        func snap(_ id: String) throws {
            _ = try s.createSnapshot(["name": .string("projects/demo-project/snapshots/" + id), "subscription": .string(Self.sub)])
        }
        func drop(_ id: String) throws { _ = try s.deleteSnapshot(["snapshot": .string("projects/demo-project/snapshots/" + id)]) }
        _ = try Self.publish(s, [["data": Self.b64("a")], ["data": Self.b64("b")]])
        try snap("snap-1")
        try snap("snap-2")
        #expect(
            throws: EmulatorError(.resourceExhausted, "Project demo-project holds 2 snapshots, the emulator's limit (2); delete some first.")
        ) { try snap("snap-3") }
        try drop("snap-2")
        _ = try Self.publish(s, [["data": Self.b64("c")], ["data": Self.b64("d")]])
        #expect(
            throws: EmulatorError(
                .resourceExhausted,
                "Project demo-project's snapshots hold 2 messages and this one would add 4, past the emulator's limit (5); delete some first.")
        ) { try snap("snap-3") }
        try drop("snap-1")
        try snap("snap-3")
    }

    @Test func filtersDeliverOnlyMatchingMessages() async throws {
        let (s, _) = try Self.make()
        _ = try s.createTopic(["name": .string(Self.topic)])
        _ = try s.createSubscription(["name": .string(Self.sub), "topic": .string(Self.topic), "filter": "attributes.kind = \"a\""])
        #expect(throws: EmulatorError.self) {
            try s.createSubscription([
                "name": "projects/demo-project/subscriptions/bad-filter", "topic": .string(Self.topic), "filter": "attributes.x = ",
            ])
        }
        _ = try Self.publish(s, [["data": Self.b64("yes"), "attributes": ["kind": "a"]], ["data": Self.b64("no"), "attributes": ["kind": "b"]]])
        #expect(try await Self.pull(s).map(Self.data) == ["yes"])
    }

    @Test func seekToATimeAndToASnapshot() async throws {
        let (s, env) = try Self.make()
        _ = try s.createTopic(["name": .string(Self.topic)])
        _ = try s.createSubscription(["name": .string(Self.sub), "topic": .string(Self.topic), "retainAckedMessages": true])
        _ = try Self.publish(s, [["data": Self.b64("old")]])
        try env.clock.advance(seconds: 60)
        _ = try Self.publish(s, [["data": Self.b64("new")]])
        let all = try await Self.pull(s)
        _ = try s.acknowledge(["subscription": .string(Self.sub), "ackIds": .array(all.compactMap { $0["ackId"] })])
        #expect(try await Self.pull(s).isEmpty)
        _ = try s.seek(["subscription": .string(Self.sub), "time": "2027-01-15T08:00:30Z"])
        let replayed = try await Self.pull(s)
        #expect(replayed.map(Self.data) == ["new"])
        _ = try s.acknowledge(["subscription": .string(Self.sub), "ackIds": .array(replayed.compactMap { $0["ackId"] })])
        // A snapshot of an empty backlog; then a message; seeking back makes it unacknowledged again.
        let snap = "projects/demo-project/snapshots/before"
        _ = try s.createSnapshot(["name": .string(snap), "subscription": .string(Self.sub)])
        #expect(throws: EmulatorError.alreadyExists("Snapshot already exists")) {
            try s.createSnapshot(["name": .string(snap), "subscription": .string(Self.sub)])
        }
        _ = try Self.publish(s, [["data": Self.b64("after")]])
        let after = try await Self.pull(s)
        _ = try s.acknowledge(["subscription": .string(Self.sub), "ackIds": .array(after.compactMap { $0["ackId"] })])
        _ = try s.seek(["subscription": .string(Self.sub), "snapshot": .string(snap)])
        #expect(try await Self.pull(s).map(Self.data) == ["after"])
        #expect(throws: EmulatorError.notFound("Snapshot does not exist")) {
            try s.seek(["subscription": .string(Self.sub), "snapshot": "projects/demo-project/snapshots/nope"])
        }
    }

    @Test func journalReplayAndExportRebuildTheSameState() async throws {
        let (s, env) = try Self.make()
        let entries = Mutex<[JSON]>([])
        s.setJournal { _, e in entries.withLock { $0.append(e) } }
        _ = try s.createTopic(["name": .string(Self.topic)])
        _ = try s.createSubscription(["name": .string(Self.sub), "topic": .string(Self.topic)])
        _ = try Self.publish(s, [["data": Self.b64("one")], ["data": Self.b64("two")], ["data": Self.b64("three")]])
        let got = try await Self.pull(s, 1)
        _ = try s.acknowledge(["subscription": .string(Self.sub), "ackIds": [got[0]["ackId"] ?? .null]])
        let (replayed, renv) = try Self.make()
        try renv.clock.freeze(at: env.clock.now())
        for e in entries.withLock({ $0 }) + entries.withLock({ $0 }) { try replayed.replay(project: Self.p, entry: e) }  // twice: idempotent
        #expect(try await Self.pull(replayed).map(Self.data) == ["two", "three"])
        let (imported, _) = try Self.make()
        try imported.importProject(Self.p, s.exportProject(Self.p))
        #expect(try await Self.pull(imported).map(Self.data) == ["two", "three"])
    }

    @Test func aRefusedJournalAppendChangesNothing() async throws {
        let (s, _) = try Self.make()
        _ = try s.createTopic(["name": .string(Self.topic)])
        _ = try s.createSubscription(["name": .string(Self.sub), "topic": .string(Self.topic)])
        s.setJournal { _, _ in throw EmulatorError(.unavailable, "disk full") }
        #expect(throws: EmulatorError(.unavailable, "disk full")) { try Self.publish(s, [["data": Self.b64("lost")]]) }
        #expect(throws: EmulatorError(.unavailable, "disk full")) { try s.createTopic(["name": "projects/demo-project/topics/other"]) }
        s.setJournal(nil)
        #expect(try await Self.pull(s).isEmpty)
        #expect(throws: EmulatorError.notFound("Topic not found")) { try s.getTopic(["topic": "projects/demo-project/topics/other"]) }
    }

    @Test func resetAndRestoreGoThroughTheParticipantProtocol() async throws {
        let (s, _) = try Self.make()
        _ = try s.createTopic(["name": .string(Self.topic)])
        _ = try s.createSubscription(["name": .string(Self.sub), "topic": .string(Self.topic)])
        _ = try Self.publish(s, [["data": Self.b64("kept")]])
        let captured = s.captureProject(Self.p)
        try s.resetProject(Self.p)
        #expect(throws: EmulatorError.notFound("Topic not found")) { try s.getTopic(["topic": .string(Self.topic)]) }
        try s.restoreProject(Self.p, from: captured)
        #expect(try await Self.pull(s).map(Self.data) == ["kept"])
    }
}
