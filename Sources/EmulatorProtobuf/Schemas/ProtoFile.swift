/// The declarations of one .proto file: its messages and enums, as data. Each `Schemas/*.swift`
/// file builds one; `FirestoreSchemas.registry` links them all. Built fresh on each call, so
/// every registry owns its own schema objects.
struct ProtoFile {
    /// The file's path in googleapis (for documentation and error messages).
    var path: String
    /// Its messages (nested messages by full name, like `google.firestore.v1.Target.QueryTarget`).
    var messages: [MessageSchema]
    /// Its enums.
    var enums: [EnumSchema] = []
}

/// Short names for the types the schema files reference, so the tables read like .proto files.
enum T {
    /// google.protobuf.Timestamp.
    static let timestamp = ProtoFieldType.message("google.protobuf.Timestamp")
    /// google.protobuf.Duration.
    static let duration = ProtoFieldType.message("google.protobuf.Duration")
    /// google.protobuf.Empty.
    static let empty = ProtoFieldType.message("google.protobuf.Empty")
    /// google.protobuf.Any.
    static let any = ProtoFieldType.message("google.protobuf.Any")
    /// google.protobuf.Struct.
    static let `struct` = ProtoFieldType.message("google.protobuf.Struct")
    /// google.protobuf.Value.
    static let protobufValue = ProtoFieldType.message("google.protobuf.Value")
    /// google.protobuf.ListValue.
    static let listValue = ProtoFieldType.message("google.protobuf.ListValue")
    /// google.protobuf.NullValue.
    static let nullValue = ProtoFieldType.enumeration("google.protobuf.NullValue")
    /// google.protobuf.Int32Value.
    static let int32Value = ProtoFieldType.message("google.protobuf.Int32Value")
    /// google.protobuf.Int64Value.
    static let int64Value = ProtoFieldType.message("google.protobuf.Int64Value")
    /// google.protobuf.DoubleValue.
    static let doubleValue = ProtoFieldType.message("google.protobuf.DoubleValue")
    /// google.type.LatLng.
    static let latLng = ProtoFieldType.message("google.type.LatLng")
    /// google.rpc.Status.
    static let status = ProtoFieldType.message("google.rpc.Status")

    /// A google.firestore.v1 message.
    static func v1(_ name: String) -> ProtoFieldType { .message("google.firestore.v1." + name) }
    /// A google.firestore.v1 enum.
    static func v1Enum(_ name: String) -> ProtoFieldType { .enumeration("google.firestore.v1." + name) }
}
