/// google/events/cloud/firestore/v1/data.proto: CloudEvent bodies of Firestore triggers, as the
/// `google-events` package (0.5.0, what firebase-functions decodes them with) declares them. The
/// package has its own Document and Value (no pipeline members) and DocumentMask.
extension FirestoreSchemas {
    /// The declarations of this file.
    static func firestoreEvents() -> ProtoFile {
        let value = ProtoFieldType.message("google.events.cloud.firestore.v1.Value")
        let document = ProtoFieldType.message("google.events.cloud.firestore.v1.Document")
        return ProtoFile(
            path: "google/events/cloud/firestore/v1/data.proto",
            messages: [
                MessageSchema(
                    "google.events.cloud.firestore.v1.DocumentEventData",
                    [
                        .field(1, "value", document),
                        .field(2, "old_value", document),
                        .field(3, "update_mask", .message("google.events.cloud.firestore.v1.DocumentMask")),
                    ]),
                MessageSchema(
                    "google.events.cloud.firestore.v1.DocumentMask",
                    [
                        .repeated(1, "field_paths", .string)
                    ]),
                MessageSchema(
                    "google.events.cloud.firestore.v1.Document",
                    [
                        .field(1, "name", .string),
                        .map(2, "fields", .string, value),
                        .field(3, "create_time", T.timestamp),
                        .field(4, "update_time", T.timestamp),
                    ]),
                MessageSchema(
                    "google.events.cloud.firestore.v1.Value",
                    [
                        .oneof("value_type", 11, "null_value", T.nullValue),
                        .oneof("value_type", 1, "boolean_value", .bool),
                        .oneof("value_type", 2, "integer_value", .int64),
                        .oneof("value_type", 3, "double_value", .double),
                        .oneof("value_type", 10, "timestamp_value", T.timestamp),
                        .oneof("value_type", 17, "string_value", .string),
                        .oneof("value_type", 18, "bytes_value", .bytes),
                        .oneof("value_type", 5, "reference_value", .string),
                        .oneof("value_type", 8, "geo_point_value", T.latLng),
                        .oneof("value_type", 9, "array_value", .message("google.events.cloud.firestore.v1.ArrayValue")),
                        .oneof("value_type", 6, "map_value", .message("google.events.cloud.firestore.v1.MapValue")),
                    ]),
                MessageSchema(
                    "google.events.cloud.firestore.v1.ArrayValue",
                    [
                        .repeated(1, "values", value)
                    ]),
                MessageSchema(
                    "google.events.cloud.firestore.v1.MapValue",
                    [
                        .map(1, "fields", .string, value)
                    ]),
            ]
        )
    }
}
