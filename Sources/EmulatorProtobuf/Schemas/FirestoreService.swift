/// google/firestore/v1/firestore.proto: the requests and responses of the Firestore service's
/// RPCs (ExecutePipeline's are omitted: the enterprise edition's pipeline API), Listen's targets
/// and target changes.
extension FirestoreSchemas {
    /// The declarations of this file.
    static func firestoreService() -> ProtoFile {
        let requestOptions = T.v1("RequestOptions")
        return ProtoFile(
            path: "google/firestore/v1/firestore.proto",
            messages: [
                MessageSchema(
                    "google.firestore.v1.GetDocumentRequest",
                    [
                        .field(1, "name", .string),
                        .field(2, "mask", T.v1("DocumentMask")),
                        .oneof("consistency_selector", 3, "transaction", .bytes),
                        .oneof("consistency_selector", 5, "read_time", T.timestamp),
                        .field(10, "request_options", requestOptions),
                    ]),
                MessageSchema(
                    "google.firestore.v1.ListDocumentsRequest",
                    [
                        .field(1, "parent", .string),
                        .field(2, "collection_id", .string),
                        .field(3, "page_size", .int32),
                        .field(4, "page_token", .string),
                        .field(6, "order_by", .string),
                        .field(7, "mask", T.v1("DocumentMask")),
                        .oneof("consistency_selector", 8, "transaction", .bytes),
                        .oneof("consistency_selector", 10, "read_time", T.timestamp),
                        .field(12, "show_missing", .bool),
                        .field(13, "request_options", requestOptions),
                    ]),
                MessageSchema(
                    "google.firestore.v1.ListDocumentsResponse",
                    [
                        .repeated(1, "documents", T.v1("Document")),
                        .field(2, "next_page_token", .string),
                    ]),
                MessageSchema(
                    "google.firestore.v1.CreateDocumentRequest",
                    [
                        .field(1, "parent", .string),
                        .field(2, "collection_id", .string),
                        .field(3, "document_id", .string),
                        .field(4, "document", T.v1("Document")),
                        .field(5, "mask", T.v1("DocumentMask")),
                        .field(6, "request_options", requestOptions),
                    ]),
                MessageSchema(
                    "google.firestore.v1.UpdateDocumentRequest",
                    [
                        .field(1, "document", T.v1("Document")),
                        .field(2, "update_mask", T.v1("DocumentMask")),
                        .field(3, "mask", T.v1("DocumentMask")),
                        .field(4, "current_document", T.v1("Precondition")),
                        .field(5, "request_options", requestOptions),
                    ]),
                MessageSchema(
                    "google.firestore.v1.DeleteDocumentRequest",
                    [
                        .field(1, "name", .string),
                        .field(2, "current_document", T.v1("Precondition")),
                        .field(3, "request_options", requestOptions),
                    ]),
                MessageSchema(
                    "google.firestore.v1.BatchGetDocumentsRequest",
                    [
                        .field(1, "database", .string),
                        .repeated(2, "documents", .string),
                        .field(3, "mask", T.v1("DocumentMask")),
                        .oneof("consistency_selector", 4, "transaction", .bytes),
                        .oneof("consistency_selector", 5, "new_transaction", T.v1("TransactionOptions")),
                        .oneof("consistency_selector", 7, "read_time", T.timestamp),
                        .field(8, "request_options", requestOptions),
                    ]),
                MessageSchema(
                    "google.firestore.v1.BatchGetDocumentsResponse",
                    [
                        .oneof("result", 1, "found", T.v1("Document")),
                        .oneof("result", 2, "missing", .string),
                        .field(3, "transaction", .bytes),
                        .field(4, "read_time", T.timestamp),
                    ]),
                MessageSchema(
                    "google.firestore.v1.BeginTransactionRequest",
                    [
                        .field(1, "database", .string),
                        .field(2, "options", T.v1("TransactionOptions")),
                        .field(3, "request_options", requestOptions),
                    ]),
                MessageSchema(
                    "google.firestore.v1.BeginTransactionResponse",
                    [
                        .field(1, "transaction", .bytes)
                    ]),
                MessageSchema(
                    "google.firestore.v1.CommitRequest",
                    [
                        .field(1, "database", .string),
                        .repeated(2, "writes", T.v1("Write")),
                        .field(3, "transaction", .bytes),
                        .field(4, "request_options", requestOptions),
                    ]),
                MessageSchema(
                    "google.firestore.v1.CommitResponse",
                    [
                        .repeated(1, "write_results", T.v1("WriteResult")),
                        .field(2, "commit_time", T.timestamp),
                    ]),
                MessageSchema(
                    "google.firestore.v1.RollbackRequest",
                    [
                        .field(1, "database", .string),
                        .field(2, "transaction", .bytes),
                        .field(3, "request_options", requestOptions),
                    ]),
                MessageSchema(
                    "google.firestore.v1.RunQueryRequest",
                    [
                        .field(1, "parent", .string),
                        .oneof("query_type", 2, "structured_query", T.v1("StructuredQuery")),
                        .oneof("consistency_selector", 5, "transaction", .bytes),
                        .oneof("consistency_selector", 6, "new_transaction", T.v1("TransactionOptions")),
                        .oneof("consistency_selector", 7, "read_time", T.timestamp),
                        .field(10, "explain_options", T.v1("ExplainOptions")),
                        .field(11, "request_options", requestOptions),
                    ]),
                MessageSchema(
                    "google.firestore.v1.RunQueryResponse",
                    [
                        .field(2, "transaction", .bytes),
                        .field(1, "document", T.v1("Document")),
                        .field(3, "read_time", T.timestamp),
                        .field(4, "skipped_results", .int32),
                        .oneof("continuation_selector", 6, "done", .bool),
                        .field(11, "explain_metrics", T.v1("ExplainMetrics")),
                    ]),
                MessageSchema(
                    "google.firestore.v1.RunAggregationQueryRequest",
                    [
                        .field(1, "parent", .string),
                        .oneof("query_type", 2, "structured_aggregation_query", T.v1("StructuredAggregationQuery")),
                        .oneof("consistency_selector", 4, "transaction", .bytes),
                        .oneof("consistency_selector", 5, "new_transaction", T.v1("TransactionOptions")),
                        .oneof("consistency_selector", 6, "read_time", T.timestamp),
                        .field(8, "explain_options", T.v1("ExplainOptions")),
                        .field(9, "request_options", requestOptions),
                    ]),
                MessageSchema(
                    "google.firestore.v1.RunAggregationQueryResponse",
                    [
                        .field(1, "result", T.v1("AggregationResult")),
                        .field(2, "transaction", .bytes),
                        .field(3, "read_time", T.timestamp),
                        .field(10, "explain_metrics", T.v1("ExplainMetrics")),
                    ]),
                MessageSchema(
                    "google.firestore.v1.PartitionQueryRequest",
                    [
                        .field(1, "parent", .string),
                        .oneof("query_type", 2, "structured_query", T.v1("StructuredQuery")),
                        .field(3, "partition_count", .int64),
                        .field(4, "page_token", .string),
                        .field(5, "page_size", .int32),
                        .oneof("consistency_selector", 6, "read_time", T.timestamp),
                        .field(7, "request_options", requestOptions),
                    ]),
                MessageSchema(
                    "google.firestore.v1.PartitionQueryResponse",
                    [
                        .repeated(1, "partitions", T.v1("Cursor")),
                        .field(2, "next_page_token", .string),
                    ]),
                MessageSchema(
                    "google.firestore.v1.WriteRequest",
                    [
                        .field(1, "database", .string),
                        .field(2, "stream_id", .string),
                        .repeated(3, "writes", T.v1("Write")),
                        .field(4, "stream_token", .bytes),
                        .map(5, "labels", .string, .string),
                        .field(6, "request_options", requestOptions),
                    ]),
                MessageSchema(
                    "google.firestore.v1.WriteResponse",
                    [
                        .field(1, "stream_id", .string),
                        .field(2, "stream_token", .bytes),
                        .repeated(3, "write_results", T.v1("WriteResult")),
                        .field(4, "commit_time", T.timestamp),
                    ]),
                MessageSchema(
                    "google.firestore.v1.ListenRequest",
                    [
                        .field(1, "database", .string),
                        .oneof("target_change", 2, "add_target", T.v1("Target")),
                        .oneof("target_change", 3, "remove_target", .int32),
                        .map(4, "labels", .string, .string),
                        .field(5, "request_options", requestOptions),
                    ]),
                MessageSchema(
                    "google.firestore.v1.ListenResponse",
                    [
                        .oneof("response_type", 2, "target_change", T.v1("TargetChange")),
                        .oneof("response_type", 3, "document_change", T.v1("DocumentChange")),
                        .oneof("response_type", 4, "document_delete", T.v1("DocumentDelete")),
                        .oneof("response_type", 6, "document_remove", T.v1("DocumentRemove")),
                        .oneof("response_type", 5, "filter", T.v1("ExistenceFilter")),
                    ]),
                MessageSchema(
                    "google.firestore.v1.Target",
                    [
                        .oneof("target_type", 2, "query", T.v1("Target.QueryTarget")),
                        .oneof("target_type", 3, "documents", T.v1("Target.DocumentsTarget")),
                        .oneof("resume_type", 4, "resume_token", .bytes),
                        .oneof("resume_type", 11, "read_time", T.timestamp),
                        .field(5, "target_id", .int32),
                        .field(6, "once", .bool),
                        .field(12, "expected_count", T.int32Value),
                    ]),
                MessageSchema(
                    "google.firestore.v1.Target.DocumentsTarget",
                    [
                        .repeated(2, "documents", .string)
                    ]),
                MessageSchema(
                    "google.firestore.v1.Target.QueryTarget",
                    [
                        .field(1, "parent", .string),
                        .oneof("query_type", 2, "structured_query", T.v1("StructuredQuery")),
                    ]),
                MessageSchema(
                    "google.firestore.v1.TargetChange",
                    [
                        .field(1, "target_change_type", T.v1Enum("TargetChange.TargetChangeType")),
                        .repeated(2, "target_ids", .int32),
                        .field(3, "cause", T.status),
                        .field(4, "resume_token", .bytes),
                        .field(6, "read_time", T.timestamp),
                    ]),
                MessageSchema(
                    "google.firestore.v1.ListCollectionIdsRequest",
                    [
                        .field(1, "parent", .string),
                        .field(2, "page_size", .int32),
                        .field(3, "page_token", .string),
                        .oneof("consistency_selector", 4, "read_time", T.timestamp),
                        .field(5, "request_options", requestOptions),
                    ]),
                MessageSchema(
                    "google.firestore.v1.ListCollectionIdsResponse",
                    [
                        .repeated(1, "collection_ids", .string),
                        .field(2, "next_page_token", .string),
                    ]),
                MessageSchema(
                    "google.firestore.v1.BatchWriteRequest",
                    [
                        .field(1, "database", .string),
                        .repeated(2, "writes", T.v1("Write")),
                        .map(3, "labels", .string, .string),
                        .field(4, "request_options", requestOptions),
                    ]),
                MessageSchema(
                    "google.firestore.v1.BatchWriteResponse",
                    [
                        .repeated(1, "write_results", T.v1("WriteResult")),
                        .repeated(2, "status", T.status),
                    ]),
            ],
            enums: [
                EnumSchema(
                    "google.firestore.v1.TargetChange.TargetChangeType",
                    [
                        ("NO_CHANGE", 0), ("ADD", 1), ("REMOVE", 2), ("CURRENT", 3), ("RESET", 4),
                    ])
            ]
        )
    }
}
