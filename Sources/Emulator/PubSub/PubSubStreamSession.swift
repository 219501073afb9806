import EmulatorCore
import EmulatorHTTP
import EmulatorPubSub

/// One StreamingPull stream's state: its subscription, ack deadline, flow-control limits and the
/// leases it handed out (pruned against the service as they are acked, nacked or expire, however
/// the client acks: on the stream or with unary calls). Behind `EmulatorCore.Mutex`.
final class PubSubStreamSession: Sendable {
    private struct State {
        var ackDeadlineSeconds = 10
        var maxMessages = 1000
        var maxBytes = 100 << 20
        var outstanding: [(seq: Int64, lease: Int64, bytes: Int)] = []
        var config: PubSubSubscriptionConfig?
        var sendingSince: Timestamp?
    }

    /// The subscription.
    let name: PubSubName
    private let state = Mutex(State())

    /// Reads the handshake: the subscription and the stream's ack deadline.
    init(_ first: JSON) throws {
        let sub = first["subscription"]?.stringValue ?? ""
        guard !sub.isEmpty else { throw EmulatorError.invalidArgument("The first StreamingPull request must name a subscription.") }
        name = try PubSubName(sub, kind: .subscriptions)
        let deadline = PubSubFields.int(first["streamAckDeadlineSeconds"])
        guard (10...600).contains(deadline) else {
            throw EmulatorError.invalidArgument("Invalid stream_ack_deadline_seconds: \(deadline) (it must be between 10 and 600 seconds).")
        }
        let maxMessages = PubSubFields.int(first["maxOutstandingMessages"]), maxBytes = PubSubFields.int(first["maxOutstandingBytes"])
        state.withLock {
            $0.ackDeadlineSeconds = Int(deadline)
            if maxMessages > 0 { $0.maxMessages = Int(min(maxMessages, 1_000_000)) }
            if maxBytes > 0 { $0.maxBytes = Int(min(maxBytes, 1 << 40)) }
        }
    }

    /// The subscription's settings, read at the handshake.
    var config: PubSubSubscriptionConfig? {
        get { state.withLock { $0.config } }
        set { state.withLock { $0.config = newValue } }
    }

    /// The deadline of the stream's leases.
    var ackDeadlineSeconds: Int { state.withLock { $0.ackDeadlineSeconds } }

    /// The `subscription_properties` each response carries.
    var properties: JSON {
        let c = config
        return ["exactlyOnceDeliveryEnabled": .bool(c?.exactlyOnce ?? false), "messageOrderingEnabled": .bool(c?.ordered ?? false)]
    }

    /// Applies a request's acks, deadline changes and new stream deadline. Returns the
    /// confirmations to send (exactly-once delivery only), else nil.
    @discardableResult
    func apply(_ r: JSON, _ ps: PubSubService) throws -> JSON? {
        let acks = (r["ackIds"]?.arrayValue ?? []).compactMap(\.stringValue)
        let modIds = (r["modifyDeadlineAckIds"]?.arrayValue ?? []).compactMap(\.stringValue)
        let modSeconds = (r["modifyDeadlineSeconds"]?.arrayValue ?? []).map { PubSubFields.int($0) }
        guard modIds.count == modSeconds.count else {
            throw EmulatorError.invalidArgument("modify_deadline_seconds and modify_deadline_ack_ids must be the same length.")
        }
        let newDeadline = PubSubFields.int(r["streamAckDeadlineSeconds"])
        if newDeadline != 0 {
            guard (10...600).contains(newDeadline) else {
                throw EmulatorError.invalidArgument("Invalid stream_ack_deadline_seconds: \(newDeadline) (it must be between 10 and 600 seconds).")
            }
            state.withLock { $0.ackDeadlineSeconds = Int(newDeadline) }
        }
        let exactlyOnce = config?.exactlyOnce ?? false
        var confirmation: UTF8Dictionary<JSON> = [:]
        if !acks.isEmpty {
            let parsed = acks.map { PubSubFieldsAckId.parse($0) }
            let valid = parsed.compactMap { $0 }
            var failed = false
            do { if !valid.isEmpty { try ps.acknowledge(name, valid) } } catch let e as EmulatorError where e.code == .invalidArgument {
                failed = true
            }
            if exactlyOnce {
                var ok: [JSON] = [], bad: [JSON] = []
                for (text, id) in zip(acks, parsed) {
                    let acknowledged = id.map { !failed || ps.stillLeased(name, [$0]).allSatisfy { $0 } } ?? false
                    if acknowledged { ok.append(.string(text)) } else { bad.append(.string(text)) }
                }
                confirmation["acknowledgeConfirmation"] = ["ackIds": .array(ok), "invalidAckIds": .array(bad)]
            }
        }
        // Deadline changes grouped by value (nacks are 0).
        var bySeconds: [Int64: [(seq: Int64, lease: Int64)]] = [:]
        var badMods: [JSON] = []
        for (text, seconds) in zip(modIds, modSeconds) {
            guard let id = PubSubFieldsAckId.parse(text) else {
                badMods.append(.string(text))
                continue
            }
            bySeconds[seconds, default: []].append(id)
        }
        for (seconds, ids) in bySeconds.sorted(by: { $0.key < $1.key }) { try ps.modifyAckDeadline(name, ids, seconds: seconds) }
        if exactlyOnce && !modIds.isEmpty {
            confirmation["modifyAckDeadlineConfirmation"] = [
                "ackIds": .array(modIds.map { .string($0) }.filter { !badMods.contains($0) }),
                "invalidAckIds": .array(badMods),
            ]
        }
        return confirmation.isEmpty ? nil : .object(confirmation)
    }

