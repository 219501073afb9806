/// google/firestore/v1/query_profile.proto: explain options and metrics.
extension FirestoreSchemas {
    /// The declarations of this file.
    static func firestoreQueryProfile() -> ProtoFile {
        ProtoFile(
            path: "google/firestore/v1/query_profile.proto",
            messages: [
                MessageSchema(
                    "google.firestore.v1.ExplainOptions",
                    [
                        .field(1, "analyze", .bool)
                    ]),
                MessageSchema(
                    "google.firestore.v1.ExplainMetrics",
                    [
                        .field(1, "plan_summary", T.v1("PlanSummary")),
                        .field(2, "execution_stats", T.v1("ExecutionStats")),
                    ]),
                MessageSchema(
                    "google.firestore.v1.PlanSummary",
                    [
                        .repeated(1, "indexes_used", T.struct)
                    ]),
                MessageSchema(
                    "google.firestore.v1.ExecutionStats",
                    [
                        .field(1, "results_returned", .int64),
                        .field(3, "execution_duration", T.duration),
                        .field(4, "read_operations", .int64),
                        .field(5, "debug_stats", T.struct),
                    ]),
            ]
        )
    }
}
