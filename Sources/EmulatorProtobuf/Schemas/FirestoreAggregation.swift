/// google/firestore/v1/aggregation_result.proto.
extension FirestoreSchemas {
    /// The declarations of this file.
    static func firestoreAggregation() -> ProtoFile {
        ProtoFile(
            path: "google/firestore/v1/aggregation_result.proto",
            messages: [
                MessageSchema(
                    "google.firestore.v1.AggregationResult",
                    [
                        .map(2, "aggregate_fields", .string, T.v1("Value"))
                    ])
            ]
        )
    }
}
