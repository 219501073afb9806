import EmulatorCore

/// Subscriber RPCs about subscriptions (delivery is in `PubSubService+Delivery`).
extension PubSubService {
    /// Subscription fields UpdateSubscription may change (production keeps `topic`, `filter` and
    /// `enable_message_ordering` fixed).
    static let updatableSubscriptionFields: Set<String> = [
        "push_config", "bigquery_config", "cloud_storage_config", "ack_deadline_seconds", "retain_acked_messages",
        "message_retention_duration", "labels", "expiration_policy", "dead_letter_policy", "retry_policy", "detached",
        "enable_exactly_once_delivery", "tags",
    ]

    /// CreateSubscription: the request is the Subscription.
    public func createSubscription(_ request: JSON) throws -> JSON {
        let name = try PubSubName(PubSubRequest.string(request, "name"), kind: .subscriptions)
        let topic = try PubSubName(PubSubRequest.string(request, "topic"), kind: .topics)
        var resource = PubSubRequest.jsonKeys(request)
        resource[member: "name"] = .string(name.full)
        resource[member: "topic"] = .string(topic.full)
        return try mutate(name.project) { ps, commit in
            guard ps.topics[topic.full] != nil else { throw EmulatorError.notFound("Subscription topic does not exist") }
            guard ps.subscriptions[name.full] == nil else { throw EmulatorError.alreadyExists("Subscription already exists") }
            resource = try Self.normalizedSubscription(resource, ps)
            let config = try PubSubSubscriptionConfig(resource)
            try commit(["op": "subscription", "subscription": resource])
            ps.subscriptions[name.full] = PubSubSubscriptionState(resource: resource, config: config)
            return resource
        }
    }

    /// Fills the defaults Get shows and checks the settings, as Google's emulator answers.
    static func normalizedSubscription(_ input: JSON, _ ps: PubSubProjectState) throws(EmulatorError) -> JSON {
        var r = input
        let ack = PubSubRequest.int64(r["ackDeadlineSeconds"])
        guard (0...600).contains(ack) else { throw EmulatorError.invalidArgument("ack_deadline_secs out of bounds") }
        r[member: "ackDeadlineSeconds"] = .int(ack == 0 ? 10 : ack)
        if r["pushConfig"] == nil || r["pushConfig"]?.isNull == true { r[member: "pushConfig"] = .object([:]) }
        if let d = r["messageRetentionDuration"], !d.isNull {
            guard let s = PubSubDuration.seconds(d), s >= 600, s <= 31 * 86_400 else {
                throw EmulatorError.invalidArgument("Invalid message_retention_duration: it must be between 10 minutes and 31 days.")
            }
        } else {
            r[member: "messageRetentionDuration"] = "604800s"
        }
        if var dl = r["deadLetterPolicy"], !dl.isNull {
            let t = dl["deadLetterTopic"]?.stringValue ?? ""
            if !t.isEmpty {
                let topic = try PubSubName(t, kind: .topics)
                guard ps.topics[topic.full] != nil else { throw EmulatorError.notFound("Dead letter topic not found") }
            }
            let attempts = PubSubRequest.int64(dl["maxDeliveryAttempts"])
            if attempts != 0 && attempts < 5 {
                throw EmulatorError(
                    .outOfRange,
                    "The value for max_delivery_attempts is too small. You passed \(attempts) in the request, but the minimum value is 5.")
            }
            if attempts > 100 {
                throw EmulatorError(
                    .outOfRange,
                    "The value for max_delivery_attempts is too large. You passed \(attempts) in the request, but the maximum value is 100.")
            }
            dl[member: "maxDeliveryAttempts"] = .int(attempts == 0 ? 5 : attempts)
            r[member: "deadLetterPolicy"] = dl
        }
        if var rp = r["retryPolicy"], !rp.isNull {
            let lo = rp["minimumBackoff"].flatMap { $0.isNull ? nil : $0 }, hi = rp["maximumBackoff"].flatMap { $0.isNull ? nil : $0 }
            let minS = lo.map { PubSubDuration.seconds($0) } ?? 10, maxS = hi.map { PubSubDuration.seconds($0) } ?? 600
            guard let minS, let maxS, minS >= 0, minS <= 600, maxS >= 0, maxS <= 600, minS <= maxS else {
                throw EmulatorError.invalidArgument(
                    "Invalid retry_policy: minimum_backoff and maximum_backoff must be between 0 and 600 seconds, the minimum not above the maximum.")
            }
            rp[member: "minimumBackoff"] = PubSubDuration.text(minS)
            rp[member: "maximumBackoff"] = PubSubDuration.text(maxS)
            r[member: "retryPolicy"] = rp
        }
        _ = try PubSubFilter.parse(r["filter"]?.stringValue ?? "")
        return r
    }

