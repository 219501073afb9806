/// google/rpc/status.proto: the error model (TargetChange.cause, BatchWriteResponse.status).
extension FirestoreSchemas {
    /// The declarations of this file.
    static func googleRpcStatus() -> ProtoFile {
        ProtoFile(
            path: "google/rpc/status.proto",
            messages: [
                MessageSchema(
                    "google.rpc.Status",
                    [
                        .field(1, "code", .int32),
                        .field(2, "message", .string),
                        .repeated(3, "details", T.any),
                    ])
            ]
        )
    }
}
