import EmulatorCore

/// What a push deliverer needs from the service: the subscriptions with a push endpoint and the
/// request body production POSTs for a leased message. Delivery itself (HTTP) lives in the
/// `Emulator` module (`PubSubPushDelivery`); acknowledging goes through `acknowledge`.
extension PubSubService {
    /// A push subscription: its name, endpoint and ack deadline.
    public struct PushTarget: Sendable, Equatable {
        /// The subscription.
        public let name: PubSubName
        /// `pushConfig.pushEndpoint` as configured.
        public let endpoint: String
        /// The subscription's ack deadline (bounds one POST).
        public let ackDeadlineSeconds: Int
    }

    /// Every attached subscription, in every project, whose push endpoint is set, sorted by name.
    public func pushTargets() -> [PushTarget] {
        state.withLock { all in
            all.values.flatMap { ps in
                ps.subscriptions.compactMap { full, s -> PushTarget? in
                    guard !s.config.pushEndpoint.isEmpty, !s.config.detached,
                        let name = try? PubSubName(full, kind: .subscriptions)
                    else { return nil }
                    return PushTarget(name: name, endpoint: s.config.pushEndpoint, ackDeadlineSeconds: s.config.ackDeadlineSeconds)
                }
            }.sorted { $0.name.full < $1.name.full }
        }
    }

    /// The JSON body production's push delivery POSTs (wrapped form): the message with both
    /// spellings of its id and publish time, the subscription, and `deliveryAttempt` when the
    /// subscription has a dead-letter policy.
    public static func pushBody(_ d: PubSubDelivery, subscription: String, withAttempts: Bool) -> JSON {
        var message = d.message.json
        message[member: "message_id"] = .string(d.message.id)
        message[member: "publish_time"] = .string(d.message.publishTime.rfc3339())
        var o: UTF8Dictionary<JSON> = ["message": message, "subscription": .string(subscription)]
        if withAttempts { o["deliveryAttempt"] = .int(Int64(d.attempt)) }
        return .object(o)
    }
}
