import EmulatorCore
import EmulatorHTTP
import EmulatorPubSub

/// Push subscriptions: every 50 ms of wall time (500 ms while there are none), each subscription with a `pushConfig.pushEndpoint`
/// that is not already being drained gets a task that leases its messages ten at a time (ordering
/// keys one at a time, as for pull) and POSTs each to the endpoint in production's wrapped JSON
/// form. A 102, 200, 201, 202 or 204 answer acknowledges the message; anything else (or no answer
/// within the ack deadline) leaves the lease to expire, so the message is pushed again after the
/// subscription's ack deadline on the project clock, and counts as a delivery attempt for
/// dead-lettering. Only `http://` endpoints are pushed (Google's emulator does the same); an
/// `https://` one is logged once and its messages stay for pull.
///
/// Each POST in flight holds a thread (blocking socket I/O, `HTTPClient`), so at most
/// `maxDrains` subscriptions are drained at once; 500 subscriptions pushing to endpoints that
/// never answer held 490 threads. So that those cannot keep the others waiting, a drain gives
/// its place back after `turnNanoseconds` of work (read from the injected monotonic clock) or at the first POST that gets no answer (the
/// rest of its batch is pushed again after the ack deadline, as a failed push is), and each scan
/// starts one subscription further along the list.
///
/// State: the set of subscriptions being drained, of endpoints already warned about and the scan
/// position, behind `EmulatorCore.Mutex`. The loop is one background task of the runtime,
/// cancelled at stop with its drains (a discarding task group).
final class PubSubPushDelivery: Sendable {
    /// Wall time between scans for push subscriptions with something to deliver.
    static let scanNanoseconds: UInt64 = 50_000_000
    /// Wall time between scans while no subscription has a push endpoint.
    static let idleScanNanoseconds: UInt64 = 500_000_000
    /// Messages leased per round of a drain.
    static let batch = 10
    /// Subscriptions drained at once (each with one POST, so one thread, in flight).
    static let maxDrains = 32
    /// Work one drain does before giving its place back (it is claimed again at the next scan).
    static let turnNanoseconds: UInt64 = 1_000_000_000

    /// POSTs one push and answers the status, nil without an answer in `timeout` seconds.
    typealias Sender = @Sendable (_ request: HTTPRequest, _ endpoint: PushEndpoint, _ timeout: Double) async -> Int?

    let pubsub: PubSubService
    let logger: any LogSink
    let send: Sender
    let maxDrains: Int
    /// Monotonic readings in nanoseconds for a drain's turn (injected: tests step it).
    let monotonic: @Sendable () -> UInt64
    private let draining = Mutex<Set<String>>([])
    private let warned = Mutex<Set<String>>([])
    private let nextStart = Mutex(0)

    init(
        pubsub: PubSubService, logger: any LogSink, maxDrains: Int = PubSubPushDelivery.maxDrains, send: Sender? = nil,
        monotonic: @escaping @Sendable () -> UInt64 = { MonotonicClock.nanoseconds() }
    ) {
        self.pubsub = pubsub
        self.logger = logger
        self.maxDrains = maxDrains
        self.monotonic = monotonic
        self.send =
            send ?? { request, endpoint, timeout in
                try? await HTTPClient.send(request, host: endpoint.host, port: endpoint.port, timeout: timeout).status
            }
    }

    /// Starts the loop as one of the runtime's background tasks.
    static func start(_ services: EmulatorServices) {
        let delivery = PubSubPushDelivery(pubsub: services.pubsub, logger: services.logger)
        let task = Task.detached { await delivery.run() }
        services.backgroundTasks.withLock { $0.append(task) }
    }

    /// Scans until cancelled.
    func run() async {
        await withDiscardingTaskGroup { group in
            while !Task.isCancelled {
                let targets = pubsub.pushTargets()
                let start = nextStart.withLock { n in
                    defer { n = n &+ 1 }
                    return targets.isEmpty ? 0 : n % targets.count
                }
                for target in targets[start...] + targets[..<start] {
                    guard let claimed = claim(target.name.full) else { break }
                    guard claimed else { continue }
                    group.addTask {
                        await self.drain(target)
                        self.draining.withLock { _ = $0.remove(target.name.full) }
                    }
                }
                // Without push subscriptions, a tenth of the rate: an idle emulator stays quiet.
                try? await Task.sleep(nanoseconds: targets.isEmpty ? Self.idleScanNanoseconds : Self.scanNanoseconds)
            }
        }
    }

    /// Claims a subscription for a drain: false when it is being drained, nil when no place is free.
    private func claim(_ name: String) -> Bool? {
        draining.withLock { d in
            if d.contains(name) { return false }
            guard d.count < maxDrains else { return nil }
            d.insert(name)
            return true
        }
    }

    /// Pushes what the subscription has to deliver now; returns when nothing is left to lease,
    /// after its turn, or at the first POST without an answer.
    func drain(_ target: PubSubService.PushTarget) async {
        guard let endpoint = PushEndpoint(target.endpoint) else {
            if warned.withLock({ $0.insert(target.endpoint).inserted }) {
                logger.log(
                    .warning, "pubsub",
                    "push endpoint '\(target.endpoint)' of \(target.name.full) is not pushed to: only http://host[:port]/path endpoints are; pull its messages instead"
                )
            }
            return
        }
        let started = monotonic()
        while !Task.isCancelled && MonotonicClock.elapsed(since: started, monotonic()) < Self.turnNanoseconds {
            guard let (leased, withAttempts) = try? pubsub.lease(target.name, max: Self.batch, maxBytes: nil, deadlineSeconds: nil),
                !leased.isEmpty
            else { return }
            for delivery in leased {
                let body = PubSubService.pushBody(delivery, subscription: target.name.full, withAttempts: withAttempts).serializedBytes()
                var headers = HTTPHeaders()
                headers.add("Content-Type", "application/json")
                let request = HTTPRequest(method: "POST", target: endpoint.target, headers: headers, body: body)
                let status = await send(request, endpoint, Double(min(max(target.ackDeadlineSeconds, 1), 60)))
                if let status, [102, 200, 201, 202, 204].contains(status), let id = PubSubService.parseAckId(delivery.ackId) {
                    try? pubsub.acknowledge(target.name, [id])
                } else {
                    logger.log(
                        .debug, "pubsub",
                        "push of \(delivery.message.id) to \(target.endpoint) failed (\(status.map(String.init) ?? "no answer")); it is pushed again after the ack deadline"
                    )
                    if status == nil { return }
                }
            }
        }
    }
}

/// An `http://host[:port][/path][?query]` push endpoint, split for `HTTPClient`.
struct PushEndpoint: Equatable {
    let host: String
    let port: Int
    let target: String

    /// Nil for anything but a plain-HTTP URL with a host and a valid port.
    init?(_ url: String) {
        guard url.hasPrefix("http://") else { return nil }
        let rest = url.dropFirst("http://".count)
        let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        let authority = rest[..<slash]
        var path = String(rest[slash...])
        if path.isEmpty { path = "/" } else if path.hasPrefix("?") { path = "/" + path }
        var host = Substring(authority)
        var port = 80
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") {
                guard let p = Int(after.dropFirst()) else { return nil }
                port = p
            } else if !after.isEmpty {
                return nil
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            guard let p = Int(authority[authority.index(after: colon)...]) else { return nil }
            port = p
        }
        guard !host.isEmpty, !host.contains("@"), (1...65535).contains(port) else { return nil }
        self.host = String(host)
        self.port = port
        self.target = path
    }
}
