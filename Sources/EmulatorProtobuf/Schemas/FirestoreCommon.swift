/// google/firestore/v1/common.proto: masks, preconditions, transaction and request options.
extension FirestoreSchemas {
    /// The declarations of this file.
    static func firestoreCommon() -> ProtoFile {
        ProtoFile(
            path: "google/firestore/v1/common.proto",
            messages: [
                MessageSchema(
                    "google.firestore.v1.DocumentMask",
                    [
                        .repeated(1, "field_paths", .string)
                    ]),
                MessageSchema(
                    "google.firestore.v1.Precondition",
                    [
                        .oneof("condition_type", 1, "exists", .bool),
                        .oneof("condition_type", 2, "update_time", T.timestamp),
                    ]),
                MessageSchema(
                    "google.firestore.v1.TransactionOptions",
                    [
                        .oneof("mode", 2, "read_only", T.v1("TransactionOptions.ReadOnly")),
                        .oneof("mode", 3, "read_write", T.v1("TransactionOptions.ReadWrite")),
                    ]),
                MessageSchema(
                    "google.firestore.v1.TransactionOptions.ReadWrite",
                    [
                        .field(1, "retry_transaction", .bytes),
                        .field(2, "concurrency_mode", T.v1Enum("TransactionOptions.ConcurrencyMode")),
                    ]),
                MessageSchema(
                    "google.firestore.v1.TransactionOptions.ReadOnly",
                    [
                        .oneof("consistency_selector", 2, "read_time", T.timestamp)
                    ]),
                MessageSchema(
                    "google.firestore.v1.RequestOptions",
                    [
                        .repeated(1, "request_tags", .string)
                    ]),
            ],
            enums: [
                EnumSchema(
                    "google.firestore.v1.TransactionOptions.ConcurrencyMode",
                    [
                        ("CONCURRENCY_MODE_UNSPECIFIED", 0), ("OPTIMISTIC", 1), ("PESSIMISTIC", 2),
                    ])
            ]
        )
    }
}
