import EmulatorCore
import EmulatorHTTP
import EmulatorProtobuf
import EmulatorPubSub

/// google.pubsub.v1 Publisher and Subscriber over gRPC, as an adapter over `PubSubService`: each
/// request message is decoded with its schema (`PubSubSchemas`) into proto3 JSON, the same service
/// function the REST route calls runs, and the answer is encoded back. Faults match the same
/// names as the REST routes (`RequestClassifier`). Immutable; shared by every call.
struct PubSubGRPCService: Sendable {
    /// The services (Pub/Sub, faults, logger).
    let services: EmulatorServices

    /// The fault method of each RPC (the REST route's verb, or its CRUD name) and the resource
    /// kind its path names.
    static let faultMethods: [String: String] = [
        "CreateTopic": "create", "UpdateTopic": "update", "GetTopic": "get", "ListTopics": "list", "ListTopicSubscriptions": "list",
        "ListTopicSnapshots": "list", "DeleteTopic": "delete", "DetachSubscription": "detach", "Publish": "publish",
        "CreateSubscription": "create", "GetSubscription": "get", "UpdateSubscription": "update", "ListSubscriptions": "list",
        "DeleteSubscription": "delete", "ModifyAckDeadline": "modifyAckDeadline", "Acknowledge": "acknowledge", "Pull": "pull",
        "StreamingPull": "streamingPull", "ModifyPushConfig": "modifyPushConfig", "GetSnapshot": "get", "ListSnapshots": "list",
        "CreateSnapshot": "create", "UpdateSnapshot": "update", "DeleteSnapshot": "delete", "Seek": "seek",
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
        guard let method = PubSubSchemas.method(path: call.method) else {
            // Google's emulator words it this way (SchemaService, IAM mixins, anything unknown).
            let name = call.method.hasPrefix("/") ? String(call.method.dropFirst()) : call.method
            return GRPCStatus(code: ErrorCode.unimplemented.grpcNumber, message: "Method \(name) is unimplemented")
        }
        do {
            if method.name == "StreamingPull" { return await streamingPull(call) }
            guard let bytes = try await call.receive() else {
                throw EmulatorError.invalidArgument("\(method.name) needs a request message.")
            }
            let request = try ProtoJSON.decode(bytes, as: method.request)
            try await injectFault(method.name, request)
            let ps = services.pubsub
            let response: JSON
            switch method.name {
            case "CreateTopic": response = try ps.createTopic(request)
            case "UpdateTopic": response = try ps.updateTopic(request)
            case "Publish": response = try ps.publish(request)
            case "GetTopic": response = try ps.getTopic(request)
            case "ListTopics": response = try ps.listTopics(request)
            case "ListTopicSubscriptions": response = try ps.listTopicSubscriptions(request)
            case "ListTopicSnapshots": response = try ps.listTopicSnapshots(request)
            case "DeleteTopic": response = try ps.deleteTopic(request)
            case "DetachSubscription": response = try ps.detachSubscription(request)
            case "CreateSubscription": response = try ps.createSubscription(request)
            case "GetSubscription": response = try ps.getSubscription(request)
            case "UpdateSubscription": response = try ps.updateSubscription(request)
            case "ListSubscriptions": response = try ps.listSubscriptions(request)
            case "DeleteSubscription": response = try ps.deleteSubscription(request)
            case "ModifyAckDeadline": response = try ps.modifyAckDeadline(request)
            case "Acknowledge": response = try ps.acknowledge(request)
            case "Pull": response = try await ps.pull(request)
            case "ModifyPushConfig": response = try ps.modifyPushConfig(request)
            case "GetSnapshot": response = try ps.getSnapshot(request)
            case "ListSnapshots": response = try ps.listSnapshots(request)
            case "CreateSnapshot": response = try ps.createSnapshot(request)
            case "UpdateSnapshot": response = try ps.updateSnapshot(request)
            case "DeleteSnapshot": response = try ps.deleteSnapshot(request)
            case "Seek": response = try ps.seek(request)
            default: throw EmulatorError.unimplemented("Method \(call.method.dropFirst()) is unimplemented")
            }
            try await call.send(try ProtoJSON.encode(response, as: method.response))
            return .ok
        } catch {
            return ErrorResponder.grpcStatus(for: error, logger: services.logger)
        }
    }

    /// Applies the first matching injected fault, exactly as for the REST route of the same RPC.
    func injectFault(_ rpc: String, _ request: JSON) async throws {
        guard services.faults.hasRules, let method = Self.faultMethods[rpc], let (project, path) = Self.faultScope(rpc, request) else { return }
        guard let rule = services.faults.fire(projectId: project, target: FaultTarget(service: "pubsub", method: method, path: path)) else { return }
        if rule.delayMs > 0 { try? await Task.sleep(nanoseconds: UInt64(rule.delayMs) * 1_000_000) }
        if let e = rule.error { throw e }
    }

    /// The project and project-relative path (`topics/orders`, `subscriptions/s`, `topics` for a
    /// list) a request is about, as the REST route's URL has them.
    static func faultScope(_ rpc: String, _ request: JSON) -> (String, String)? {
        let named = request["subscription"]?.objectValue == nil ? request["subscription"]?.stringValue : nil
        let created = rpc.hasPrefix("Create") ? request["name"]?.stringValue : nil
        let candidates: [String?] = [
            created, request["topic"]?.stringValue, named, request["snapshot"]?.stringValue, request["name"]?.stringValue,
            request["topic"]?["name"]?.stringValue, request["subscription"]?["name"]?.stringValue, request["snapshot"]?["name"]?.stringValue,
        ]
        if rpc == "ListTopicSubscriptions" || rpc == "ListTopicSnapshots", let t = request["topic"]?.stringValue {
            let parts = t.split(separator: "/")
            guard parts.count == 4 else { return nil }
            return (String(parts[1]), "\(parts[2])/\(parts[3])/\(rpc == "ListTopicSubscriptions" ? "subscriptions" : "snapshots")")
        }
        if let project = request["project"]?.stringValue {
            let parts = project.split(separator: "/")
            guard parts.count == 2 else { return nil }
            let kind = rpc == "ListTopics" ? "topics" : rpc == "ListSubscriptions" ? "subscriptions" : "snapshots"
            return (String(parts[1]), kind)
        }
        for c in candidates {
            guard let c else { continue }
            let parts = c.split(separator: "/")
            if parts.count == 4, parts[0] == "projects" { return (String(parts[1]), "\(parts[2])/\(parts[3])") }
        }
        return nil
    }
}
