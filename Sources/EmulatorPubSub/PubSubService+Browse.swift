import EmulatorCore

/// One subscription as the UI lists it: its resource (settings), its topic and its backlog.
public struct PubSubSubscriptionSummary: Sendable {
    /// The full name (`projects/{p}/subscriptions/{s}`).
    public var name: String
    /// The topic's full name (`_deleted-topic_` once its topic is deleted).
    public var topic: String
    /// The resource as Get answers it (ack deadline, filter, push config, ordering, dead letters...).
    public var resource: JSON
    /// Unacknowledged messages (production's `num_undelivered_messages`; leased ones count too).
    public var backlogMessages: Int
    /// Bytes of the unacknowledged messages.
    public var backlogBytes: Int
    /// Publish time of the oldest unacknowledged message.
    public var oldestUnacked: Timestamp?
    /// Detached from its topic.
    public var detached: Bool
}

/// One topic as the UI lists it.
public struct PubSubTopicSummary: Sendable {
    /// The full name (`projects/{p}/topics/{t}`).
    public var name: String
    /// The resource as Get answers it.
    public var resource: JSON
    /// Full names of the attached subscriptions, sorted.
    public var subscriptions: [String]
    /// Messages kept in its recent list.
    public var recentMessages: Int
}

/// Read-only views for the control plane and the UI.
extension PubSubService {
    /// The most messages kept per topic for `recentMessages` (a bounded view, not a log).
    public static let recentMessagesPerTopic = 100

    /// The project's topics and subscriptions with their backlogs, each sorted by name.
    public func overview(project: String) -> (topics: [PubSubTopicSummary], subscriptions: [PubSubSubscriptionSummary]) {
        read(project) { ps in
            let topics = ps.topics.keys.sorted().map { name in
                PubSubTopicSummary(
                    name: name, resource: ps.topics[name] ?? .object([:]), subscriptions: ps.subscriptionNames(of: name),
                    recentMessages: ps.recent[name]?.count ?? 0)
            }
            let subscriptions = ps.subscriptions.keys.sorted().compactMap { name -> PubSubSubscriptionSummary? in
                guard let s = ps.subscriptions[name] else { return nil }
                return PubSubSubscriptionSummary(
                    name: name, topic: s.config.topic, resource: s.resource, backlogMessages: s.backlog.unacked,
                    backlogBytes: s.backlog.unackedBytes, oldestUnacked: s.backlog.oldestUnacked, detached: s.config.detached)
            }
            return (topics, subscriptions)
        }
    }

    /// The newest messages published to `topic` (a full name), newest first, at most
    /// `recentMessagesPerTopic`. NOT_FOUND for an unknown topic.
    public func recentMessages(topic: String) throws -> [PublishedMessage] {
        let name = try PubSubName(topic, kind: .topics)
        return try read(name.project) { ps in
            guard ps.topics[name.full] != nil else { throw EmulatorError.notFound("Topic not found") }
            return (ps.recent[name.full] ?? []).reversed()
        }
    }
}
