import EmulatorCore
import EmulatorHTTP
import EmulatorPubSub

/// The control plane's Pub/Sub views (the UI's Pub/Sub page): the project's topics and
/// subscriptions with their backlogs (`GET /emulator/v1/projects/{p}/pubsub`) and a topic's
/// newest messages (`GET .../pubsub/topics/{topic}/messages`). Read-only adapters over one
/// `PubSubService` function each; publishing goes through the Pub/Sub API like any client's.
enum PubSubAdminRoutes {
    static func register(_ r: inout Router, _ s: EmulatorServices) {
        let base = "/emulator/v1/projects/{project}/pubsub"
        r.get(base) { _, m in
            let p = m["project"]
            try s.projects.requireKnown(p)
            let o = s.pubsub.overview(project: p)
            return .json(["topics": .array(o.topics.map(topicJSON)), "subscriptions": .array(o.subscriptions.map(subscriptionJSON))])
        }
        r.get(base + "/topics/{topic}/messages") { _, m in
            let p = m["project"]
            try s.projects.requireKnown(p)
            let messages = try s.pubsub.recentMessages(topic: "projects/\(p)/topics/\(m["topic"])")
            return .json(["messages": .array(messages.map(\.json)), "limit": .int(Int64(PubSubService.recentMessagesPerTopic))])
        }
    }

    /// `{name, id, topic (the resource), subscriptions, recentMessages}`.
    static func topicJSON(_ t: PubSubTopicSummary) -> JSON {
        [
            "name": .string(t.name), "id": .string(lastSegment(t.name)), "topic": t.resource,
            "subscriptions": .array(t.subscriptions.map { .string($0) }), "recentMessages": .int(Int64(t.recentMessages)),
        ]
    }

    /// `{name, id, topic, detached, backlog: {messages, bytes, oldestUnackedPublishTime}, subscription (the resource)}`.
    static func subscriptionJSON(_ s: PubSubSubscriptionSummary) -> JSON {
        var backlog: UTF8Dictionary<JSON> = ["messages": .int(Int64(s.backlogMessages)), "bytes": .int(Int64(s.backlogBytes))]
        if let t = s.oldestUnacked { backlog["oldestUnackedPublishTime"] = .string(t.rfc3339()) }
        return [
            "name": .string(s.name), "id": .string(lastSegment(s.name)), "topic": .string(s.topic), "detached": .bool(s.detached),
            "backlog": .object(backlog), "subscription": s.resource,
        ]
    }

    private static func lastSegment(_ name: String) -> String { String(name.split(separator: "/").last ?? "") }
}
