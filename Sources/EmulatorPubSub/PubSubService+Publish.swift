import EmulatorCore

/// Publish, and the fan-out of published messages to subscriptions.
extension PubSubService {
    /// Production's limits on one message's parts.
    static let maxAttributes = 100, maxAttributeKeyBytes = 256, maxAttributeValueBytes = 1024, maxOrderingKeyBytes = 1024
    /// The most messages one Publish may carry.
    static let maxMessagesPerPublish = 1000

    /// Publish: answers the new message ids, in request order. Unknown topics are NOT_FOUND.
    public func publish(_ request: JSON) throws -> JSON {
        let name = try PubSubName(PubSubRequest.string(request, "topic"), kind: .topics)
        let items = (request["messages"]?.arrayValue ?? [])
        guard !items.isEmpty else { throw EmulatorError.invalidArgument("No messages to publish") }
        guard items.count <= Self.maxMessagesPerPublish else {
            throw EmulatorError.invalidArgument("Too many messages in one publish: \(items.count); the limit is \(Self.maxMessagesPerPublish).")
        }
        let drafts = try items.enumerated().map { try Self.draft($0.element, index: $0.offset) }
        let ids = try publish(project: name.project, topic: name.full, drafts)
        return ["messageIds": .array(ids.map { .string($0) })]
    }

    /// A message of a Publish request, validated (payload kept as standard base64).
    static func draft(_ m: JSON, index: Int) throws(EmulatorError) -> PublishedMessage {
        guard case .object(let o) = m else { throw EmulatorError.invalidArgument("messages[\(index)] must be an object") }
        var data = o["data"]?.stringValue ?? ""
        if !data.isEmpty {
            guard let bytes = Base64.decode(data) else { throw EmulatorError.invalidArgument("messages[\(index)].data must be base64") }
            if data.utf8.count % 4 != 0 || data.utf8.contains(where: { $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }) {
                data = Base64.encode(bytes)
            }
        }
        var attributes: [String: String] = [:]
        if let a = o["attributes"], !a.isNull {
            guard case .object(let ao) = a else { throw EmulatorError.invalidArgument("messages[\(index)].attributes must be an object of strings") }
            guard ao.count <= maxAttributes else {
                throw EmulatorError.invalidArgument("messages[\(index)] has \(ao.count) attributes; the limit is \(maxAttributes).")
            }
            for (k, v) in ao {
                guard let sv = v.stringValue else { throw EmulatorError.invalidArgument("messages[\(index)].attributes.\(k) must be a string") }
                guard !k.isEmpty, k.utf8.count <= maxAttributeKeyBytes, sv.utf8.count <= maxAttributeValueBytes else {
                    throw EmulatorError.invalidArgument(
                        "messages[\(index)]: attribute keys must be 1 to \(maxAttributeKeyBytes) bytes and values at most \(maxAttributeValueBytes) bytes."
                    )
                }
                guard !k.hasPrefix("goog") else {
                    throw EmulatorError.invalidArgument("messages[\(index)]: attribute keys must not start with 'goog'.")
                }
                attributes[k] = sv
            }
        }
        let key = o["orderingKey"]?.stringValue ?? o["ordering_key"]?.stringValue ?? ""
        guard key.utf8.count <= maxOrderingKeyBytes else {
            throw EmulatorError.invalidArgument("messages[\(index)]: the ordering key is longer than \(maxOrderingKeyBytes) bytes.")
        }
        guard !data.isEmpty || !attributes.isEmpty else { throw EmulatorError.invalidArgument("Some messages are empty") }
        return PublishedMessage(id: "", data: data, attributes: attributes, orderingKey: key, publishTime: Timestamp(seconds: 0))
    }

    /// Publishes validated drafts to `topic` (a full name): checked against the limits, then ids
    /// and publish time assigned, journaled, handed to every attached subscription whose filter
    /// passes them, then to the observer. Returns the message ids. A publish that does not fit
    /// (`noRoom`) is refused whole before any id is drawn, so a seeded project's ids do not
    /// depend on refused requests.
    public func publish(project: String, topic: String, _ drafts: [PublishedMessage]) throws -> [String] {
        let env = environments.environment(for: project)
        let woken: [String]
        let ids: [String]
        (ids, woken) = try mutate(project) { ps, commit in
            guard ps.topics[topic] != nil else { throw EmulatorError.notFound("Topic not found") }
            if let why = Self.noRoom(ps, topic: topic, drafts, limits) { throw Self.publishRefusal(why, ps, project: project, limits) }
            let now = env.clock.now()
            var messages = drafts
            for i in messages.indices {
                messages[i].id = env.ids.digits(16)
                messages[i].publishTime = now
                messages[i].serial = ps.lastSerial + Int64(i) + 1
            }
            try commit(["op": "publish", "topic": .string(topic), "messages": .array(messages.map(\.stored))])
            let woken = Self.fanOut(&ps, topic: topic, messages, now: now, limits: limits)
            if let observer = hooks.withLock({ $0.observer }) {
                observer.call(project, PubSubName(project: project, kind: .topics, id: String(topic.split(separator: "/").last ?? "")).id, messages)
            }
            return (messages.map(\.id), woken)
        }
        for w in woken { wakeups.wake(w) }
        return ids
    }

    /// Appends messages (ids and times already set) to the topic's subscriptions whose filters
    /// pass them, compacting each first (`limits` bound what a retaining one keeps); advances the
    /// publish counter. Returns the subscriptions that got any.
    static func fanOut(
        _ ps: inout PubSubProjectState, topic: String, _ messages: [PublishedMessage], now: Timestamp, limits: PubSubLimits
    ) -> [String] {
        var woken: [String] = []
        for t in ps.subscriptionNames(of: topic) {
            guard var s = ps.subscriptions.removeValue(forKey: t) else { continue }
            var any = false
            if !s.config.detached {
                s.backlog.compact(now: now, config: s.config, room: ps.subscriptions.retainRoom(limits))
                for m in messages where s.config.filter?.matches(m.attributes) ?? true {
                    s.backlog.append(m)
                    any = true
                }
            }
            ps.subscriptions[t] = s
            if any { woken.append(t) }
        }
        if let last = messages.last?.serial { ps.lastSerial = max(ps.lastSerial, last) }
        var recent = ps.recent.removeValue(forKey: topic) ?? []
        recent.append(contentsOf: messages.suffix(recentMessagesPerTopic))
        if recent.count > recentMessagesPerTopic { recent.removeFirst(recent.count - recentMessagesPerTopic) }
        ps.recent[topic] = recent
        return woken
    }
}
