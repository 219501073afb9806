import EmulatorCore

/// What delivery needs from a subscription's settings, read once from its resource JSON
/// (google.pubsub.v1.Subscription in proto3 JSON) when it is created or updated. Immutable.
public struct PubSubSubscriptionConfig: Sendable, Equatable {
    /// The topic's full name, or `_deleted-topic_`.
    public var topic: String
    /// Seconds a pulled message stays leased (10 by default).
    public var ackDeadlineSeconds: Int
    /// How long unacknowledged (and retained acknowledged) messages are kept.
    public var retentionSeconds: Double
    /// Keep acknowledged messages for seek.
    public var retainAcked: Bool
    /// Deliver messages with the same ordering key in order, one lease at a time.
    public var ordered: Bool
    /// Acks of expired ack ids fail rather than succeed silently.
    public var exactlyOnce: Bool
    /// The parsed filter.
    public var filter: PubSubFilter?
    /// Dead-letter topic and the attempts before a message goes there.
    public var deadLetter: (topic: String, maxAttempts: Int)?
    /// Retry backoff bounds in seconds (none: redeliver at once).
    public var retry: (min: Double, max: Double)?
    /// Push endpoint ("" for pull).
    public var pushEndpoint: String
    /// Detached from its topic: no messages, pulls fail.
    public var detached: Bool

    /// Equality of the settings (tuples compared by value).
    public static func == (a: Self, b: Self) -> Bool {
        a.topic == b.topic && a.ackDeadlineSeconds == b.ackDeadlineSeconds && a.retentionSeconds == b.retentionSeconds
            && a.retainAcked == b.retainAcked && a.ordered == b.ordered && a.exactlyOnce == b.exactlyOnce && a.filter == b.filter
            && a.deadLetter?.topic == b.deadLetter?.topic && a.deadLetter?.maxAttempts == b.deadLetter?.maxAttempts
            && a.retry?.min == b.retry?.min && a.retry?.max == b.retry?.max && a.pushEndpoint == b.pushEndpoint && a.detached == b.detached
    }

    /// Reads the settings of a normalized Subscription resource (see `PubSubService.normalizedSubscription`).
    init(_ s: JSON) throws(EmulatorError) {
        topic = s["topic"]?.stringValue ?? ""
        ackDeadlineSeconds = Int(s["ackDeadlineSeconds"]?.intValue ?? 10)
        retentionSeconds = PubSubDuration.seconds(s["messageRetentionDuration"]) ?? 604_800
        retainAcked = s["retainAckedMessages"]?.boolValue ?? false
        ordered = s["enableMessageOrdering"]?.boolValue ?? false
        exactlyOnce = s["enableExactlyOnceDelivery"]?.boolValue ?? false
        filter = try PubSubFilter.parse(s["filter"]?.stringValue ?? "")
        if let dl = s["deadLetterPolicy"], let t = dl["deadLetterTopic"]?.stringValue, !t.isEmpty {
            deadLetter = (t, Int(dl["maxDeliveryAttempts"]?.intValue ?? 5))
        } else {
            deadLetter = nil
        }
        if let r = s["retryPolicy"] {
            retry = (PubSubDuration.seconds(r["minimumBackoff"]) ?? 10, PubSubDuration.seconds(r["maximumBackoff"]) ?? 600)
        } else {
            retry = nil
        }
        pushEndpoint = s["pushConfig"]?["pushEndpoint"]?.stringValue ?? ""
        detached = s["detached"]?.boolValue ?? false
    }
}
