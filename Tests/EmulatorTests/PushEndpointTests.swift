import EmulatorCore
import Testing

@testable import Emulator
@testable import EmulatorPubSub

/// Push endpoints as `PubSubPushDelivery` splits them, and the body it POSTs.
struct PushEndpointTests {
    func parts(_ url: String) -> [String]? { PushEndpoint(url).map { [$0.host, String($0.port), $0.target] } }

    @Test func plainHTTPEndpointsAreSplit() {
        #expect(parts("http://127.0.0.1:8090/push?token=a") == ["127.0.0.1", "8090", "/push?token=a"])
        #expect(parts("http://localhost") == ["localhost", "80", "/"])
        #expect(parts("http://localhost?x=1") == ["localhost", "80", "/?x=1"])
        #expect(parts("http://[::1]:9000/p") == ["::1", "9000", "/p"])
    }

    @Test func othersAreRefused() {
        for url in [
            "https://example.com/push", "http://", "http://:80/x", "http://h:0/", "http://h:65536/", "http://h:x/", "http://u@h/",
            "http://[::1]x/", "ftp://h/", "http://h:99999999999999999999999/",
        ] {
            #expect(PushEndpoint(url) == nil, "\(url)")
        }
    }

    @Test func theBodyIsProductionsWrappedForm() throws {
        let message = PublishedMessage(id: "42", data: "aGk=", attributes: ["k": "v"], publishTime: Timestamp(seconds: 1_800_000_000))
        let delivery = PubSubDelivery(ackId: "1-1", message: message, attempt: 3)
        let body = PubSubService.pushBody(delivery, subscription: "projects/p/subscriptions/s", withAttempts: true)
        #expect(body["subscription"] == "projects/p/subscriptions/s")
        #expect(body["deliveryAttempt"] == 3)
        #expect(body["message"]?["messageId"] == "42" && body["message"]?["message_id"] == "42")
        #expect(body["message"]?["publishTime"] == body["message"]?["publish_time"])
        #expect(body["message"]?["attributes"]?["k"] == "v" && body["message"]?["data"] == "aGk=")
        #expect(PubSubService.pushBody(delivery, subscription: "s", withAttempts: false)["deliveryAttempt"] == nil)
    }

    /// Endpoints that hold every POST: at most `maxDrains` are in flight (each is a thread), and
    /// once they answer every subscription gets its message. Before the cap, every push
    /// subscription had a POST (a thread) in flight at once.
    @Test func pushesInFlightAreCappedAndEverySubscriptionGetsItsTurn() async throws {
        let pubsub = PubSubService(environments: LocalEnvironmentProvider())
        let topic = "projects/p/topics/fan"
        _ = try pubsub.createTopic(["name": .string(topic)])
        let count = 24
        for i in 0..<count {
            _ = try pubsub.createSubscription([
                "name": .string("projects/p/subscriptions/push-\(i)"), "topic": .string(topic),
                "pushConfig": ["pushEndpoint": .string("http://127.0.0.1:9/s\(i)")],
            ])
        }
        _ = try pubsub.publish(["topic": .string(topic), "messages": [["data": "aGk="]]])
        struct Flights { var now = 0, most = 0, open = false, delivered: Set<String> = [] }
        let flights = Mutex(Flights())
        let delivery = PubSubPushDelivery(pubsub: pubsub, logger: NullLogSink(), maxDrains: 4) { request, _, _ in
            flights.withLock {
                $0.now += 1
                $0.most = max($0.most, $0.now)
            }
            while !flights.withLock({ $0.open }) { try? await Task.sleep(nanoseconds: 2_000_000) }
            flights.withLock {
                $0.now -= 1
                $0.delivered.insert(request.target)
            }
            return 200
        }
        let loop = Task { await delivery.run() }
        defer { loop.cancel() }
        let held = ContinuousClock.now + .seconds(5)
        while flights.withLock({ $0.now }) < 4 && ContinuousClock.now < held { try await Task.sleep(nanoseconds: 5_000_000) }
        try await Task.sleep(nanoseconds: 300_000_000)  // a few more scans: none may start a fifth
        #expect(flights.withLock { $0.most } == 4)
        flights.withLock { $0.open = true }
        let done = ContinuousClock.now + .seconds(10)
        while flights.withLock({ $0.delivered.count }) < count && ContinuousClock.now < done { try await Task.sleep(nanoseconds: 5_000_000) }
        #expect(flights.withLock { $0.delivered.count } == count)
        #expect(flights.withLock { $0.most } == 4)
    }

    /// A drain gives its place back after its turn, measured on the injected monotonic clock
    /// (before, it read the real one, so no test could pin it): with every POST taking 50 ms of
    /// that clock, the first batch of ten ends at 0.5 s and the second at 1 s, the end of the
    /// turn, so 20 of 30 messages are pushed and 10 wait for the next scan.
    @Test func aDrainEndsAfterItsTurnOnTheInjectedClock() async throws {
        let pubsub = PubSubService(environments: LocalEnvironmentProvider())
        let topic = "projects/p/topics/turns"
        _ = try pubsub.createTopic(["name": .string(topic)])
        _ = try pubsub.createSubscription([
            "name": "projects/p/subscriptions/turns-sub", "topic": .string(topic), "pushConfig": ["pushEndpoint": "http://127.0.0.1:9/p"],
        ])
        _ = try pubsub.publish(["topic": .string(topic), "messages": .array((0..<30).map { _ in ["data": "aGk="] })])
        let clock = Mutex<UInt64>(5_000_000_000)
        let pushed = Mutex(0)
        let delivery = PubSubPushDelivery(
            pubsub: pubsub, logger: NullLogSink(),
            send: { _, _, _ in
                clock.withLock { $0 += 50_000_000 }
                pushed.withLock { $0 += 1 }
                return 200
            }, monotonic: { clock.withLock { $0 } })
        let target = try #require(pubsub.pushTargets().first)
        await delivery.drain(target)
        #expect(pushed.withLock { $0 } == 20)
        #expect(pubsub.overview(project: "p").subscriptions.first?.backlogMessages == 10)
    }
}
