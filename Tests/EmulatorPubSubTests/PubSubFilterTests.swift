import EmulatorCore
import EmulatorPubSub
import Testing

/// The attribute filter language: what parses, what matches, and the errors for what does not.
struct PubSubFilterTests {
    @Test func everyFormMatchesAsProductionDescribes() throws {
        let a = ["k": "v", "region": "eu-west1", "n": ""]
        let cases: [(String, Bool)] = [
            ("attributes.k = \"v\"", true), ("attributes.k = \"w\"", false), ("attributes.k != \"w\"", true),
            ("attributes:k", true), ("attributes:missing", false), ("NOT attributes:missing", true), ("-attributes:k", false),
            ("hasPrefix(attributes.region, \"eu-\")", true), ("hasPrefix(attributes.region, \"us-\")", false),
            ("attributes:k AND attributes.region = \"eu-west1\"", true), ("attributes:nope OR attributes:n", true),
            ("(attributes:nope OR attributes:k) AND NOT attributes.k = \"x\"", true), ("attributes.\"k\" = \"v\"", true),
        ]
        for (text, expected) in cases {
            let f = try #require(try PubSubFilter.parse(text), "\(text)")
            #expect(f.matches(a) == expected, "\(text)")
        }
        #expect(try PubSubFilter.parse("  ") == nil)
    }

    @Test func malformedFiltersAreRefusedWithThePosition() {
        let bad = [
            "attributes.x = ", "attributes.k = \"v\" AND attributes:a OR attributes:b", "foo", "attributes.k = \"v", "(attributes:k",
            String(repeating: "a", count: 300), String(repeating: "(", count: 100) + "attributes:k" + String(repeating: ")", count: 100),
        ]
        for text in bad {
            #expect(throws: EmulatorError.self, "\(text.prefix(40))") { try PubSubFilter.parse(text) }
        }
        do {
            _ = try PubSubFilter.parse("attributes:a AND attributes:b OR attributes:c")
        } catch {
            #expect(error.message.contains("AND and OR cannot be mixed"))
        }
    }
}
