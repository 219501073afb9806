import EmulatorCore
import Testing

@testable import EmulatorPubSub

/// Acknowledged messages a subscription retains for seek (`retainAckedMessages`) are bounded like
/// its unacknowledged ones: at most `maxMessages` of them and `maxBytes` of their bytes per
/// subscription, and `maxProjectMessages`/`maxProjectBytes` across the project; past that the
/// oldest acknowledged ones go first, unacknowledged ones never.
struct PubSubRetainedAckTests {
    typealias T = PubSubServiceTests
    typealias B = PubSubBudgetTests

    /// A service on a frozen clock with the given per-subscription and project limits.
    static func make(messages: Int, bytes: Int = 1 << 20, projectMessages: Int = 1_000, projectBytes: Int = 1 << 20) throws -> (
        PubSubService, ProjectEnvironment
    ) {
        try PubSubRefusalTests.make(
            PubSubLimits(maxMessages: messages, maxBytes: bytes, maxProjectMessages: projectMessages, maxProjectBytes: projectBytes))
    }

    /// A topic and a subscription `id` of it that retains acknowledged messages.
    static func setUp(_ s: PubSubService, _ ids: [String] = ["kept"], retain: Bool = true) throws {
        _ = try s.createTopic(["name": .string(T.topic)])
        for id in ids {
            try B.subscribe(s, id, ["retainAckedMessages": .bool(retain), "ackDeadlineSeconds": 600])
        }
    }

    /// Publishes `data` one message at a time, a second apart, each pulled and acknowledged on
    /// every subscription in `ids` before the next.
    static func publishAndAck(_ s: PubSubService, _ env: ProjectEnvironment, _ data: [String], on ids: [String] = ["kept"]) async throws {
        for d in data {
            try env.clock.advance(seconds: 1)
            _ = try T.publish(s, [["data": T.b64(d)]])
            for id in ids { try await B.drain(s, id) }
        }
    }

    /// The data of the acknowledged entries subscription `id` holds, oldest first (after checking
    /// the maintained sums against a recount).
    static func retained(_ s: PubSubService, _ id: String = "kept", sourceLocation: SourceLocation = #_sourceLocation) -> [String] {
        let table = s.snapshot(project: T.p).subscriptions
        #expect(table.recountMismatch() == nil, sourceLocation: sourceLocation)
        let entries = table[B.sub(id)]?.backlog.entries ?? []
        return entries.filter(\.isAcked).map { String(decoding: Base64.decode($0.message.data) ?? [], as: UTF8.self) }
    }

    /// The time the clock started at: before every message these tests publish.
    static let start = "2027-01-15T08:00:00Z"

    /// Acknowledging more than the limit keeps exactly the newest `limit` (under 8, no batch),
    /// and a seek to before all of them brings back only those.
    @Test func theNewestAcknowledgedUpToTheLimitAreKept() async throws {
        let (s, env) = try Self.make(messages: 5)
        try Self.setUp(s)
        try await Self.publishAndAck(s, env, (1...8).map(String.init))
        #expect(Self.retained(s) == ["4", "5", "6", "7", "8"])
        _ = try s.seek(["subscription": .string(B.sub("kept")), "time": .string(Self.start)])
        #expect(try await T.pull(s, 10, sub: B.sub("kept")).map(T.data) == ["4", "5", "6", "7", "8"])
    }

    /// Past the limit a batch of an eighth of it goes at once, so the pass that drops them is
    /// paid for by that many acknowledgements: at 16, the 17th drops three.
    @Test func theOldestGoInBatches() async throws {
        let (s, env) = try Self.make(messages: 16)
        try Self.setUp(s)
        try await Self.publishAndAck(s, env, (1...16).map(String.init))
        #expect(Self.retained(s).count == 16)
        try await Self.publishAndAck(s, env, ["17"])
        #expect(Self.retained(s) == (4...17).map(String.init))
        try await Self.publishAndAck(s, env, ["18", "19"])
        #expect(Self.retained(s) == (4...19).map(String.init))
    }

