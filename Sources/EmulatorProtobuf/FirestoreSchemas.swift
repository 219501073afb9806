/// The schemas of every message the google.firestore.v1.Firestore service's RPCs use (except
/// ExecutePipeline's), the well-known types they reach, and google.events.cloud.firestore.v1's
/// DocumentEventData. Pinned to the real descriptors by `ProtobufSchemaTests`.
///
///     let json = try ProtoJSON.decode(bytes, as: FirestoreSchemas.runQueryRequest)
///     let out = try ProtoJSON.encode(responseJSON, as: FirestoreSchemas.runQueryResponse)
public enum FirestoreSchemas {
    /// Every declared .proto file.
    static func files() -> [ProtoFile] {
        [
            wellKnownTypes(), googleRpcStatus(), googleTypeLatLng(),
            firestoreDocument(), firestoreCommon(), firestoreQuery(), firestoreWrite(), firestoreAggregation(),
            firestoreBloomFilter(), firestoreQueryProfile(), firestoreService(), firestoreEvents(),
        ]
    }

    /// All schemas, linked. A missing or duplicate declaration is a programming error caught by
    /// every test that touches a schema.
    public static let registry: SchemaRegistry = {
        let all = files()
        do throws(ProtobufError) {
            return try SchemaRegistry(messages: all.flatMap(\.messages), enums: all.flatMap(\.enums))
        } catch {
            fatalError("EmulatorProtobuf: the built-in schemas do not link: \(error)")  // trap-ok: the built-in constant schemas; every test that touches a schema fails first
        }
    }()

    /// The message with this full name (`google.firestore.v1.RunQueryRequest`).
    public static func message(named fullName: String) -> MessageSchema? { registry.message(named: fullName) }

    /// The enum with this full name.
    public static func enumeration(named fullName: String) -> EnumSchema? { registry.enumeration(named: fullName) }

    private static func v1(_ name: String) -> MessageSchema {
        guard let m = registry.message(named: "google.firestore.v1." + name) else { fatalError("EmulatorProtobuf: no schema for \(name)") }  // trap-ok: the built-in constant schemas; every test that touches a schema fails first
        return m
    }

    /// google.firestore.v1.Document (GetDocument, CreateDocument and UpdateDocument's response).
    public static let document = v1("Document")
    /// google.firestore.v1.Value.
    public static let value = v1("Value")
    /// google.protobuf.Empty (DeleteDocument and Rollback's response).
    public static let empty = registry.message(named: "google.protobuf.Empty")!  // trap-ok: the built-in constant schemas; every test that touches a schema fails first
    /// google.rpc.Status.
    public static let status = registry.message(named: "google.rpc.Status")!  // trap-ok: the built-in constant schemas; every test that touches a schema fails first
    /// google.events.cloud.firestore.v1.DocumentEventData (Firestore trigger CloudEvent bodies).
    public static let documentEventData = registry.message(named: "google.events.cloud.firestore.v1.DocumentEventData")!  // trap-ok: the built-in constant schemas; every test that touches a schema fails first

    /// GetDocument's request.
    public static let getDocumentRequest = v1("GetDocumentRequest")
    /// ListDocuments' request.
    public static let listDocumentsRequest = v1("ListDocumentsRequest")
    /// ListDocuments' response.
    public static let listDocumentsResponse = v1("ListDocumentsResponse")
    /// CreateDocument's request.
    public static let createDocumentRequest = v1("CreateDocumentRequest")
    /// UpdateDocument's request.
    public static let updateDocumentRequest = v1("UpdateDocumentRequest")
    /// DeleteDocument's request.
    public static let deleteDocumentRequest = v1("DeleteDocumentRequest")
    /// BatchGetDocuments' request.
    public static let batchGetDocumentsRequest = v1("BatchGetDocumentsRequest")
    /// BatchGetDocuments' streamed response.
    public static let batchGetDocumentsResponse = v1("BatchGetDocumentsResponse")
    /// BeginTransaction's request.
    public static let beginTransactionRequest = v1("BeginTransactionRequest")
    /// BeginTransaction's response.
    public static let beginTransactionResponse = v1("BeginTransactionResponse")
    /// Commit's request.
    public static let commitRequest = v1("CommitRequest")
    /// Commit's response.
    public static let commitResponse = v1("CommitResponse")
    /// Rollback's request.
    public static let rollbackRequest = v1("RollbackRequest")
    /// RunQuery's request.
    public static let runQueryRequest = v1("RunQueryRequest")
    /// RunQuery's streamed response.
    public static let runQueryResponse = v1("RunQueryResponse")
    /// RunAggregationQuery's request.
    public static let runAggregationQueryRequest = v1("RunAggregationQueryRequest")
    /// RunAggregationQuery's streamed response.
    public static let runAggregationQueryResponse = v1("RunAggregationQueryResponse")
    /// PartitionQuery's request.
    public static let partitionQueryRequest = v1("PartitionQueryRequest")
    /// PartitionQuery's response.
    public static let partitionQueryResponse = v1("PartitionQueryResponse")
    /// Write's streamed request.
    public static let writeRequest = v1("WriteRequest")
    /// Write's streamed response.
    public static let writeResponse = v1("WriteResponse")
    /// Listen's streamed request.
    public static let listenRequest = v1("ListenRequest")
    /// Listen's streamed response.
    public static let listenResponse = v1("ListenResponse")
    /// ListCollectionIds' request.
    public static let listCollectionIdsRequest = v1("ListCollectionIdsRequest")
    /// ListCollectionIds' response.
    public static let listCollectionIdsResponse = v1("ListCollectionIdsResponse")
    /// BatchWrite's request.
    public static let batchWriteRequest = v1("BatchWriteRequest")
    /// BatchWrite's response.
    public static let batchWriteResponse = v1("BatchWriteResponse")

