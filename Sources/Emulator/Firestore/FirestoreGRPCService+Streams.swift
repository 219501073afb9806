import EmulatorCore
import EmulatorHTTP
import EmulatorProtobuf

/// The bidirectional RPCs over gRPC: Listen and Write. Each runs a few tasks side by side (read
/// requests, send responses, watch for shutdown and for fault rules added while open, which
/// `FirestoreAPI.nextStreamFault` judges); whichever finishes first decides the status, and the
/// others are cancelled. Faults on arriving requests are thrown by the protocol objects.
extension FirestoreGRPCService {

    /// Serves a Listen stream until the client goes away, the server shuts down (UNAVAILABLE, so
    /// clients reconnect and resume), a fault ends it, or it fails. Never ends with OK: Python's
    /// watch gives up for good on a clean end.
    func listen(_ call: GRPCServerCall, _ context: FirestoreCallContext) async -> GRPCStatus {
        let listen = FirestoreListen(api: api, context: context)
        heartbeats.add(listen.session)
        defer {
            heartbeats.remove(listen.session)
            listen.close()
        }
        let logger = services.logger, api = self.api, encoder = listenEncoder
        return await withTaskGroup(of: GRPCStatus.self) { group in
            group.addTask {
                do {
                    while let bytes = try await call.receive() {
                        let request = try ProtoJSON.decode(bytes, as: FirestoreSchemas.listenRequest)
                        try listen.handle(request)
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
                        switch await listen.session.next() {
                        case .events(let events):
                            guard let db = listen.database else { continue }
                            try await listen.responses(for: events) { messages in
                                try await call.send(messages: try messages.map { try encoder.encode($0, project: db.project, database: db.database) })
                            }
                        case .idle:
                            if let beat = listen.heartbeat() { try await call.send(try ProtoJSON.encode(beat, as: FirestoreSchemas.listenResponse)) }
                        case .overflowed:
                            return GRPCStatus(
                                code: ErrorCode.resourceExhausted.grpcNumber,
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
            group.addTask { ErrorResponder.grpcStatus(for: await api.nextStreamFault(.listen) { listen.database }, logger: logger) }
            let status = await group.next() ?? .ok
            group.cancelAll()
            return status
        }
    }

    /// Serves a Write stream: the handshake, then one answer per batch in order. Ends with OK when
    /// the client half-closes, with the batch's status when one fails, with UNAVAILABLE at shutdown.
    func writeStream(_ call: GRPCServerCall, _ context: FirestoreCallContext) async -> GRPCStatus {
        let stream = FirestoreWriteStream(api: api, context: context)
        let logger = services.logger, api = self.api
        return await withTaskGroup(of: GRPCStatus.self) { group in
            group.addTask {
                do {
                    while let bytes = try await call.receive() {
                        let request = try ProtoJSON.decode(bytes, as: FirestoreSchemas.writeRequest)
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
            group.addTask { ErrorResponder.grpcStatus(for: await api.nextStreamFault(.write) { stream.database }, logger: logger) }
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
}
