import EmulatorCore
import EmulatorHTTP
import EmulatorProtobuf
import EmulatorStore

/// google.firestore.v1.Firestore over gRPC, as an adapter over `FirestoreAPI`: each request
/// message is decoded with its protobuf schema into the proto3 JSON form, the same API function
/// the REST route calls runs (`FirestoreAPI.call`, which also applies faults), and each answer is
/// encoded back. So REST and gRPC validate, authorize, fault and answer alike. `authorization`
/// metadata means what REST's `Authorization` header means. Immutable; shared by every call.
struct FirestoreGRPCService: Sendable {
    /// The transport-neutral API.
    let api: FirestoreAPI
    /// Encodes listener responses, sharing each changed document's bytes among its listeners.
    let listenEncoder = ListenEncoder()
    /// Wakes Listen streams silent for 60 s so they send a NO_CHANGE heartbeat (Node's client
    /// recycles a stream after 120 s of silence).
    let heartbeats = ListenHeartbeats(interval: .seconds(60))
    /// The services (logger).
    var services: EmulatorServices { api.services }

    /// Serves one call; always ends it with a status.
    func handle(_ call: GRPCServerCall) async {
        let started = WallClock().now()
        let status = await run(call)
        call.finish(status)
        logCall(call.method, status.code, started: started)
    }

    /// The call's debug line (built only when debug logging is on).
    private func logCall(_ method: String, _ code: Int, started: Timestamp) {
        guard services.logger.isEnabled(.debug) else { return }
        let ms = Double(WallClock().now().microseconds - started.microseconds) / 1000
        services.logger.log(.debug, "grpc", "\(method) \(code) \(format3(ms))ms")
    }

    /// The unary calls answered on the event loop (`GRPCInline`): GetDocument, as `run` answers it,
    /// when no fault rule exists (a fault may delay) and the database is not locked by another
    /// thread (`StoreBusy`: the handler then answers).
    static let inlineMethods: Set<String> = [getDocumentPath]

    /// GetDocument's `:path`.
    static let getDocumentPath = "/google.firestore.v1.Firestore/GetDocument"
    /// GetDocument's schemas, looked up once (by path, the lookup hashed the whole path per call).
    static let getDocument = FirestoreSchemas.method(path: getDocumentPath)

    /// `inlineMethods`' answers; nil leaves the call to `handle`.
    func answerInline(method: String, metadata: (String) -> String?, message: [UInt8]) -> GRPCInline.Answer? {
        guard method == Self.getDocumentPath, !services.faults.hasRules, let schema = Self.getDocument else { return nil }
        let started = WallClock().now()
        var context = FirestoreCallContext(bearerToken: CallerResolver.bearer(fromAuthorization: metadata("authorization")))
        context.waitForLock = false
        let answer: GRPCInline.Answer
        do {
            answer = .message(try api.getDocumentReply(try ProtoJSON.decode(message, as: schema.request), context).protobuf())
        } catch is StoreBusy {
            return nil
        } catch {
            answer = .status(ErrorResponder.grpcStatus(for: error, logger: services.logger))
        }
        if case .status(let s) = answer { logCall(method, s.code, started: started) } else { logCall(method, 0, started: started) }
        return answer
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
            guard let rpc = FirestoreRPC(rawValue: method.name) else { throw EmulatorError.unimplemented("Method not found: \(call.method)") }
            let request = try ProtoJSON.decode(bytes, as: method.request)
            if rpc == .getDocument {
                // The stored version's cached bytes (DocumentReply), not a fresh encoding.
                try await call.reply(try await api.getDocumentCall(request, context).protobuf())
                return .ok
            }
            try await api.call(rpc, request, context) { message in try await call.send(try message.protobuf(as: method.response)) }
            return .ok
        } catch {
            return ErrorResponder.grpcStatus(for: error, logger: services.logger)
        }
    }
}
