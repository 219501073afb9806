import EmulatorCore
import EmulatorHTTP
import EmulatorProtobuf
import EmulatorPubSub

/// StreamingPull: one task reads the client's requests (the handshake, then acks, deadline
/// changes and heartbeats), one leases and sends messages within the stream's flow control, and
/// others watch for shutdown, injected faults and a send that stalls; whichever finishes first
/// decides the status. Nothing is buffered for a slow reader: messages are leased only when the
/// previous batch was taken, and a reader that takes nothing for `stallSeconds` is dropped with
/// UNAVAILABLE (its leases expire and are redelivered; clients reconnect).
extension PubSubGRPCService {
    /// A send that makes no progress for this long ends the stream.
    static let stallSeconds = 60.0
    /// The most messages one StreamingPullResponse carries.
    static let maxBatch = 100

    /// Serves one StreamingPull call.
    func streamingPull(_ call: GRPCServerCall) async -> GRPCStatus {
        let ps = services.pubsub, logger = services.logger, faults = services.faults
        let session: PubSubStreamSession
        do {
            guard let bytes = try await call.receive() else { throw EmulatorError.invalidArgument("StreamingPull needs an initial request.") }
            let first = try ProtoJSON.decode(bytes, as: PubSubSchemas.streamingPullRequest)
            session = try PubSubStreamSession(first)
            try await injectFault("StreamingPull", ["subscription": .string(session.name.full)])
            session.config = try ps.subscriptionConfig(session.name)
            try session.apply(first, ps)
        } catch {
            return ErrorResponder.grpcStatus(for: error, logger: logger)
        }
        let name = session.name
        return await withTaskGroup(of: GRPCStatus.self) { group in
            group.addTask {
                do {
                    while let bytes = try await call.receive() {
                        let request = try ProtoJSON.decode(bytes, as: PubSubSchemas.streamingPullRequest)
                        if let confirmations = try session.apply(request, ps) {
                            try await session.send(call, try ProtoJSON.encode(confirmations, as: PubSubSchemas.streamingPullResponse))
                        }
                    }
                    // The client half-closed: it wants no more messages.
                    return .ok
                } catch {
                    return ErrorResponder.grpcStatus(for: error, logger: logger)
                }
            }
            group.addTask {
                do {
                    while !Task.isCancelled {
                        let room = session.room(ps)
                        if room.messages > 0 {
                            let (got, attempts) = try ps.lease(
                                name, max: min(room.messages, Self.maxBatch), maxBytes: room.bytes,
                                deadlineSeconds: session.ackDeadlineSeconds)
                            if !got.isEmpty {
                                session.track(got)
                                let response: JSON = [
                                    "receivedMessages": .array(got.map { Self.receivedJSON($0, attempts) }),
                                    "subscriptionProperties": session.properties,
                                ]
                                try await session.send(call, try ProtoJSON.encode(response, as: PubSubSchemas.streamingPullResponse))
                                continue
                            }
                        }
                        await ps.waitForMessages(name, atMost: 1)
                    }
                    return GRPCStatus(code: ErrorCode.cancelled.grpcNumber, message: "The call was cancelled.")
                } catch {
                    return ErrorResponder.grpcStatus(for: error, logger: logger)
                }
            }
            group.addTask { await FirestoreGRPCService.shutdownStatus(call) }
            group.addTask { await session.watchStalls(stallSeconds: Self.stallSeconds) }
            group.addTask {
                while !Task.isCancelled {
                    await faults.waitForNewRule(projectId: nil)
                    if let rule = faults.fire(
                        projectId: name.project, target: FaultTarget(service: "pubsub", method: "streamingPull", path: "subscriptions/\(name.id)")),
                        let e = rule.error
                    {
                        return GRPCStatus(code: e.code.grpcNumber, message: e.message)
                    }
                }
                return GRPCStatus(code: ErrorCode.cancelled.grpcNumber, message: "The call was cancelled.")
            }
            let status = await group.next() ?? .ok
            group.cancelAll()
            return status
        }
    }

    /// A ReceivedMessage (`deliveryAttempt` only with a dead-letter policy).
    static func receivedJSON(_ d: PubSubDelivery, _ withAttempts: Bool) -> JSON {
        var o: UTF8Dictionary<JSON> = ["ackId": .string(d.ackId), "message": d.message.json]
        if withAttempts { o["deliveryAttempt"] = .int(Int64(d.attempt)) }
        return .object(o)
    }
}
