import EmulatorCore

/// Publisher RPCs about topics (publishing is in `PubSubService+Publish`).
extension PubSubService {
    /// Topic fields UpdateTopic may change.
    static let updatableTopicFields: Set<String> = [
        "labels", "message_storage_policy", "kms_key_name", "schema_settings", "satisfies_pzs", "message_retention_duration",
        "ingestion_data_source_settings", "message_transforms", "tags",
    ]

    /// CreateTopic: the request is the Topic.
    public func createTopic(_ request: JSON) throws -> JSON {
        let name = try PubSubName(PubSubRequest.string(request, "name"), kind: .topics)
        var resource = PubSubRequest.jsonKeys(request)
        resource[member: "name"] = .string(name.full)
        try Self.checkTopicSettings(resource)
        return try mutate(name.project) { ps, commit in
            guard ps.topics[name.full] == nil else { throw EmulatorError.alreadyExists("Topic already exists") }
            try commit(["op": "topic", "topic": resource])
            ps.topics[name.full] = resource
            return resource
        }
    }

    /// GetTopic.
    public func getTopic(_ request: JSON) throws -> JSON {
        let name = try PubSubName(PubSubRequest.string(request, "topic"), kind: .topics)
        return try read(name.project) { ps in
            guard let t = ps.topics[name.full] else { throw EmulatorError.notFound("Topic not found") }
            return t
        }
    }

    /// UpdateTopic: copies the masked fields of `topic` over the stored topic.
    public func updateTopic(_ request: JSON) throws -> JSON {
        let topic = request["topic"] ?? .object([:])
        let name = try PubSubName(PubSubRequest.string(topic, "name"), kind: .topics)
        let paths = PubSubRequest.maskPaths(request)
        guard !paths.isEmpty else {
            throw EmulatorError.invalidArgument("The update_mask in the UpdateTopicRequest must be set, and must contain a non-empty paths list.")
        }
        for p in paths where !Self.updatableTopicFields.contains(p) {
            throw EmulatorError.invalidArgument(
                "Invalid update_mask provided in the UpdateTopicRequest: \(p) is not a known Topic field. Note that field paths must be of the form 'schema_settings' rather than 'schemaSetings'."
            )
        }
        let incoming = PubSubRequest.jsonKeys(topic)
        return try mutate(name.project) { ps, commit in
            guard case .object(var stored)? = ps.topics[name.full] else { throw EmulatorError.notFound("Topic not found") }
            for p in paths {
                let key = PubSubRequest.camelCase(p)
                stored[key] = incoming[key].flatMap { $0.isNull ? nil : $0 }
            }
            let resource = JSON.object(stored)
            try Self.checkTopicSettings(resource)
            try commit(["op": "topic", "topic": resource])
            ps.topics[name.full] = resource
            return resource
        }
    }

    /// Validates the settings the emulator interprets.
    static func checkTopicSettings(_ t: JSON) throws(EmulatorError) {
        if let d = t["messageRetentionDuration"], !d.isNull {
            guard let s = PubSubDuration.seconds(d), s >= 600, s <= 31 * 86_400 else {
                throw EmulatorError.invalidArgument("Invalid message_retention_duration: it must be between 10 minutes and 31 days.")
            }
        }
    }

    /// ListTopics.
    public func listTopics(_ request: JSON) throws -> JSON {
        let project = try PubSubName.project(PubSubRequest.string(request, "project"))
        return try read(project) { ps in
            let (names, next) = try PubSubRequest.page(ps.topics.keys.sorted(), request)
            var out: UTF8Dictionary<JSON> = ["topics": .array(names.compactMap { ps.topics[$0] })]
            if let next { out["nextPageToken"] = .string(next) }
            return .object(out)
        }
    }

    /// ListTopicSubscriptions: names of the topic's subscriptions (empty for an unknown topic, as
    /// Google's emulator answers).
    public func listTopicSubscriptions(_ request: JSON) throws -> JSON {
        let name = try PubSubName(PubSubRequest.string(request, "topic"), kind: .topics)
        return try read(name.project) { ps in
            let (names, next) = try PubSubRequest.page(ps.subscriptionNames(of: name.full), request)
            var out: UTF8Dictionary<JSON> = ["subscriptions": .array(names.map { .string($0) })]
            if let next { out["nextPageToken"] = .string(next) }
            return .object(out)
        }
    }

    /// ListTopicSnapshots: names of the snapshots made from the topic's subscriptions.
    public func listTopicSnapshots(_ request: JSON) throws -> JSON {
        let name = try PubSubName(PubSubRequest.string(request, "topic"), kind: .topics)
        return try read(name.project) { ps in
            let all = ps.snapshots.filter { $0.value.resource["topic"]?.stringValue == name.full }.keys.sorted()
            let (names, next) = try PubSubRequest.page(all, request)
            var out: UTF8Dictionary<JSON> = ["snapshots": .array(names.map { .string($0) })]
            if let next { out["nextPageToken"] = .string(next) }
            return .object(out)
        }
    }

    /// DeleteTopic: its subscriptions stay, attached to `_deleted-topic_` (they receive nothing more).
    public func deleteTopic(_ request: JSON) throws -> JSON {
        let name = try PubSubName(PubSubRequest.string(request, "topic"), kind: .topics)
        return try mutate(name.project) { ps, commit in
            guard ps.topics[name.full] != nil else { throw EmulatorError.notFound("Topic not found") }
            try commit(["op": "deleteTopic", "name": .string(name.full)])
            Self.applyDeleteTopic(&ps, name.full)
            return .object([:])
        }
    }

    static func applyDeleteTopic(_ ps: inout PubSubProjectState, _ name: String) {
        ps.topics[name] = nil
        ps.recent[name] = nil
        for s in ps.subscriptionNames(of: name) {
            ps.subscriptions[s]?.config.topic = "_deleted-topic_"
            ps.subscriptions[s]?.resource[member: "topic"] = "_deleted-topic_"
        }
    }

    /// DetachSubscription: the subscription stops receiving messages and drops its backlog; pulls
    /// fail with FAILED_PRECONDITION. (Google's emulator answers UNIMPLEMENTED.)
    public func detachSubscription(_ request: JSON) throws -> JSON {
        let name = try PubSubName(PubSubRequest.string(request, "subscription"), kind: .subscriptions)
        return try mutate(name.project) { ps, commit in
            guard var s = ps.subscriptions[name.full] else { throw EmulatorError.notFound("Subscription does not exist") }
            s.resource[member: "detached"] = true
            s.config.detached = true
            s.backlog = PubSubBacklog()
            try commit(["op": "subscription", "subscription": s.resource, "clear": true])
            ps.subscriptions[name.full] = s
            return .object([:])
        }
    }
}

extension JSON {
    /// Sets or removes (nil) a member of an object value; no effect on other kinds.
    subscript(member key: String) -> JSON? {
        get { self[key] }
        set {
            guard case .object(var o) = self else { return }
            o[key] = newValue
            self = .object(o)
        }
    }
}
