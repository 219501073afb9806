import EmulatorCore

/// Converts the REST JSON of a document change into the bytes of a
/// `google.events.cloud.firestore.v1.DocumentEventData` message (`value`, `old_value`,
/// `update_mask`): the body of a Firestore CloudEvent. Installed by the wiring layer, which owns
/// the protobuf codec.
public protocol DocumentEventEncoder: Sendable {
    /// `value` / `oldValue` are REST `Document`s (`name`, `fields`, `createTime`, `updateTime`).
    func encode(value: JSON?, oldValue: JSON?, updateMask: [String]) throws -> [UInt8]
}

/// One HTTP request as the platform sends it to a function (method, path, headers, body).
public struct PlatformRequest: Sendable, Equatable {
    /// Method.
    public var method = "POST"
    /// Path on the function's server.
    public var path = "/"
    /// Header fields.
    public var headers: [String: String]
    /// Body.
    public var body: [UInt8]

    /// The `google-cloudevents` schema of Firestore event data.
    public static let firestoreDataSchema =
        "https://github.com/googleapis/google-cloudevents/blob/main/proto/google/events/cloud/firestore/v1/data.proto"

    /// A Firestore document event in binary mode: attributes as `ce-*` headers (every extension the
    /// SDK reads), body `data` = the encoded `DocumentEventData`.
    public static func firestore(
        project: String, location: String, eventType: String, event: BackgroundEvent, data: [UInt8],
        authType: String = "unknown", authId: String? = nil
    ) -> PlatformRequest {
        var h: [String: String] = [
            "Content-Type": "application/protobuf", "ce-specversion": "1.0", "ce-id": event.id,
            "ce-source": "//firestore.googleapis.com/projects/\(project)/databases/(default)", "ce-type": eventType,
            "ce-time": event.time.rfc3339(), "ce-subject": "documents/\(event.subject)", "ce-dataschema": firestoreDataSchema,
            "ce-location": location, "ce-project": project, "ce-database": "(default)", "ce-namespace": "(default)", "ce-document": event.subject,
        ]
        if eventType.hasSuffix(".withAuthContext") {
            h["ce-authtype"] = authType
            h["ce-authid"] = authId ?? ""
        }
        return PlatformRequest(headers: h, body: data)
    }

    /// The top-level fields whose values differ between two REST documents (an update's mask), as
    /// field paths (names that are not simple identifiers are quoted with backticks).
    public static func changedFields(before: JSON?, after: JSON?) -> [String] {
        guard let b = before?["fields"]?.objectValue ?? (before == nil ? nil : [:]),
            let a = after?["fields"]?.objectValue ?? (after == nil ? nil : [:])
        else { return [] }
        return Set(b.keys).union(a.keys).filter { b[$0] != a[$0] }.sorted().map(fieldPath)
    }

    /// One field name as a field path segment.
    static func fieldPath(_ name: String) -> String {
        let simple =
            !name.isEmpty && name.unicodeScalars.allSatisfy { $0.isASCIILetter || $0 == "_" || ("0"..."9").contains($0) }
            && !(name.unicodeScalars.first.map { ("0"..."9").contains($0) } ?? false)
        if simple { return name }
        return "`" + name.replacing("\\", with: "\\\\").replacing("`", with: "\\`") + "`"
    }

    /// Seconds since the epoch with six decimals (`1772442000.250000`), as Cloud Tasks writes an
    /// ETA header.
    static func secondsText(_ microseconds: Int64) -> String {
        let magnitude = microseconds.magnitude
        let fraction = String(magnitude % 1_000_000)
        return (microseconds < 0 ? "-" : "") + String(magnitude / 1_000_000) + "." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }

    /// A Pub/Sub message in structured mode, with both spellings of the message's id and time (the
    /// Python SDK reads `message_id` and `publish_time`, and parses times with at most six
    /// fractional digits).
    public static func pubsub(project: String, topic: String, subscription: String, event: BackgroundEvent) -> PlatformRequest {
        var message = event.after?.objectValue ?? [:]
        if let t = message["publishTime"]?.stringValue.flatMap({ Timestamp(rfc3339: $0) }) {
            message["publishTime"] = .string(t.rfc3339(fractionDigits: 6))
        }
        message["message_id"] = message["messageId"]
        message["publish_time"] = message["publishTime"]
        let ce: JSON = [
            "specversion": "1.0", "id": .string(event.id), "source": .string("//pubsub.googleapis.com/projects/\(project)/topics/\(topic)"),
            "type": "google.cloud.pubsub.topic.v1.messagePublished", "time": .string(event.time.rfc3339(fractionDigits: 6)),
            "datacontenttype": "application/json",
            "data": ["message": .object(message), "subscription": .string("projects/\(project)/subscriptions/\(subscription)")],
        ]
        return PlatformRequest(headers: ["Content-Type": "application/cloudevents+json"], body: ce.serializedBytes())
    }

    /// A Cloud Storage object event as Eventarc delivers it: a structured CloudEvent whose data is
    /// the object's Cloud Storage JSON (the Python SDK parses `time` with fractional seconds).
    public static func storage(bucket: String, event kind: String, _ event: BackgroundEvent) -> PlatformRequest {
        let name = event.after?["name"]?.stringValue ?? ""
        let ce: JSON = [
            "specversion": "1.0", "id": .string(event.id), "source": .string("//storage.googleapis.com/projects/_/buckets/\(bucket)"),
            "subject": .string("objects/\(name)"), "type": .string("google.cloud.storage.object.v1.\(kind)"),
            "time": .string(event.time.rfc3339(fractionDigits: 6)), "datacontenttype": "application/json",
            "data": event.after ?? .object([:]),
        ]
        return PlatformRequest(headers: ["Content-Type": "application/cloudevents+json"], body: ce.serializedBytes())
    }

    /// A Cloud Scheduler run: an empty POST with the job's name and schedule time.
    public static func scheduled(name: String, region: String, scheduleTime: Timestamp) -> PlatformRequest {
        PlatformRequest(
            headers: [
                "X-CloudScheduler-JobName": "firebase-schedule-\(name)-\(region)", "X-CloudScheduler-ScheduleTime": scheduleTime.rfc3339(),
                "User-Agent": "Google-Cloud-Scheduler", "Content-Type": "application/json",
            ], body: [])
    }

    /// A Cloud Tasks dispatch: the task's body and headers plus the `X-CloudTasks-*` ones.
    public static func task(project: String, region: String, event: BackgroundEvent) -> PlatformRequest {
        let t = event.after ?? [:]
        var h: [String: String] = ["Content-Type": "application/json"]
        for (k, v) in t["headers"]?.objectValue ?? [:] { if let s = v.stringValue { h[k] = s } }
        let queue = t["queue"]?.stringValue ?? event.subject
        h["X-CloudTasks-QueueName"] = queue
        h["X-CloudTasks-TaskName"] = t["taskId"]?.stringValue ?? event.id
        h["X-CloudTasks-TaskRetryCount"] = String(event.attempt - 1)
        h["X-CloudTasks-TaskExecutionCount"] = String(event.attempt - 1)
        h["X-CloudTasks-TaskETA"] = secondsText(event.time.microseconds)
        h["User-Agent"] = "Google-Cloud-Tasks"
        let body = t["body"]?.stringValue.flatMap { Base64.decode($0) } ?? []
        return PlatformRequest(headers: h, body: body)
    }
}
