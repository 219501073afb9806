import EmulatorCore
import EmulatorHTTP
import EmulatorPubSub

/// google.pubsub.v1 over REST (`/v1/projects/{p}/topics|subscriptions|snapshots/...`, what the
/// client libraries use with `transport="rest"` and what curl users type). Each route turns URL
/// and body into the RPC's request message and calls the one `PubSubService` function the gRPC
/// service calls too. Faults match these routes through `RequestClassifier` (service `pubsub`).
enum PubSubRESTRoutes {
    static func register(_ r: inout Router, _ s: EmulatorServices) {
        let ps = s.pubsub
        let base = "/v1/projects/{project}"
        @Sendable func name(_ m: RouteMatch, _ kind: String, _ key: String) -> JSON { .string("projects/\(m["project"])/\(kind)/\(m[key])") }
        @Sendable func body(_ req: HTTPRequest) throws -> JSON { .object(try req.jsonObjectBody()) }
        @Sendable func with(_ b: JSON, _ key: String, _ value: JSON) -> JSON {
            guard case .object(var o) = b else { return b }
            o[key] = value
            return .object(o)
        }
        @Sendable func listRequest(_ req: HTTPRequest, _ key: String, _ value: JSON) -> JSON {
            var o: UTF8Dictionary<JSON> = [key: value]
            if let size = req.query("pageSize") { o["pageSize"] = .string(size) }
            if let token = req.query("pageToken") { o["pageToken"] = .string(token) }
            return .object(o)
        }

        // Topics.
        r.put("\(base)/topics/{topic}") { req, m in .json(try ps.createTopic(with(try body(req), "name", name(m, "topics", "topic")))) }
        r.get("\(base)/topics/{topic}") { _, m in .json(try ps.getTopic(["topic": name(m, "topics", "topic")])) }
        r.patch("\(base)/topics/{topic}") { req, m in
            let b = try body(req)
            return .json(try ps.updateTopic(with(b, "topic", with(b["topic"] ?? .object([:]), "name", name(m, "topics", "topic")))))
        }
        r.delete("\(base)/topics/{topic}") { _, m in .json(try ps.deleteTopic(["topic": name(m, "topics", "topic")])) }
        r.get("\(base)/topics") { req, m in .json(try ps.listTopics(listRequest(req, "project", .string("projects/\(m["project"])")))) }
        r.get("\(base)/topics/{topic}/subscriptions") { req, m in
            .json(try ps.listTopicSubscriptions(listRequest(req, "topic", name(m, "topics", "topic"))))
        }
        r.get("\(base)/topics/{topic}/snapshots") { req, m in .json(try ps.listTopicSnapshots(listRequest(req, "topic", name(m, "topics", "topic"))))
        }
        r.post("\(base)/topics/{topic}:publish") { req, m in .json(try ps.publish(with(try body(req), "topic", name(m, "topics", "topic")))) }

        // Subscriptions.
        r.put("\(base)/subscriptions/{subscription}") { req, m in
            .json(try ps.createSubscription(with(try body(req), "name", name(m, "subscriptions", "subscription"))))
        }
        r.get("\(base)/subscriptions/{subscription}") { _, m in
            .json(try ps.getSubscription(["subscription": name(m, "subscriptions", "subscription")]))
        }
        r.patch("\(base)/subscriptions/{subscription}") { req, m in
            let b = try body(req)
            return .json(
                try ps.updateSubscription(
                    with(b, "subscription", with(b["subscription"] ?? .object([:]), "name", name(m, "subscriptions", "subscription")))))
        }
        r.delete("\(base)/subscriptions/{subscription}") { _, m in
            .json(try ps.deleteSubscription(["subscription": name(m, "subscriptions", "subscription")]))
        }
        r.get("\(base)/subscriptions") { req, m in .json(try ps.listSubscriptions(listRequest(req, "project", .string("projects/\(m["project"])")))) }
        r.post("\(base)/subscriptions/{subscription}:pull") { req, m in
            .json(try await ps.pull(with(try body(req), "subscription", name(m, "subscriptions", "subscription"))))
        }
        r.post("\(base)/subscriptions/{subscription}:acknowledge") { req, m in
            .json(try ps.acknowledge(with(try body(req), "subscription", name(m, "subscriptions", "subscription"))))
        }
        r.post("\(base)/subscriptions/{subscription}:modifyAckDeadline") { req, m in
            .json(try ps.modifyAckDeadline(with(try body(req), "subscription", name(m, "subscriptions", "subscription"))))
        }
        r.post("\(base)/subscriptions/{subscription}:modifyPushConfig") { req, m in
            .json(try ps.modifyPushConfig(with(try body(req), "subscription", name(m, "subscriptions", "subscription"))))
        }
        r.post("\(base)/subscriptions/{subscription}:seek") { req, m in
            .json(try ps.seek(with(try body(req), "subscription", name(m, "subscriptions", "subscription"))))
        }
        r.post("\(base)/subscriptions/{subscription}:detach") { _, m in
            .json(try ps.detachSubscription(["subscription": name(m, "subscriptions", "subscription")]))
        }

        // Snapshots.
        r.put("\(base)/snapshots/{snapshot}") { req, m in .json(try ps.createSnapshot(with(try body(req), "name", name(m, "snapshots", "snapshot"))))
        }
        r.get("\(base)/snapshots/{snapshot}") { _, m in .json(try ps.getSnapshot(["snapshot": name(m, "snapshots", "snapshot")])) }
        r.patch("\(base)/snapshots/{snapshot}") { req, m in
            let b = try body(req)
            return .json(try ps.updateSnapshot(with(b, "snapshot", with(b["snapshot"] ?? .object([:]), "name", name(m, "snapshots", "snapshot")))))
        }
        r.delete("\(base)/snapshots/{snapshot}") { _, m in .json(try ps.deleteSnapshot(["snapshot": name(m, "snapshots", "snapshot")])) }
        r.get("\(base)/snapshots") { req, m in .json(try ps.listSnapshots(listRequest(req, "project", .string("projects/\(m["project"])")))) }
    }
}
