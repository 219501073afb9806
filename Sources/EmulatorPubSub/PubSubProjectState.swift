import EmulatorCore

/// One subscription: its resource (google.pubsub.v1.Subscription, proto3 JSON), the settings
/// delivery reads from it, and its messages.
public struct PubSubSubscriptionState: Sendable {
    /// The resource as Get answers it.
    public var resource: JSON
    /// Parsed settings.
    public var config: PubSubSubscriptionConfig
    /// Messages and leases.
    public var backlog = PubSubBacklog()
}

/// One snapshot: its resource and the messages that were unacknowledged in its subscription when
/// it was made, with the project's publish counter then (later messages of the topic are
/// unacknowledged by a seek to it).
public struct PubSubSnapshotState: Sendable {
    /// The resource as Get answers it (`name`, `topic`, `expireTime`, `labels`).
    public var resource: JSON
    /// Unacknowledged messages when it was made.
    public var messages: [PublishedMessage]
    /// The project's publish counter when it was made.
    public var serial: Int64
}

/// Everything Pub/Sub holds for one project: topics, subscriptions with their backlogs,
/// snapshots, and the publish counter. A value type (copy-on-write), so `captureProject` is O(1).
public struct PubSubProjectState: Sendable {
    /// Topic resources (google.pubsub.v1.Topic, proto3 JSON) by full name.
    public var topics: UTF8Dictionary<JSON> = [:]
    /// Subscriptions by full name, with their backlogs' sums and each topic's list.
    public var subscriptions = PubSubSubscriptionTable()
    /// Snapshots by full name.
    public var snapshots: [String: PubSubSnapshotState] = [:]
    /// Messages published so far (the last `serial` handed out).
    public var lastSerial: Int64 = 0
    /// The newest messages published to each topic (by full name), oldest first, at most
    /// `PubSubService.recentMessagesPerTopic` each: the UI's view of a topic, whatever its
    /// subscriptions acknowledged. Not exported (journal replay rebuilds it from the publishes).
    public var recent: [String: [PublishedMessage]] = [:]

    /// Creates an empty project.
    public init() {}

    /// Whether there is anything to export.
    public var hasData: Bool { !topics.isEmpty || !subscriptions.isEmpty || !snapshots.isEmpty }

    /// Names of the subscriptions attached to `topic`, sorted (from the topic's list: filtering
    /// every subscription of the project took a debug build 13-16 ms of CPU per publish with
    /// 10,000 subscriptions over 1,000 topics, 0.75 ms with the list; bench/pubsub_topics.py).
    func subscriptionNames(of topic: String) -> [String] { subscriptions.names(of: topic) }
}