    /// The byte limit counts the acknowledged entries' sizes the way `maxBytes` does.
    @Test func theByteLimitBoundsThem() async throws {
        let (s, env) = try Self.make(messages: 100, bytes: 40)
        try Self.setUp(s)
        try await Self.publishAndAck(s, env, (1...10).map { "m\($0)-xxxxx" })  // 9 bytes each as sizes count
        let kept = Self.retained(s)
        let sizes = s.snapshot(project: T.p).subscriptions[B.sub("kept")]?.backlog.entries.filter(\.isAcked).map(\.message.size) ?? []
        let total: Int = sizes.reduce(0, +)
        #expect(total <= 40)
        #expect(total > 26, "no more dropped than the batch (40 / 8) and one message (9)")
        #expect(kept.last == "m10-xxxxx")
        #expect(kept == Array((1...10).map { "m\($0)-xxxxx" }.suffix(kept.count)), "the newest ones, in order")
    }

    /// Unacknowledged entries are never dropped for room, even when older than every
    /// acknowledged one (a seek back here would be refused: the retained ones and it would pass
    /// the unacknowledged limit, which is the same figure).
    @Test func unacknowledgedEntriesAreNeverDropped() async throws {
        let (s, env) = try Self.make(messages: 4)
        try Self.setUp(s)
        try env.clock.advance(seconds: 1)
        _ = try T.publish(s, [["data": T.b64("held")]])
        let held = try await T.pull(s, 1, sub: B.sub("kept"))
        #expect(held.map(T.data) == ["held"])
        try await Self.publishAndAck(s, env, (1...7).map(String.init))
        #expect(Self.retained(s) == ["4", "5", "6", "7"])
        let backlog = s.snapshot(project: T.p).subscriptions[B.sub("kept")]?.backlog
        #expect(backlog?.unacked == 1)
        #expect(backlog?.entries.first.map { String(decoding: Base64.decode($0.message.data) ?? [], as: UTF8.self) } == "held")
        _ = try s.modifyAckDeadline([
            "subscription": .string(B.sub("kept")), "ackIds": .array(held.compactMap { $0["ackId"] }), "ackDeadlineSeconds": 0,
        ])
        #expect(try await T.pull(s, 10, sub: B.sub("kept")).map(T.data) == ["held"])
    }

    /// A subscription that does not retain acknowledged messages keeps none, whatever the limits,
    /// and a seek back brings nothing.
    @Test func aSubscriptionThatDoesNotRetainIsUnaffected() async throws {
        let (s, env) = try Self.make(messages: 3)
        try Self.setUp(s, retain: false)
        try await Self.publishAndAck(s, env, (1...6).map(String.init))
        #expect(Self.retained(s).isEmpty)
        _ = try s.seek(["subscription": .string(B.sub("kept")), "time": .string(Self.start)])
        #expect(try await T.pull(s, 10, sub: B.sub("kept")).isEmpty)
    }

    /// Across the project, the subscription being compacted gives up its oldest acknowledged
    /// entries when the project's retained ones would pass `maxProjectMessages`.
    @Test func theProjectBoundsThemTogether() async throws {
        let (s, env) = try Self.make(messages: 5, projectMessages: 7)
        try Self.setUp(s, ["sub-a", "sub-b"])
        try await Self.publishAndAck(s, env, (1...6).map(String.init), on: ["sub-a", "sub-b"])
        let a = Self.retained(s, "sub-a"), b = Self.retained(s, "sub-b")
        #expect(a.count + b.count <= 7)
        #expect(a == Array((1...6).map(String.init).suffix(a.count)))
        #expect(b == Array((1...6).map(String.init).suffix(b.count)))
        #expect(a.count + b.count == 7, "each gave way only as far as the project needed")
        // Publishing still works: retained entries do not count toward the unacknowledged budget.
        try await Self.publishAndAck(s, env, ["7"], on: ["sub-a", "sub-b"])
        #expect(Self.retained(s, "sub-a").count + Self.retained(s, "sub-b").count <= 7)
    }

