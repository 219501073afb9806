/// The schemas of every message the google.pubsub.v1 Publisher and Subscriber RPCs use, the
/// well-known types they reach and google.protobuf.FieldMask, in a registry of their own (the
/// Firestore registry stays pinned to the Firestore descriptors alone). Pinned to the descriptors
/// shipped in google-cloud-pubsub by `PubSubSchemaTests`.
///
///     let request = try ProtoJSON.decode(bytes, as: PubSubSchemas.publishRequest)
///     PubSubSchemas.method(path: "/google.pubsub.v1.Publisher/Publish")
public enum PubSubSchemas {
    /// Every declared .proto file (pubsub.proto in three parts, to keep files small).
    static func files() -> [ProtoFile] {
        [FirestoreSchemas.wellKnownTypes(), fieldMask(), pubSubTopic(), pubSubSubscription(), pubSubMessaging()]
    }

    /// google/protobuf/field_mask.proto. Its proto3 JSON form (a comma-separated string) is not
    /// implemented by the codec: over gRPC it decodes to `{"paths": [...]}`, and the Pub/Sub API
    /// layer accepts both forms.
    static func fieldMask() -> ProtoFile {
        ProtoFile(
            path: "google/protobuf/field_mask.proto",
            messages: [
                MessageSchema("google.protobuf.FieldMask", [.repeated(1, "paths", .string)])
            ])
    }

    /// All schemas, linked. A missing or duplicate declaration is a programming error caught by
    /// every test that touches a schema.
    public static let registry: SchemaRegistry = {
        let all = files()
        do throws(ProtobufError) {
            return try SchemaRegistry(messages: all.flatMap(\.messages), enums: all.flatMap(\.enums))
        } catch {
            fatalError("EmulatorProtobuf: the built-in Pub/Sub schemas do not link: \(error)")  // trap-ok: the built-in constant schemas; every test that touches a schema fails first
        }
    }()

    /// The message with this full name (`google.pubsub.v1.PubsubMessage`).
    public static func message(named fullName: String) -> MessageSchema? { registry.message(named: fullName) }

    private static func v1(_ name: String) -> MessageSchema {
        guard let m = registry.message(named: "google.pubsub.v1." + name) else { fatalError("EmulatorProtobuf: no Pub/Sub schema for \(name)") }  // trap-ok: the built-in constant schemas; every test that touches a schema fails first
        return m
    }

    /// google.protobuf.Empty.
    public static let empty = registry.message(named: "google.protobuf.Empty")!  // trap-ok: the built-in constant schemas; every test that touches a schema fails first
    /// google.pubsub.v1.Topic.
    public static let topic = v1("Topic")
    /// google.pubsub.v1.Subscription.
    public static let subscription = v1("Subscription")
    /// google.pubsub.v1.Snapshot.
    public static let snapshot = v1("Snapshot")
    /// google.pubsub.v1.PubsubMessage.
    public static let pubsubMessage = v1("PubsubMessage")
    /// Publish's request.
    public static let publishRequest = v1("PublishRequest")
    /// StreamingPull's streamed request.
    public static let streamingPullRequest = v1("StreamingPullRequest")
    /// StreamingPull's streamed response.
    public static let streamingPullResponse = v1("StreamingPullResponse")

