import EmulatorCore
import EmulatorHTTP
import EmulatorTestSupport
import Testing

@testable import Emulator

/// The control plane's Pub/Sub views through the pipeline (no sockets): backlogs and a topic's
/// recent messages after a publish over the REST API.
@Suite struct PubSubAdminRoutesTests {
    let app: EmulatorApp
    init() throws { app = try AppPipelineTests.app() }

    func call(_ method: String, _ target: String, _ body: JSON? = nil) async throws -> (Int, JSON) {
        try await app.call(method, target, body, headers: [:])
    }

    @Test func listsBacklogsAndRecentMessages() async throws {
        #expect(try await call("PUT", "/v1/projects/demo-project/topics/orders", [:]).0 == 200)
        #expect(
            try await call("PUT", "/v1/projects/demo-project/subscriptions/orders-sub", ["topic": "projects/demo-project/topics/orders"]).0 == 200)
        let data = JSON.string(Base64.encode(Array("hello".utf8)))
        let (published, _) = try await call(
            "POST", "/v1/projects/demo-project/topics/orders:publish",
            ["messages": [["data": data, "attributes": ["k": "v"], "orderingKey": "o"]]])
        #expect(published == 200)
        let (status, overview) = try await call("GET", "/emulator/v1/projects/demo-project/pubsub")
        #expect(status == 200)
        let topic = try #require(overview["topics"]?.arrayValue?.first)
        #expect(
            topic["id"] == "orders" && topic["subscriptions"] == ["projects/demo-project/subscriptions/orders-sub"] && topic["recentMessages"] == 1)
        let sub = try #require(overview["subscriptions"]?.arrayValue?.first)
        #expect(sub["id"] == "orders-sub" && sub["topic"] == "projects/demo-project/topics/orders" && sub["detached"] == false)
        #expect(sub["backlog"]?["messages"] == 1 && sub["backlog"]?["oldestUnackedPublishTime"]?.stringValue != nil)
        #expect(sub["subscription"]?["ackDeadlineSeconds"] != nil)
        let (_, recent) = try await call("GET", "/emulator/v1/projects/demo-project/pubsub/topics/orders/messages")
        let m = try #require(recent["messages"]?.arrayValue?.first)
        #expect(m["data"] == data && m["attributes"]?["k"] == "v" && m["orderingKey"] == "o" && recent["limit"] == 100)
    }

    @Test func unknownTopicsAndProjectsAre404() async throws {
        #expect(try await call("GET", "/emulator/v1/projects/demo-project/pubsub/topics/missing/messages").0 == 404)
        #expect(try await call("GET", "/emulator/v1/projects/nobody-here/pubsub").0 == 404)
        #expect(try await call("GET", "/emulator/v1/projects/demo-project/pubsub/topics/bad%20id/messages").0 == 400)
    }
}