    /// The service's RPCs (ExecutePipeline omitted), as the gRPC layer routes them.
    public static let methods: [FirestoreMethod] = [
        FirestoreMethod("GetDocument", getDocumentRequest, document),
        FirestoreMethod("ListDocuments", listDocumentsRequest, listDocumentsResponse),
        FirestoreMethod("CreateDocument", createDocumentRequest, document),
        FirestoreMethod("UpdateDocument", updateDocumentRequest, document),
        FirestoreMethod("DeleteDocument", deleteDocumentRequest, empty),
        FirestoreMethod("BatchGetDocuments", batchGetDocumentsRequest, batchGetDocumentsResponse, serverStreaming: true),
        FirestoreMethod("BeginTransaction", beginTransactionRequest, beginTransactionResponse),
        FirestoreMethod("Commit", commitRequest, commitResponse),
        FirestoreMethod("Rollback", rollbackRequest, empty),
        FirestoreMethod("RunQuery", runQueryRequest, runQueryResponse, serverStreaming: true),
        FirestoreMethod("RunAggregationQuery", runAggregationQueryRequest, runAggregationQueryResponse, serverStreaming: true),
        FirestoreMethod("PartitionQuery", partitionQueryRequest, partitionQueryResponse),
        FirestoreMethod("Write", writeRequest, writeResponse, clientStreaming: true, serverStreaming: true),
        FirestoreMethod("Listen", listenRequest, listenResponse, clientStreaming: true, serverStreaming: true),
        FirestoreMethod("ListCollectionIds", listCollectionIdsRequest, listCollectionIdsResponse),
        FirestoreMethod("BatchWrite", batchWriteRequest, batchWriteResponse),
    ]

    /// RPCs of the service whose messages are deliberately not declared.
    public static let omittedMethods = ["ExecutePipeline"]

    private static let methodsByPath: [String: FirestoreMethod] = Dictionary(uniqueKeysWithValues: methods.map { ($0.path, $0) })

    /// The RPC for an HTTP/2 `:path` (`/google.firestore.v1.Firestore/RunQuery`), if served.
    public static func method(path: String) -> FirestoreMethod? { methodsByPath[path] }
}

/// One RPC of google.firestore.v1.Firestore: its name, `:path`, message schemas and streaming kind.
public struct FirestoreMethod: Sendable {
    /// The method name (`RunQuery`).
    public let name: String
    /// The gRPC `:path` (`/google.firestore.v1.Firestore/RunQuery`).
    public let path: String
    /// The request message.
    public let request: MessageSchema
    /// The response message.
    public let response: MessageSchema
    /// The client sends a stream of requests (Write, Listen).
    public let clientStreaming: Bool
    /// The server sends a stream of responses.
    public let serverStreaming: Bool

    /// Declares an RPC of the service.
    init(_ name: String, _ request: MessageSchema, _ response: MessageSchema, clientStreaming: Bool = false, serverStreaming: Bool = false) {
        self.name = name
        self.path = "/google.firestore.v1.Firestore/" + name
        self.request = request
        self.response = response
        self.clientStreaming = clientStreaming
        self.serverStreaming = serverStreaming
    }
}
