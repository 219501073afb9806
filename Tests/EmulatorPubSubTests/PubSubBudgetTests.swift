import EmulatorCore
import Testing

@testable import EmulatorPubSub

/// The project budget (`PubSubLimits.maxProjectMessages`, `maxProjectBytes`): a publish whose
/// fan-out would pass it is refused whole, dead letters that would pass it stay on their source,
/// a seek that would pass it is refused, and the maintained sums equal a recount after every kind
/// of backlog change.
struct PubSubBudgetTests {
    typealias T = PubSubServiceTests
    static let other = "projects/demo-project/topics/other"
    static func sub(_ id: String) -> String { "projects/demo-project/subscriptions/" + id }

    /// A service on a frozen clock with a seeded id generator and the given project budget.
    static func make(messages: Int = 1_000, bytes: Int = 1 << 20) throws -> (PubSubService, ProjectEnvironment) {
        try PubSubRefusalTests.make(PubSubLimits(maxMessages: 100, maxBytes: 1 << 20, maxProjectMessages: messages, maxProjectBytes: bytes))
    }

    /// Unacknowledged entries the project holds, after checking the sums against a recount.
    static func held(_ s: PubSubService, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation) -> Int {
        let table = s.snapshot(project: T.p).subscriptions
        #expect(table.recountMismatch() == nil, comment, sourceLocation: sourceLocation)
        return table.unacked
    }

    static func subscribe(_ s: PubSubService, _ id: String, topic: String = T.topic, _ extra: [String: JSON] = [:]) throws {
        var request: UTF8Dictionary<JSON> = ["name": .string(sub(id)), "topic": .string(topic)]
        for (k, v) in extra { request[k] = v }
        _ = try s.createSubscription(.object(request))
    }

    /// Pulls what `id` has and acknowledges it; answers how many.
    @discardableResult
    static func drain(_ s: PubSubService, _ id: String) async throws -> Int {
        let got = try await T.pull(s, 100, sub: sub(id))
        if !got.isEmpty { _ = try s.acknowledge(["subscription": .string(sub(id)), "ackIds": .array(got.compactMap { $0["ackId"] })]) }
        return got.count
    }

    /// Pulls what `id` has and nacks it.
    static func nack(_ s: PubSubService, _ id: String) async throws {
        let got = try await T.pull(s, 100, sub: sub(id))
        guard !got.isEmpty else { return }
        _ = try s.modifyAckDeadline(["subscription": .string(sub(id)), "ackIds": .array(got.compactMap { $0["ackId"] }), "ackDeadlineSeconds": 0])
    }

    static func message(_ kind: String) -> JSON { ["data": T.b64("x"), "attributes": ["kind": .string(kind)]] }

