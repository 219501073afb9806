import EmulatorCore
import Testing

@testable import EmulatorPubSub

/// The control plane's read-only views (the UI's Pub/Sub page): backlogs per subscription and the
/// bounded list of a topic's recent messages.
struct PubSubBrowseTests {
    typealias T = PubSubServiceTests

    @Test func theBacklogCountsUnacknowledgedMessagesPerSubscription() async throws {
        let (s, _) = try T.make()
        _ = try s.createTopic(["name": .string(T.topic)])
        _ = try s.createSubscription(["name": .string(T.sub), "topic": .string(T.topic), "ackDeadlineSeconds": 30])
        let filtered = "projects/demo-project/subscriptions/eu-only"
        _ = try s.createSubscription(["name": .string(filtered), "topic": .string(T.topic), "filter": "attributes.region = \"eu\""])
        _ = try T.publish(s, [["data": T.b64("a")], ["data": T.b64("b"), "attributes": ["region": "eu"]]])
        var o = s.overview(project: T.p)
        #expect(o.topics.map(\.name) == [T.topic] && o.topics.first?.subscriptions == [filtered, T.sub])
        #expect(o.topics.first?.recentMessages == 2)
        #expect(o.subscriptions.map(\.name) == [filtered, T.sub])
        #expect(o.subscriptions.map(\.backlogMessages) == [1, 2])
        #expect(o.subscriptions.last?.resource["ackDeadlineSeconds"] == 30 && o.subscriptions.last?.oldestUnacked != nil)
        // Leased messages are still undelivered; acknowledged ones are not.
        let pulled = try await T.pull(s, 1)
        let before = try #require(s.overview(project: T.p).subscriptions.last)
        #expect(before.backlogMessages == 2)
        _ = try s.acknowledge(["subscription": .string(T.sub), "ackIds": .array(pulled.compactMap { $0["ackId"] })])
        o = s.overview(project: T.p)
        #expect(o.subscriptions.last?.backlogMessages == 1 && (1..<before.backlogBytes).contains(o.subscriptions.last?.backlogBytes ?? 0))
        #expect(s.overview(project: "other-project").topics.isEmpty)
    }

    @Test func recentMessagesAreTheNewestHundredNewestFirst() throws {
        let (s, _) = try T.make()
        _ = try s.createTopic(["name": .string(T.topic)])
        for i in 0..<105 {
            _ = try T.publish(s, [["data": T.b64("m\(i)"), "attributes": ["i": .string("\(i)")], "orderingKey": "k"]])
        }
        let recent = try s.recentMessages(topic: T.topic)
        #expect(recent.count == PubSubService.recentMessagesPerTopic)
        #expect(recent.first?.attributes["i"] == "104" && recent.last?.attributes["i"] == "5" && recent.first?.orderingKey == "k")
        // Kept whatever the subscriptions do (there are none here), dropped with the topic.
        _ = try s.deleteTopic(["topic": .string(T.topic)])
        #expect(throws: EmulatorError.notFound("Topic not found")) { try s.recentMessages(topic: T.topic) }
        _ = try s.createTopic(["name": .string(T.topic)])
        #expect(try s.recentMessages(topic: T.topic).isEmpty)
        #expect(throws: EmulatorError.self) { try s.recentMessages(topic: "projects/demo-project/topics/") }
    }

    @Test func journalReplayRebuildsRecentMessages() throws {
        let (s, _) = try T.make()
        let log = Mutex<[JSON]>([])
        s.setJournal { _, e in log.withLock { $0.append(e) } }
        _ = try s.createTopic(["name": .string(T.topic)])
        _ = try T.publish(s, [["data": T.b64("x")]])
        let again = PubSubService(environments: LocalEnvironmentProvider())
        for e in log.withLock({ $0 }) { try again.replay(project: T.p, entry: e) }
        #expect(try again.recentMessages(topic: T.topic).map(\.data) == [Base64.encode(Array("x".utf8))])
    }
}
