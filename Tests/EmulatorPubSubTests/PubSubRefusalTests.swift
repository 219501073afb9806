import EmulatorCore
import Testing

@testable import EmulatorPubSub

/// A refused publish or dead-letter forward changes nothing, not even the project's id
/// generator: the ids a seeded project hands out must not depend on requests that were refused.
struct PubSubRefusalTests {
    typealias T = PubSubServiceTests

    /// A service on a frozen clock with a seeded id generator and the given limits.
    static func make(_ limits: PubSubLimits) throws -> (PubSubService, ProjectEnvironment) {
        let envs = LocalEnvironmentProvider()
        let env = envs.environment(for: T.p)
        try env.clock.freeze(at: Timestamp(seconds: 1_800_000_000))
        env.ids.reseed(7)
        return (PubSubService(environments: envs, limits: limits), env)
    }

    /// A publish refused because a subscription is full draws no message ids.
    @Test func aPublishRefusedForAFullSubscriptionDrawsNoIds() throws {
        let (s, env) = try Self.make(PubSubLimits(maxMessages: 1, maxBytes: 1 << 20))
        _ = try s.createTopic(["name": .string(T.topic)])
        _ = try s.createSubscription(["name": .string(T.sub), "topic": .string(T.topic)])
        _ = try T.publish(s, [["data": T.b64("fills it")]])
        let before = env.ids.seedState
        #expect(throws: EmulatorError.self) { try T.publish(s, [["data": T.b64("refused")]]) }
        #expect(env.ids.seedState == before)
    }

    /// Dead letters bound for a full subscription stay on their source, and draw no ids.
    @Test func aDeadLetterForwardRefusedForRoomDrawsNoIds() async throws {
        let (s, env) = try Self.make(PubSubLimits(maxMessages: 1, maxBytes: 1 << 20))
        let dlTopic = "projects/demo-project/topics/dead", dlSub = "projects/demo-project/subscriptions/dead-sub"
        _ = try s.createTopic(["name": .string(T.topic)])
        _ = try s.createTopic(["name": .string(dlTopic)])
        _ = try s.createSubscription(["name": .string(dlSub), "topic": .string(dlTopic)])
        _ = try s.createSubscription([
            "name": .string(T.sub), "topic": .string(T.topic),
            "deadLetterPolicy": ["deadLetterTopic": .string(dlTopic), "maxDeliveryAttempts": 5],
        ])
        _ = try T.publish(s, [["data": T.b64("fills the dead-letter subscription")]], topic: dlTopic)
        _ = try T.publish(s, [["data": T.b64("poison")]])
        for attempt in 1...5 {
            let got = try await T.pull(s)
            #expect(got.count == 1, "attempt \(attempt)")
            let before = env.ids.seedState
            _ = try s.modifyAckDeadline(["subscription": .string(T.sub), "ackIds": [got.first?["ackId"] ?? .null], "ackDeadlineSeconds": 0])
            #expect(env.ids.seedState == before, "attempt \(attempt)")
        }
        #expect(try await T.pull(s).map(T.data) == ["poison"], "kept on its source")
        #expect(s.snapshot(project: T.p).subscriptions[dlSub]?.backlog.unacked == 1)
    }
}
