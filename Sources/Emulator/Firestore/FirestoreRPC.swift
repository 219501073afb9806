/// The RPCs of google.firestore.v1.Firestore, by their gRPC method name. `FirestoreAPI.call` runs
/// the unary and server-streaming ones; Listen and Write are the bidirectional streams
/// (`FirestoreListen`, `FirestoreWriteStream`).
enum FirestoreRPC: String, CaseIterable, Sendable {
    /// Documents.
    case getDocument = "GetDocument", listDocuments = "ListDocuments", createDocument = "CreateDocument"
    /// Documents (continued).
    case updateDocument = "UpdateDocument", deleteDocument = "DeleteDocument", batchGetDocuments = "BatchGetDocuments"
    /// Transactions and writes.
    case beginTransaction = "BeginTransaction", commit = "Commit", rollback = "Rollback", batchWrite = "BatchWrite"
    /// Queries.
    case runQuery = "RunQuery", runAggregationQuery = "RunAggregationQuery", partitionQuery = "PartitionQuery"
    /// Collection ids (admin only).
    case listCollectionIds = "ListCollectionIds"
    /// The bidirectional streams.
    case listen = "Listen", write = "Write"

    /// The operation name fault rules match (`match.method`): REST's names (`get`, `list`,
    /// `create`, `update`, `delete`, and the custom verbs such as `commit` or `runQuery`).
    var faultMethod: String {
        switch self {
        case .getDocument: "get"
        case .listDocuments: "list"
        case .createDocument: "create"
        case .updateDocument: "update"
        case .deleteDocument: "delete"
        case .batchGetDocuments: "batchGet"
        default: rawValue.prefix(1).lowercased() + rawValue.dropFirst()
        }
    }
}
