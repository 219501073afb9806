import EmulatorCore
import EmulatorHTTP
import EmulatorProtobuf
import EmulatorStore

/// google.firestore.v1.Firestore over gRPC, as an adapter over `FirestoreAPI`: each request
/// message is decoded with its protobuf schema into the proto3 JSON form, the same API function
/// the REST route calls runs, and each answer is encoded back. So REST and gRPC validate,
/// authorize, fault and answer alike. `authorization` metadata means what REST's `Authorization`
/// header means. Immutable; shared by every call.
struct FirestoreGRPCService: Sendable {
    /// The transport-neutral API.
    let api: FirestoreAPI
    /// Encodes listener responses, sharing each changed document's bytes among its listeners.
    let listenEncoder = ListenEncoder()
    /// The services (faults, logger).
    var services: EmulatorServices { api.services }

    /// The REST-style operation name of each RPC, as fault rules name them (`match.method`).
    static let faultMethods: [String: String] = [
        "GetDocument": "get", "ListDocuments": "list", "CreateDocument": "create", "UpdateDocument": "update",
        "DeleteDocument": "delete", "BatchGetDocuments": "batchGet", "BeginTransaction": "beginTransaction",
        "Commit": "commit", "Rollback": "rollback", "RunQuery": "runQuery", "RunAggregationQuery": "runAggregationQuery",
        "PartitionQuery": "partitionQuery", "ListCollectionIds": "listCollectionIds", "BatchWrite": "batchWrite",
        "Listen": "listen", "Write": "write",
    ]

    /// Serves one call; always ends it with a status.
    func handle(_ call: GRPCServerCall) async {
        let started = WallClock().now()
        let status = await run(call)
        call.finish(status)
        let ms = Double(WallClock().now().microseconds - started.microseconds) / 1000
        services.logger.log(.debug, "grpc", "\(call.method) \(status.code) \(format3(ms))ms")
    }

    private func run(_ call: GRPCServerCall) async -> GRPCStatus {
        guard let method = FirestoreSchemas.method(path: call.method) else {
            return GRPCStatus(code: ErrorCode.unimplemented.grpcNumber, message: "Method not found: \(call.method)")
        }
        let context = FirestoreCallContext(bearerToken: CallerResolver.bearer(fromAuthorization: call.metadata("authorization")))
        do {
            if method.name == "Listen" { return await listen(call, context) }
            if method.name == "Write" { return await writeStream(call, context) }
            guard let bytes = try await call.receive() else {
                throw EmulatorError.invalidArgument("\(method.name) needs a request message.")
            }
            let request = try ProtoJSON.decode(bytes, as: method.request)
            try await injectFault(method.name, request)
            let emit: FirestoreAPI.Emit = { json in try await call.send(try ProtoJSON.encode(json, as: method.response)) }
            switch method.name {
            case "GetDocument": try await emit(try api.getDocument(request, context))
            case "ListDocuments": try await emit(try api.listDocuments(request, context))
            case "CreateDocument": try await emit(try api.createDocument(request, context))
            case "UpdateDocument": try await emit(try api.updateDocument(request, context))
            case "DeleteDocument": try await emit(try api.deleteDocument(request, context))
            case "BatchGetDocuments": try await api.batchGetDocuments(request, context, emit: emit)
            case "BeginTransaction": try await emit(try api.beginTransaction(request, context))
            case "Commit": try await emit(try api.commit(request, context))
            case "Rollback": try await emit(try api.rollback(request, context))
            case "RunQuery": try await api.runQuery(request, context, emit: emit)
            case "RunAggregationQuery": try await api.runAggregationQuery(request, context, emit: emit)
            case "PartitionQuery": try await emit(try api.partitionQuery(request, context))
            case "ListCollectionIds": try await emit(try api.listCollectionIds(request, context))
            case "BatchWrite": try await emit(try api.batchWrite(request, context))
            default: throw EmulatorError.unimplemented("Method not found: \(call.method)")
            }
            return .ok
        } catch {
            return ErrorResponder.grpcStatus(for: error, logger: services.logger)
        }
    }

    /// Applies the first matching injected fault, exactly as for the REST route of the same RPC.
    private func injectFault(_ rpc: String, _ request: JSON) async throws {
        guard services.faults.hasRules, let method = Self.faultMethods[rpc], let (project, path) = Self.faultScope(request) else { return }
        guard let rule = services.faults.fire(projectId: project, target: FaultTarget(service: "firestore", method: method, path: path)) else { return }
        if rule.delayMs > 0 { try? await Task.sleep(nanoseconds: UInt64(rule.delayMs) * 1_000_000) }
        if let e = rule.error { throw e }
    }

    /// The project and database-relative path a request is about, as the REST route's URL has
    /// them (`name`, `parent` + `collectionId`, or the database alone).
    static func faultScope(_ request: JSON) -> (String, String)? {
        if let d = request["document"]?["name"]?.stringValue ?? request["name"]?.stringValue, let p = DocumentName.parse(d) {
            return (p.project, p.path)
        }
        if let parent = request["parent"]?.stringValue, let p = DocumentName.parse(parent) {
            guard let id = request["collectionId"]?.stringValue, !id.isEmpty else { return (p.project, p.path) }
            return (p.project, p.path.isEmpty ? id : p.path + "/" + id)
        }
        if let db = request["database"]?.stringValue, let ref = try? FirestoreAPI.database(.string(db), field: "database") {
            return (ref.project, "")
        }
        return nil
    }
}
