/// google/firestore/v1/write.proto: writes, transforms, results and Listen's document events.
extension FirestoreSchemas {
    /// The declarations of this file.
    static func firestoreWrite() -> ProtoFile {
        ProtoFile(
            path: "google/firestore/v1/write.proto",
            messages: [
                MessageSchema(
                    "google.firestore.v1.Write",
                    [
                        .oneof("operation", 1, "update", T.v1("Document")),
                        .oneof("operation", 2, "delete", .string),
                        // Not in googleapis' write.proto: the mobile and web SDKs send it in transaction
                        // commits ("assert current_document, write nothing"). Documented addition,
                        // allowed by ProtobufSchemaTests.
                        .oneof("operation", 5, "verify", .string),
                        .oneof("operation", 6, "transform", T.v1("DocumentTransform")),
                        .field(3, "update_mask", T.v1("DocumentMask")),
                        .repeated(7, "update_transforms", T.v1("DocumentTransform.FieldTransform")),
                        .field(4, "current_document", T.v1("Precondition")),
                    ]),
                MessageSchema(
                    "google.firestore.v1.DocumentTransform",
                    [
                        .field(1, "document", .string),
                        .repeated(2, "field_transforms", T.v1("DocumentTransform.FieldTransform")),
                    ]),
                MessageSchema(
                    "google.firestore.v1.DocumentTransform.FieldTransform",
                    [
                        .field(1, "field_path", .string),
                        .oneof("transform_type", 2, "set_to_server_value", T.v1Enum("DocumentTransform.FieldTransform.ServerValue")),
                        .oneof("transform_type", 3, "increment", T.v1("Value")),
                        .oneof("transform_type", 4, "maximum", T.v1("Value")),
                        .oneof("transform_type", 5, "minimum", T.v1("Value")),
                        .oneof("transform_type", 6, "append_missing_elements", T.v1("ArrayValue")),
                        .oneof("transform_type", 7, "remove_all_from_array", T.v1("ArrayValue")),
                    ]),
                MessageSchema(
                    "google.firestore.v1.WriteResult",
                    [
                        .field(1, "update_time", T.timestamp),
                        .repeated(2, "transform_results", T.v1("Value")),
                    ]),
                MessageSchema(
                    "google.firestore.v1.DocumentChange",
                    [
                        .field(1, "document", T.v1("Document")),
                        .repeated(5, "target_ids", .int32),
                        .repeated(6, "removed_target_ids", .int32),
                    ]),
                MessageSchema(
                    "google.firestore.v1.DocumentDelete",
                    [
                        .field(1, "document", .string),
                        .repeated(6, "removed_target_ids", .int32),
                        .field(4, "read_time", T.timestamp),
                    ]),
                MessageSchema(
                    "google.firestore.v1.DocumentRemove",
                    [
                        .field(1, "document", .string),
                        .repeated(2, "removed_target_ids", .int32),
                        .field(4, "read_time", T.timestamp),
                    ]),
                MessageSchema(
                    "google.firestore.v1.ExistenceFilter",
                    [
                        .field(1, "target_id", .int32),
                        .field(2, "count", .int32),
                        .field(3, "unchanged_names", T.v1("BloomFilter")),
                    ]),
            ],
            enums: [
                EnumSchema(
                    "google.firestore.v1.DocumentTransform.FieldTransform.ServerValue",
                    [
                        ("SERVER_VALUE_UNSPECIFIED", 0), ("REQUEST_TIME", 1),
                    ])
            ]
        )
    }
}