    /// Journal replay trims at the same points as the live service, so a seek replays the same.
    @Test func journalReplayKeepsTheSameEntries() async throws {
        let (s, env) = try Self.make(messages: 3)
        let entries = Mutex<[JSON]>([])
        s.setJournal { _, e in entries.withLock { $0.append(e) } }
        try Self.setUp(s)
        try await Self.publishAndAck(s, env, (1...5).map(String.init))
        _ = try s.seek(["subscription": .string(B.sub("kept")), "time": .string(Self.start)])
        let (replayed, renv) = try Self.make(messages: 3)
        try renv.clock.freeze(at: env.clock.now())
        for e in entries.withLock({ $0 }) { try replayed.replay(project: T.p, entry: e) }
        #expect(try await T.pull(replayed, 10, sub: B.sub("kept")).map(T.data) == ["3", "4", "5"])
        #expect(try await T.pull(s, 10, sub: B.sub("kept")).map(T.data) == ["3", "4", "5"])
    }
}

extension PubSubRetainedAckTests {
    /// A live seek gives a subscription the same room as its replay does (its own acknowledged
    /// entries are not counted against it), so a later seek brings back the same messages.
    @Test func aSeekUnderTheProjectBoundReplaysTheSame() async throws {
        let (s, env) = try Self.make(messages: 3, projectMessages: 5)
        let entries = Mutex<[JSON]>([])
        s.setJournal { _, e in entries.withLock { $0.append(e) } }
        try Self.setUp(s, ["kept", "also"])
        try await Self.publishAndAck(s, env, (1...5).map(String.init), on: ["kept", "also"])
        _ = try s.seek(["subscription": .string(B.sub("kept")), "time": "2027-01-15T08:00:04Z"])
        _ = try s.seek(["subscription": .string(B.sub("kept")), "time": .string(Self.start)])
        let (replayed, renv) = try Self.make(messages: 3, projectMessages: 5)
        try renv.clock.freeze(at: env.clock.now())
        for e in entries.withLock({ $0 }) { try replayed.replay(project: T.p, entry: e) }
        let live = try await T.pull(s, 10, sub: B.sub("kept")).map(T.data)
        #expect(live == ["3", "4", "5"])
        #expect(try await T.pull(replayed, 10, sub: B.sub("kept")).map(T.data) == live)
    }
}

extension PubSubRetainedAckTests {
    /// A backlog of `unacked` unacknowledged entries followed by `acked` acknowledged ones,
    /// three bytes each as sizes count ("AA==").
    static func backlog(unacked: Int, acked: Int) -> PubSubBacklog {
        var b = PubSubBacklog()
        let t = Timestamp(seconds: 1_800_000_000)
        for i in 0..<(unacked + acked) { b.append(PublishedMessage(id: String(i), data: "AA==", publishTime: t)) }
        for i in unacked..<(unacked + acked) { b.markAcked(i, at: t) }
        return b
    }

    /// With little room (the rest of the project holds its budget) behind a large unacknowledged
    /// backlog, acknowledged entries wait until they are an eighth of the entries, then go in one
    /// pass: a pass per acknowledgement would cost the backlog's length each time.
    @Test func littleRoomBehindALargeBacklogWaitsForAnEighth() throws {
        let config = try PubSubSubscriptionConfig(["topic": .string(T.topic), "retainAckedMessages": true])
        let now = Timestamp(seconds: 1_800_000_000)
        let none = PubSubBacklog.RetainRoom(messages: 0, bytes: 1 << 20)
        var b = Self.backlog(unacked: 700, acked: 98)
        b.compact(now: now, config: config, room: none)
        #expect(b.acked == 98, "under an eighth of 798 (and of their bytes): kept for now")
        b = Self.backlog(unacked: 700, acked: 100)
        b.compact(now: now, config: config, room: none)
        #expect(b.acked == 0)
        #expect(b.unacked == 700)
        #expect(b.ackedBytes == 0)
        b = Self.backlog(unacked: 700, acked: 100)
        b.compact(now: now, config: config, room: PubSubBacklog.RetainRoom(messages: 1 << 20, bytes: 240))
        #expect(b.acked == 70, "the byte room (240, three bytes each) trims down to an eighth under it")
        #expect(b.ackedBytes == 210)
    }
}