    /// Three subscriptions of a topic (one filtered) and one of another topic: the budget counts
    /// what each filter passes, across topics, and a refusal stores nothing, journals nothing and
    /// draws no id.
    @Test func aPublishPastTheBudgetIsRefusedWhole() async throws {
        let (s, env) = try Self.make(messages: 10)
        let journaled = Mutex(0)
        s.setJournal { _, _ in journaled.withLock { $0 += 1 } }
        _ = try s.createTopic(["name": .string(T.topic)])
        _ = try s.createTopic(["name": .string(Self.other)])
        try Self.subscribe(s, "all-a")
        try Self.subscribe(s, "all-b")
        try Self.subscribe(s, "only-a", ["filter": "attributes.kind = \"a\""])
        try Self.subscribe(s, "elsewhere", topic: Self.other)
        _ = try T.publish(s, [["data": T.b64("x")]], topic: Self.other)
        _ = try T.publish(s, [Self.message("a"), Self.message("a"), Self.message("b")])
        #expect(Self.held(s) == 1 + 3 + 3 + 2)
        let (seed, serial, entries) = (env.ids.seedState, s.snapshot(project: T.p).lastSerial, journaled.withLock { $0 })
        // A message is 3 bytes of data and 5 of attributes; the other topic's has no attributes.
        #expect(
            throws: EmulatorError(
                .resourceExhausted,
                "Project demo-project's subscriptions hold 9 unacknowledged messages (67 bytes) and this publish would add 2 (16 bytes) across them, past the emulator's limit (10 messages or 1048576 bytes per project: limits.pubsubMaxProjectMessages and limits.pubsubMaxProjectBytes in emulator.json); acknowledge, seek or delete subscriptions before publishing more."
            )
        ) { try T.publish(s, [Self.message("b")]) }
        #expect(Self.held(s) == 9 && env.ids.seedState == seed && s.snapshot(project: T.p).lastSerial == serial)
        #expect(journaled.withLock { $0 } == entries && s.snapshot(project: T.p).recent[T.topic]?.count == 3)
        _ = try T.publish(s, [["data": T.b64("x")]], topic: Self.other)  // one entry: exactly at the budget
        #expect(Self.held(s) == 10)
        #expect(try await Self.drain(s, "elsewhere") == 2)
        _ = try T.publish(s, [Self.message("b")])
        #expect(Self.held(s) == 10)
    }

    /// Bytes count once per entry: a payload fanned out to two subscriptions counts twice.
    @Test func theByteBudgetCountsEachEntry() throws {
        let (s, _) = try Self.make(bytes: 20)
        _ = try s.createTopic(["name": .string(T.topic)])
        try Self.subscribe(s, "one")
        try Self.subscribe(s, "two")
        _ = try T.publish(s, [["data": T.b64("x")]])  // 3 bytes, twice
        #expect(s.snapshot(project: T.p).subscriptions.unackedBytes == 6)
        #expect(throws: EmulatorError.self) { try T.publish(s, [Self.message("a")]) }  // 8 bytes, twice: 22
        _ = try T.publish(s, [["data": T.b64("y")], ["data": T.b64("z")]])  // 6 + 12 = 18
        #expect(s.snapshot(project: T.p).subscriptions.unackedBytes == 18)
    }

    /// Dead letters that would take the project past its budget stay on their source, drawing
    /// no ids; the source's other messages count (it is out of the project's table while its
    /// dead letters are forwarded), and so do the attributes forwarding adds.
    @Test func deadLettersAtTheBudgetStayOnTheirSource() async throws {
        let (s, env) = try Self.make(messages: 2)
        let dead = "projects/demo-project/topics/dead"
        _ = try s.createTopic(["name": .string(T.topic)])
        _ = try s.createTopic(["name": .string(dead)])
        try Self.subscribe(s, "dead-1", topic: dead)
        try Self.subscribe(s, "dead-2", topic: dead)
        try Self.subscribe(s, "source", ["deadLetterPolicy": ["deadLetterTopic": .string(dead), "maxDeliveryAttempts": 5]])
        _ = try T.publish(s, [["data": T.b64("one")], ["data": T.b64("two")]])
        let one = try await T.pull(s, 1, sub: Self.sub("source"))  // stays leased: the clock is frozen
        for _ in 1...4 { try await Self.nack(s, "source") }
        // The fifth nack of "two" would leave "one" and add two entries: 3 > 2.
        let seed = env.ids.seedState
        try await Self.nack(s, "source")
        #expect(env.ids.seedState == seed && Self.held(s) == 2)
        #expect(s.snapshot(project: T.p).subscriptions[Self.sub("dead-1")]?.backlog.unacked == 0)
        // With "one" acknowledged, "two" fits (one entry becomes two).
        _ = try s.acknowledge(["subscription": .string(Self.sub("source")), "ackIds": .array(one.compactMap { $0["ackId"] })])
        try await Self.nack(s, "source")
        #expect(Self.held(s) == 2)
        #expect(try await T.pull(s, 10, sub: Self.sub("dead-2")).map(T.data) == ["two"])

        // Bytes: 3-byte messages fit a 100-byte budget, but forwarded they carry about 200 bytes
        // of CloudPubSubDeadLetterSource* attributes each.
        let (b, benv) = try Self.make(bytes: 100)
        _ = try b.createTopic(["name": .string(T.topic)])
        _ = try b.createTopic(["name": .string(dead)])
        try Self.subscribe(b, "dead-1", topic: dead)
        try Self.subscribe(b, "source", ["deadLetterPolicy": ["deadLetterTopic": .string(dead), "maxDeliveryAttempts": 5]])
        _ = try T.publish(b, [["data": T.b64("one")]])
        for _ in 1...4 { try await Self.nack(b, "source") }
        let bseed = benv.ids.seedState
        try await Self.nack(b, "source")
        #expect(benv.ids.seedState == bseed && b.snapshot(project: T.p).subscriptions[Self.sub("source")]?.backlog.unacked == 1)
    }

    /// A seek that would un-acknowledge past the budget is refused and changes nothing; one that
    /// acknowledges is always taken.
    @Test func aSeekPastTheBudgetIsRefused() async throws {
        let (s, env) = try Self.make(messages: 3)
        _ = try s.createTopic(["name": .string(T.topic)])
        try Self.subscribe(s, "kept", ["retainAckedMessages": true])
        let subName = Self.sub("kept"), snap = "projects/demo-project/snapshots/early"
        _ = try T.publish(s, [["data": T.b64("1")], ["data": T.b64("2")], ["data": T.b64("3")]])
        _ = try s.createSnapshot(["name": .string(snap), "subscription": .string(subName)])
        #expect(try await Self.drain(s, "kept") == 3)
        try env.clock.advance(seconds: 60)
        _ = try T.publish(s, [["data": T.b64("4")], ["data": T.b64("5")], ["data": T.b64("6")]])
        #expect(Self.held(s) == 3)
        #expect(
            throws: EmulatorError(
                .resourceExhausted,
                "Seeking \(subName) would make project demo-project's subscriptions hold 6 unacknowledged messages (18 bytes), past the emulator's limit (3 messages or 1048576 bytes per project: limits.pubsubMaxProjectMessages and limits.pubsubMaxProjectBytes in emulator.json); acknowledge or delete subscriptions first."
            )
        ) { try s.seek(["subscription": .string(subName), "time": "2027-01-15T08:00:00Z"]) }
        #expect(throws: EmulatorError.self) { try s.seek(["subscription": .string(subName), "snapshot": .string(snap)]) }
        #expect(Self.held(s) == 3)
        #expect(try await T.pull(s, 10, sub: subName).map(T.data) == ["4", "5", "6"], "the refused seeks left the backlog as it was")
        _ = try s.seek(["subscription": .string(subName), "time": "2027-01-15T09:00:00Z"])  // acknowledges everything
        #expect(Self.held(s) == 0)
    }

    /// An import (or restore) past the budget is taken whole; publishes wait for room, and seeks
    /// that free room are taken.
    @Test func importsPastTheBudgetAreTakenAndPublishesWaitForRoom() async throws {
        let (big, _) = try Self.make()
        _ = try big.createTopic(["name": .string(T.topic)])
        try Self.subscribe(big, "kept")
        _ = try T.publish(big, (1...5).map { _ in ["data": T.b64("x")] })
        let (s, _) = try Self.make(messages: 3)
        try s.importProject(T.p, big.exportProject(T.p))
        #expect(Self.held(s) == 5)
        #expect(throws: EmulatorError.self) { try T.publish(s, [["data": T.b64("x")]]) }
        try s.restoreProject(T.p, from: big.captureProject(T.p))
        #expect(Self.held(s) == 5)
        _ = try s.seek(["subscription": .string(Self.sub("kept")), "time": "2030-01-01T00:00:00Z"])
        #expect(Self.held(s) == 0)
        _ = try T.publish(s, [["data": T.b64("x")]])
        #expect(Self.held(s) == 1)
    }

    /// The maintained sums and topic lists equal a recount after each kind of change: publish,
    /// ack, nack, modack, expiry, dead letters, seek to a time and to a snapshot (with messages
    /// the subscription dropped), retention purge, detach, subscription and topic delete, journal
    /// replay, import, restore and reset.
    @Test func theCountIsExactAfterEveryKindOfChange() async throws {
        let (s, env) = try Self.make()
        let entries = Mutex<[JSON]>([])
        s.setJournal { _, e in entries.withLock { $0.append(e) } }
        let dead = "projects/demo-project/topics/dead"
        for t in [T.topic, dead, Self.other] { _ = try s.createTopic(["name": .string(t)]) }
        try Self.subscribe(s, "kept", ["retainAckedMessages": true, "messageRetentionDuration": "600s"])
        try Self.subscribe(s, "filtered", ["filter": "attributes.kind = \"a\""])
        try Self.subscribe(s, "source", ["deadLetterPolicy": ["deadLetterTopic": .string(dead), "maxDeliveryAttempts": 5]])
        try Self.subscribe(s, "dead-sub", topic: dead)
        try Self.subscribe(s, "elsewhere", topic: Self.other)
        _ = try T.publish(s, [Self.message("a"), Self.message("b"), Self.message("a"), Self.message("c")])
        _ = try T.publish(s, [["data": T.b64("o1")], ["data": T.b64("o2")]], topic: Self.other)
        #expect(Self.held(s, "publish") == 4 + 2 + 4 + 2)
        let kept = try await T.pull(s, 2, sub: Self.sub("kept"))
        _ = try s.acknowledge(["subscription": .string(Self.sub("kept")), "ackIds": .array(kept.compactMap { $0["ackId"] })])
        #expect(Self.held(s, "ack") == 10)
        let filtered = try await T.pull(s, 10, sub: Self.sub("filtered"))
        _ = try s.modifyAckDeadline([
            "subscription": .string(Self.sub("filtered")), "ackIds": [filtered[0]["ackId"] ?? .null], "ackDeadlineSeconds": 60,
        ])
        _ = try s.modifyAckDeadline([
            "subscription": .string(Self.sub("filtered")), "ackIds": [filtered[1]["ackId"] ?? .null], "ackDeadlineSeconds": 0,
        ])
        #expect(Self.held(s, "modack and nack") == 10)
        _ = try await T.pull(s, 10, sub: Self.sub("kept"))
        try env.clock.advance(seconds: 11)
        #expect(try await T.pull(s, 10, sub: Self.sub("kept")).count == 2, "expired leases come back")
        #expect(Self.held(s, "expiry") == 10)
        for _ in 1...5 { try await Self.nack(s, "source") }
        #expect(s.snapshot(project: T.p).subscriptions[Self.sub("dead-sub")]?.backlog.unacked == 4)
        #expect(Self.held(s, "dead letters") == 10)
        _ = try s.seek(["subscription": .string(Self.sub("kept")), "time": "2027-01-15T08:00:00Z"])
        #expect(Self.held(s, "seek to a time") == 12)
        let snap = "projects/demo-project/snapshots/two"
        _ = try s.createSnapshot(["name": .string(snap), "subscription": .string(Self.sub("elsewhere"))])
        #expect(try await Self.drain(s, "elsewhere") == 2)
        #expect(Self.held(s, "drained") == 10)
        _ = try s.seek(["subscription": .string(Self.sub("elsewhere")), "snapshot": .string(snap)])
        #expect(Self.held(s, "seek to a snapshot the subscription no longer holds") == 12)
        try env.clock.advance(seconds: 600)
        _ = try T.publish(s, [Self.message("b")])  // compacts the topic's subscriptions
        #expect(Self.held(s, "retention purge") == 2 + 2 + 4 + 1 + 1)
        _ = try s.detachSubscription(["subscription": .string(Self.sub("source"))])
        #expect(Self.held(s, "detach") == 9)
        _ = try s.deleteSubscription(["subscription": .string(Self.sub("filtered"))])
        #expect(Self.held(s, "subscription delete") == 7)
        _ = try s.deleteTopic(["topic": .string(T.topic)])
        _ = try s.deleteTopic(["topic": .string(dead)])
        #expect(Self.held(s, "topic delete") == 7 && s.snapshot(project: T.p).subscriptionNames(of: "_deleted-topic_").count == 3)

        let (replayed, renv) = try Self.make()
        try renv.clock.freeze(at: env.clock.now())
        for e in entries.withLock({ $0 }) { try replayed.replay(project: T.p, entry: e) }
        #expect(Self.held(replayed, "journal replay") > 0)
        let (imported, _) = try Self.make()
        try imported.importProject(T.p, s.exportProject(T.p))
        #expect(Self.held(imported, "import") == 7)
        let captured = s.captureProject(T.p)
        try s.resetProject(T.p)
        #expect(Self.held(s, "reset") == 0)
        try s.restoreProject(T.p, from: captured)
        #expect(Self.held(s, "restore") == 7)
    }
}
