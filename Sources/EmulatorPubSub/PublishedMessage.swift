import EmulatorCore

/// One published message as every subscription of its topic holds it: the payload (`data`
/// kept as its base64 text, the form both transports' JSON uses), attributes, ordering key, the
/// id the publish answered and the publish time on the project clock.
public struct PublishedMessage: Sendable, Hashable {
    /// The message id (decimal digits, from the project's id generator).
    public var id: String
    /// The payload, standard base64 (possibly empty).
    public var data: String
    /// Attributes.
    public var attributes: [String: String]
    /// Ordering key ("" when none).
    public var orderingKey: String
    /// When it was published (project clock).
    public var publishTime: Timestamp
    /// The project's publish counter when it was published (orders messages across
    /// subscriptions for snapshots, and makes journal replay idempotent). Not on the wire.
    public var serial: Int64 = 0

    /// Creates a message.
    public init(id: String, data: String, attributes: [String: String] = [:], orderingKey: String = "", publishTime: Timestamp) {
        self.id = id
        self.data = data
        self.attributes = attributes
        self.orderingKey = orderingKey
        self.publishTime = publishTime
    }

    /// The payload's size in bytes as production counts it for limits (data, attributes, key).
    public var size: Int {
        data.utf8.count * 3 / 4 + orderingKey.utf8.count + attributes.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
    }

    /// The google.pubsub.v1.PubsubMessage in proto3 JSON.
    public var json: JSON {
        var o: UTF8Dictionary<JSON> = ["messageId": .string(id), "publishTime": .string(publishTime.rfc3339())]
        if !data.isEmpty { o["data"] = .string(data) }
        if !attributes.isEmpty { o["attributes"] = .object(attributes.mapValues { .string($0) }) }
        if !orderingKey.isEmpty { o["orderingKey"] = .string(orderingKey) }
        return .object(o)
    }

    /// The journal and export form: the wire form plus `serial`.
    var stored: JSON {
        guard case .object(var o) = json else { return json }
        o["serial"] = .int(serial)
        return .object(o)
    }

    /// Reads a message back from `json` (journal and export form).
    public init(json: JSON) throws(EmulatorError) {
        guard let id = json["messageId"]?.stringValue, let t = json["publishTime"]?.stringValue, let time = Timestamp(rfc3339: t) else {
            throw EmulatorError.invalidArgument("A stored Pub/Sub message needs 'messageId' and 'publishTime'.")
        }
        var attributes: [String: String] = [:]
        for (k, v) in json["attributes"]?.objectValue ?? [:] { attributes[k] = v.stringValue ?? "" }
        self.init(
            id: id, data: json["data"]?.stringValue ?? "", attributes: attributes, orderingKey: json["orderingKey"]?.stringValue ?? "",
            publishTime: time)
        serial = json["serial"]?.intValue ?? 0
    }
}
