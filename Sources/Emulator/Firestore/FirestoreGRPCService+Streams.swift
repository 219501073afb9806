import EmulatorCore
import EmulatorHTTP
import EmulatorProtobuf

/// The bidirectional RPCs over gRPC: Listen and Write. Each runs a few tasks side by side (read
/// requests, send responses, watch for shutdown and for injected faults); whichever finishes first
/// decides the status, and the others are cancelled.
extension FirestoreGRPCService {
    /// How long a Listen stream may stay silent before it gets a NO_CHANGE heartbeat (Node's
    /// client recycles a stream after 120 s of silence).
    static let heartbeatSeconds = 60.0

    /// Serves a Listen stream until the client goes away, the server shuts down (UNAVAILABLE, so
    /// clients reconnect and resume), a fault ends it, or it fails. Never ends with OK: Python's
    /// watch gives up for good on a clean end.
    func listen(_ call: GRPCServerCall, _ context: FirestoreCallContext) async -> GRPCStatus {
        let listen = FirestoreListen(api: api, context: context)
        defer { listen.close() }
        let logger = services.logger, faults = services.faults, encoder = listenEncoder
        return await withTaskGroup(of: GRPCStatus.self) { group in
            group.addTask {
                do {
                    while let bytes = try await call.receive() {
                        let request = try ProtoJSON.decode(bytes, as: FirestoreSchemas.listenRequest)
                        try listen.handle(request)
                        if let db = listen.database, let status = Self.streamFault(faults, db.project, "listen") { return status }
                    }
                    // The client half-closed: keep its targets until it goes away.
                    await call.stream.waitForGoingAway()
                    return GRPCStatus(code: ErrorCode.unavailable.grpcNumber, message: "The emulator is shutting down; reconnect to resume.")
                } catch {
                    return ErrorResponder.grpcStatus(for: error, logger: logger)
                }
            }
            group.addTask {
                do {
                    while true {
                        switch await listen.session.next(timeout: Self.heartbeatSeconds) {
                        case .events(let events):
                            guard let db = listen.database else { continue }
                            try await listen.responses(for: events) { messages in
                                try await call.send(messages: try messages.map { try encoder.encode($0, project: db.project, database: db.database) })
                            }
                        case .idle:
                            if let beat = listen.heartbeat() { try await call.send(try ProtoJSON.encode(beat, as: FirestoreSchemas.listenResponse)) }
                        case .overflowed:
                            return GRPCStatus(code: ErrorCode.resourceExhausted.grpcNumber,
                                              message: "The listener fell too far behind the changes; reconnect to resume from the last snapshot.")
                        case .closed:
                            return GRPCStatus(code: ErrorCode.cancelled.grpcNumber, message: "The listener was closed.")
                        }
                    }
                } catch {
                    return ErrorResponder.grpcStatus(for: error, logger: logger)
                }
            }
            group.addTask { await Self.shutdownStatus(call) }
            group.addTask { await Self.faultStatus(faults, method: "listen") { listen.database?.project } }
            let status = await group.next() ?? .ok
            group.cancelAll()
            return status
        }
    }

    /// Serves a Write stream: the handshake, then one answer per batch in order. Ends with OK when
    /// the client half-closes, with the batch's status when one fails, with UNAVAILABLE at shutdown.
    func writeStream(_ call: GRPCServerCall, _ context: FirestoreCallContext) async -> GRPCStatus {
        let stream = FirestoreWriteStream(api: api, context: context)
        let logger = services.logger, faults = services.faults
        return await withTaskGroup(of: GRPCStatus.self) { group in
            group.addTask {
                do {
                    while let bytes = try await call.receive() {
                        let request = try ProtoJSON.decode(bytes, as: FirestoreSchemas.writeRequest)
                        if let db = stream.database ?? (try? FirestoreAPI.database(request["database"], field: "database")),
                           let status = Self.streamFault(faults, db.project, "write") {
                            return status
                        }
                        if let response = try stream.handle(request) {
                            try await call.send(try ProtoJSON.encode(response, as: FirestoreSchemas.writeResponse))
                        }
                    }
                    return .ok
                } catch {
                    return ErrorResponder.grpcStatus(for: error, logger: logger)
                }
            }
            group.addTask { await Self.shutdownStatus(call) }
            group.addTask { await Self.faultStatus(faults, method: "write") { stream.database?.project } }
            let status = await group.next() ?? .ok
            group.cancelAll()
            return status
        }
    }

    /// UNAVAILABLE once the server starts shutting down (clients reconnect and resume).
    static func shutdownStatus(_ call: GRPCServerCall) async -> GRPCStatus {
        await call.stream.waitForGoingAway()
        return GRPCStatus(code: ErrorCode.unavailable.grpcNumber, message: "The emulator is shutting down; reconnect to resume.")
    }

    /// Waits for fault rules added while the stream is open; returns the status of the first one
    /// that fires for it (`match.method` `listen` or `write`).
    static func faultStatus(_ faults: FaultInjector, method: String, project: @escaping @Sendable () -> String?) async -> GRPCStatus {
        while !Task.isCancelled {
            await faults.waitForNewRule(projectId: nil)
            if let p = project(), let status = streamFault(faults, p, method) { return status }
        }
        return GRPCStatus(code: ErrorCode.cancelled.grpcNumber, message: "The call was cancelled.")
    }

    /// The status of a fault rule firing for a stream now, if one does.
    static func streamFault(_ faults: FaultInjector, _ project: String, _ method: String) -> GRPCStatus? {
        guard faults.hasRules, let rule = faults.fire(projectId: project, target: FaultTarget(service: "firestore", method: method, path: "")),
              let e = rule.error else { return nil }
        return GRPCStatus(code: e.code.grpcNumber, message: e.message)
    }
}