    /// The served RPCs of both services, as the gRPC layer routes them.
    public static let methods: [PubSubMethod] = [
        PubSubMethod("Publisher", "CreateTopic", topic, topic),
        PubSubMethod("Publisher", "UpdateTopic", v1("UpdateTopicRequest"), topic),
        PubSubMethod("Publisher", "Publish", publishRequest, v1("PublishResponse")),
        PubSubMethod("Publisher", "GetTopic", v1("GetTopicRequest"), topic),
        PubSubMethod("Publisher", "ListTopics", v1("ListTopicsRequest"), v1("ListTopicsResponse")),
        PubSubMethod("Publisher", "ListTopicSubscriptions", v1("ListTopicSubscriptionsRequest"), v1("ListTopicSubscriptionsResponse")),
        PubSubMethod("Publisher", "ListTopicSnapshots", v1("ListTopicSnapshotsRequest"), v1("ListTopicSnapshotsResponse")),
        PubSubMethod("Publisher", "DeleteTopic", v1("DeleteTopicRequest"), empty),
        PubSubMethod("Publisher", "DetachSubscription", v1("DetachSubscriptionRequest"), v1("DetachSubscriptionResponse")),
        PubSubMethod("Subscriber", "CreateSubscription", subscription, subscription),
        PubSubMethod("Subscriber", "GetSubscription", v1("GetSubscriptionRequest"), subscription),
        PubSubMethod("Subscriber", "UpdateSubscription", v1("UpdateSubscriptionRequest"), subscription),
        PubSubMethod("Subscriber", "ListSubscriptions", v1("ListSubscriptionsRequest"), v1("ListSubscriptionsResponse")),
        PubSubMethod("Subscriber", "DeleteSubscription", v1("DeleteSubscriptionRequest"), empty),
        PubSubMethod("Subscriber", "ModifyAckDeadline", v1("ModifyAckDeadlineRequest"), empty),
        PubSubMethod("Subscriber", "Acknowledge", v1("AcknowledgeRequest"), empty),
        PubSubMethod("Subscriber", "Pull", v1("PullRequest"), v1("PullResponse")),
        PubSubMethod("Subscriber", "StreamingPull", streamingPullRequest, streamingPullResponse, clientStreaming: true, serverStreaming: true),
        PubSubMethod("Subscriber", "ModifyPushConfig", v1("ModifyPushConfigRequest"), empty),
        PubSubMethod("Subscriber", "GetSnapshot", v1("GetSnapshotRequest"), snapshot),
        PubSubMethod("Subscriber", "ListSnapshots", v1("ListSnapshotsRequest"), v1("ListSnapshotsResponse")),
        PubSubMethod("Subscriber", "CreateSnapshot", v1("CreateSnapshotRequest"), snapshot),
        PubSubMethod("Subscriber", "UpdateSnapshot", v1("UpdateSnapshotRequest"), snapshot),
        PubSubMethod("Subscriber", "DeleteSnapshot", v1("DeleteSnapshotRequest"), empty),
        PubSubMethod("Subscriber", "Seek", v1("SeekRequest"), v1("SeekResponse")),
    ]

    private static let methodsByPath: [String: PubSubMethod] = Dictionary(uniqueKeysWithValues: methods.map { ($0.path, $0) })

    /// The RPC for an HTTP/2 `:path` (`/google.pubsub.v1.Publisher/Publish`), if served.
    public static func method(path: String) -> PubSubMethod? { methodsByPath[path] }
}

/// One RPC of google.pubsub.v1.Publisher or Subscriber: its name, `:path`, message schemas and
/// streaming kind.
public struct PubSubMethod: Sendable {
    /// The service (`Publisher`, `Subscriber`).
    public let service: String
    /// The method name (`Publish`).
    public let name: String
    /// The gRPC `:path` (`/google.pubsub.v1.Publisher/Publish`).
    public let path: String
    /// The request message.
    public let request: MessageSchema
    /// The response message.
    public let response: MessageSchema
    /// The client sends a stream of requests (StreamingPull).
    public let clientStreaming: Bool
    /// The server sends a stream of responses (StreamingPull).
    public let serverStreaming: Bool

    /// Declares an RPC.
    init(
        _ service: String, _ name: String, _ request: MessageSchema, _ response: MessageSchema, clientStreaming: Bool = false,
        serverStreaming: Bool = false
    ) {
        self.service = service
        self.name = name
        self.path = "/google.pubsub.v1.\(service)/\(name)"
        self.request = request
        self.response = response
        self.clientStreaming = clientStreaming
        self.serverStreaming = serverStreaming
    }
}
