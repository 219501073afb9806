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
}
