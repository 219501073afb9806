import EmulatorCore
import Testing

@testable import EmulatorProtobuf

/// Pins every declared google.pubsub.v1 message, field and enum, and the RPC table, to the
/// descriptors shipped in google-cloud-pubsub (`Fixtures/pubsub_descriptors.json`, dumped by
/// `Fixtures/dump_pubsub_descriptors.py`; Tests/python/pubsub/test_descriptors_current.py keeps it
/// current).
struct PubSubSchemaTests {
    @Test func everyMessageAndFieldMatchesTheDescriptors() throws {
        // (The Firestore registry's documented addition, Write.verify, is not in this registry.)
        let problems = try ProtobufSchemaTests.compare(PubSubSchemas.registry, with: Fixtures.load("pubsub_descriptors"))
            .filter { !$0.hasPrefix("google.firestore.v1.") }
        for p in problems { Issue.record(Comment(rawValue: p)) }
        #expect(problems.isEmpty)
    }

    @Test func everyMethodMatchesTheServices() throws {
        let methods = try #require(try Fixtures.load("pubsub_descriptors")["methods"]?.arrayValue)
        var seen: Set<String> = []
        for m in methods {
            let service = try #require(m["service"]?.stringValue), name = try #require(m["name"]?.stringValue)
            guard let ours = PubSubSchemas.method(path: "/\(service)/\(name)") else {
                Issue.record("RPC \(service)/\(name) is not in PubSubSchemas.methods")
                continue
            }
            seen.insert(ours.path)
            #expect(ours.request.fullName == m["request"]?.stringValue, "\(name) request")
            #expect(ours.response.fullName == m["response"]?.stringValue, "\(name) response")
            #expect(ours.clientStreaming == m["client_streaming"]?.boolValue, "\(name) client streaming")
            #expect(ours.serverStreaming == m["server_streaming"]?.boolValue, "\(name) server streaming")
        }
        #expect(Set(PubSubSchemas.methods.map(\.path)) == seen)
        #expect(seen.count == 25)
    }

    /// A message as google-cloud-pubsub's publisher sends it decodes to the REST form and back
    /// to the same bytes (bytes made with the Python classes: see the test's comment).
    @Test func aPublishRequestRoundTrips() throws {
        // PublishRequest(topic="projects/p/topics/t", messages=[PubsubMessage(data=b"hi",
        //   attributes={"k": "v"}, ordering_key="o")]).SerializeToString()
        let bytes = Fixtures.bytes(
            hex: "0a 13 70 72 6f 6a 65 63 74 73 2f 70 2f 74 6f 70 69 63 73 2f 74 12 0f 0a 02 68 69 12 06 0a 01 6b 12 01 76 2a 01 6f")
        let json = try ProtoJSON.decode(bytes, as: PubSubSchemas.publishRequest)
        #expect(json["topic"] == "projects/p/topics/t")
        let message = try #require(json["messages"]?.arrayValue?.first)
        #expect(message["data"] == "aGk=")
        #expect(message["attributes"]?["k"] == "v")
        #expect(message["orderingKey"] == "o")
        #expect(try ProtoJSON.encode(json, as: PubSubSchemas.publishRequest) == bytes)
    }
}
