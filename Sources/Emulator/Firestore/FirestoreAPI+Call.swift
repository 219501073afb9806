import EmulatorCore
import EmulatorStore

/// The one entry of every transport into the unary and server-streaming RPCs, where what cuts
/// across them is applied once (as grpc-swift-2's interceptors sit at the RPC level): the injected
/// fault first, then the RPC. The REST routes and the gRPC service call `call`/`unary`; the named
/// RPC functions are the bodies and skip faults (the Write stream commits through `commit` and
/// is faulted as `write`, not `commit`).
extension FirestoreAPI {
    /// Runs `rpc` (not Listen or Write): applies the first matching fault, then hands each
    /// response message to `emit` (one for a unary RPC).
    func call(_ rpc: FirestoreRPC, _ request: JSON, _ context: FirestoreCallContext, emit: Emit) async throws {
        try await applyFault(rpc, request)
        switch rpc {
        case .getDocument: try await emit(.json(try getDocument(request, context)))
        case .listDocuments: try await emit(try listDocuments(request, context))
        case .createDocument: try await emit(.json(try createDocument(request, context)))
        case .updateDocument: try await emit(.json(try updateDocument(request, context)))
        case .deleteDocument: try await emit(.json(try deleteDocument(request, context)))
        case .batchGetDocuments: try await batchGetDocuments(request, context, emit: emit)
        case .beginTransaction: try await emit(.json(try beginTransaction(request, context)))
        case .commit: try await emit(.json(try commit(request, context)))
        case .rollback: try await emit(.json(try rollback(request, context)))
        case .runQuery: try await runQuery(request, context, emit: emit)
        case .runAggregationQuery: try await runAggregationQuery(request, context, emit: emit)
        case .partitionQuery: try await emit(.json(try partitionQuery(request, context)))
        case .listCollectionIds: try await emit(.json(try listCollectionIds(request, context)))
        case .batchWrite: try await emit(.json(try batchWrite(request, context)))
        case .listen, .write:
            throw EmulatorError.unimplemented("\(rpc.rawValue) is a bidirectional stream: open it over gRPC or WebChannel.")
        }
    }

    /// GetDocument through the fault layer, as `call(.getDocument, …)` runs it, answering the
    /// stored version (whose cached encodings the transport sends) unless the request has a mask.
    func getDocumentCall(_ request: JSON, _ context: FirestoreCallContext) async throws -> DocumentReply {
        try await applyFault(.getDocument, request)
        return try getDocumentReply(request, context)
    }

    /// CreateDocument through the fault layer, as `call(.createDocument, …)` runs it, answering
    /// the stored version (whose REST bytes the route sends) unless the request has a mask.
    func createDocumentCall(_ request: JSON, _ context: FirestoreCallContext) async throws -> DocumentReply {
        try await applyFault(.createDocument, request)
        return try createDocumentReply(request, context)
    }

    /// Runs a unary `rpc` through `call` and returns its one response message.
    func unary(_ rpc: FirestoreRPC, _ request: JSON, _ context: FirestoreCallContext) async throws -> JSON {
        var out: JSON = [:]
        try await call(rpc, request, context) { out = $0.json }
        return out
    }
}

/// Faults (the admin API's `/faults` rules, `match.service` `firestore`) for every transport:
/// unary calls wait the rule's delay and throw its error; Listen and Write streams end with the
/// error of a rule that fires when a request arrives or when a rule is added while they are open.
/// Transports only encode the error they get.
extension FirestoreAPI {
    /// Applies the first matching fault of a unary or server-streaming call: waits `delayMs`, then
    /// throws its error if it has one.
    func applyFault(_ rpc: FirestoreRPC, _ request: JSON) async throws {
        let faults = services.faults
        guard faults.hasRules, let (project, path) = Self.faultScope(request),
            let rule = faults.fire(projectId: project, target: FaultTarget(service: "firestore", method: rpc.faultMethod, path: path))
        else { return }
        if rule.delayMs > 0 { try? await Task.sleep(nanoseconds: UInt64(rule.delayMs) * 1_000_000) }
        if let e = rule.error { throw e }
    }

    /// Throws the error of a fault rule that fires now for a stream (`.listen` or `.write`) of
    /// `db`'s project. Delays do not apply to streams.
    func checkStreamFault(_ rpc: FirestoreRPC, _ db: DatabaseRef?) throws {
        let faults = services.faults
        guard let db, faults.hasRules,
            let rule = faults.fire(projectId: db.project, target: FaultTarget(service: "firestore", method: rpc.faultMethod, path: "")),
            let e = rule.error
        else { return }
        throw e
    }

    /// Waits for fault rules added while a stream is open and returns the error of the first that
    /// fires for it (`database` is read at each new rule: the stream may not have named one yet);
    /// a cancellation error when the waiting task is cancelled.
    func nextStreamFault(_ rpc: FirestoreRPC, database: @Sendable () -> DatabaseRef?) async -> any Error {
        while !Task.isCancelled {
            await services.faults.waitForNewRule(projectId: nil)
            do { try checkStreamFault(rpc, database()) } catch { return error }
        }
        return CancellationError()
    }

    /// The project and database-relative path a request is about, as the REST route's URL has
    /// them (`parent` + `collectionId`, `name` or `document.name`, or the database alone).
    static func faultScope(_ request: JSON) -> (String, String)? {
        if let parent = request["parent"]?.stringValue, let p = DocumentName.parse(parent) {
            guard let id = request["collectionId"]?.stringValue, !id.isEmpty else { return (p.project, p.path) }
            return (p.project, p.path.isEmpty ? id : p.path + "/" + id)
        }
        if let d = request["document"]?["name"]?.stringValue ?? request["name"]?.stringValue, let p = DocumentName.parse(d) {
            return (p.project, p.path)
        }
        if let db = request["database"]?.stringValue, let ref = try? database(.string(db), field: "database") {
            return (ref.project, "")
        }
        return nil
    }
}