    /// GetSubscription.
    public func getSubscription(_ request: JSON) throws -> JSON {
        let name = try PubSubName(PubSubRequest.string(request, "subscription"), kind: .subscriptions)
        return try read(name.project) { ps in
            guard let s = ps.subscriptions[name.full] else { throw EmulatorError.notFound("Subscription does not exist") }
            return s.resource
        }
    }

    /// UpdateSubscription: copies the masked fields over the stored subscription; the backlog stays.
    public func updateSubscription(_ request: JSON) throws -> JSON {
        let sub = request["subscription"] ?? .object([:])
        let name = try PubSubName(PubSubRequest.string(sub, "name"), kind: .subscriptions)
        let paths = PubSubRequest.maskPaths(request)
        guard !paths.isEmpty else {
            throw EmulatorError.invalidArgument(
                "The update_mask in the UpdateSubscriptionRequest must be set, and must contain a non-empty paths list.")
        }
        for p in paths where !Self.updatableSubscriptionFields.contains(p) {
            throw EmulatorError.invalidArgument(
                "Invalid update_mask provided in the UpdateSubscriptionRequest: \(p) is not a known Subscription field or cannot be updated.")
        }
        let incoming = PubSubRequest.jsonKeys(sub)
        return try mutate(name.project) { ps, commit in
            guard var s = ps.subscriptions[name.full], case .object(var stored) = s.resource else {
                throw EmulatorError.notFound("Subscription does not exist")
            }
            for p in paths {
                let key = PubSubRequest.camelCase(p)
                stored[key] = incoming[key].flatMap { $0.isNull ? nil : $0 }
            }
            let resource = try Self.normalizedSubscription(.object(stored), ps)
            s.config = try PubSubSubscriptionConfig(resource)
            s.resource = resource
            try commit(["op": "subscription", "subscription": resource])
            ps.subscriptions[name.full] = s
            wakeups.wake(name.full)
            return resource
        }
    }

    /// ModifyPushConfig: sets (or, empty, clears) the push endpoint.
    public func modifyPushConfig(_ request: JSON) throws -> JSON {
        let name = try PubSubName(PubSubRequest.string(request, "subscription"), kind: .subscriptions)
        let push = PubSubRequest.jsonKeys(request["pushConfig"] ?? request["push_config"] ?? .object([:]))
        return try mutate(name.project) { ps, commit in
            guard var s = ps.subscriptions[name.full] else { throw EmulatorError.notFound("Subscription does not exist") }
            s.resource[member: "pushConfig"] = push.isNull ? .object([:]) : push
            s.config = try PubSubSubscriptionConfig(s.resource)
            try commit(["op": "subscription", "subscription": s.resource])
            ps.subscriptions[name.full] = s
            wakeups.wake(name.full)
            return .object([:])
        }
    }

    /// ListSubscriptions.
    public func listSubscriptions(_ request: JSON) throws -> JSON {
        let project = try PubSubName.project(PubSubRequest.string(request, "project"))
        return try read(project) { ps in
            let (names, next) = try PubSubRequest.page(ps.subscriptions.keys.sorted(), request)
            var out: UTF8Dictionary<JSON> = ["subscriptions": .array(names.compactMap { ps.subscriptions[$0]?.resource })]
            if let next { out["nextPageToken"] = .string(next) }
            return .object(out)
        }
    }

    /// DeleteSubscription: its messages go with it; open streams end with NOT_FOUND.
    public func deleteSubscription(_ request: JSON) throws -> JSON {
        let name = try PubSubName(PubSubRequest.string(request, "subscription"), kind: .subscriptions)
        try mutate(name.project) { ps, commit in
            guard ps.subscriptions[name.full] != nil else { throw EmulatorError.notFound("Subscription does not exist") }
            try commit(["op": "deleteSubscription", "name": .string(name.full)])
            ps.subscriptions[name.full] = nil
        }
        wakeups.wake(name.full)
        return .object([:])
    }
}

extension PubSubRequest {
    /// An integer that may come as a number or a decimal string; 0 when absent or malformed.
    static func int64(_ v: JSON?) -> Int64 {
        guard let v else { return 0 }
        return v.intValue ?? v.stringValue.flatMap { Int64($0) } ?? 0
    }
}