    /// Messages and bytes the stream may still lease under its flow control (after dropping
    /// leases that ended).
    func room(_ ps: PubSubService) -> (messages: Int, bytes: Int) {
        let out = state.withLock { $0.outstanding }
        let live = out.isEmpty ? [] : ps.stillLeased(name, out.map { ($0.seq, $0.lease) })
        return state.withLock { s in
            // Leases added since the snapshot above are kept (they are after it in the array).
            var kept: [(seq: Int64, lease: Int64, bytes: Int)] = []
            for (i, o) in s.outstanding.enumerated() where i >= live.count || live[i] { kept.append(o) }
            s.outstanding = kept
            let bytes = kept.reduce(0) { $0 + $1.bytes }
            return (max(0, s.maxMessages - kept.count), max(0, s.maxBytes - bytes))
        }
    }

    /// Records leases handed to the client.
    func track(_ deliveries: [PubSubDelivery]) {
        let ids = deliveries.compactMap { d in PubSubFieldsAckId.parse(d.ackId).map { ($0.seq, $0.lease, d.message.size) } }
        state.withLock { $0.outstanding.append(contentsOf: ids) }
    }

    /// Sends one message, timing how long the client takes to accept it.
    func send(_ call: GRPCServerCall, _ bytes: [UInt8]) async throws {
        state.withLock { $0.sendingSince = WallClock().now() }
        defer { state.withLock { $0.sendingSince = nil } }
        try await call.send(bytes)
    }

    /// Returns UNAVAILABLE once a send has been stuck for `stallSeconds`.
    func watchStalls(stallSeconds: Double) async -> GRPCStatus {
        while !Task.isCancelled {
            try? await Task.sleep(nanoseconds: 1_000_000_000)
            let since = state.withLock { $0.sendingSince }
            if let since, Double(WallClock().now().microseconds - since.microseconds) / 1e6 > stallSeconds {
                return GRPCStatus(
                    code: ErrorCode.unavailable.grpcNumber,
                    message: "The client took no messages for \(Int(stallSeconds)) s; the stream was closed (its leases expire and are redelivered).")
            }
        }
        return GRPCStatus(code: ErrorCode.cancelled.grpcNumber, message: "The call was cancelled.")
    }
}

/// Integer fields of decoded messages (int32 numbers, int64 strings).
enum PubSubFields {
    static func int(_ v: JSON?) -> Int64 { v?.intValue ?? v?.stringValue.flatMap { Int64($0) } ?? 0 }
}

/// Ack id parsing for the stream (the service owns the format).
enum PubSubFieldsAckId {
    static func parse(_ text: String) -> (seq: Int64, lease: Int64)? { PubSubService.parseAckId(text) }
}
