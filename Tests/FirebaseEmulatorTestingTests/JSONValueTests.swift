import FirebaseEmulatorTesting
import Foundation
import Testing

/// The library's JSON: literals, parsing, serialization and Firestore's typed values.
@Suite struct JSONValueTests {
    @Test func parsesAndSerializes() throws {
        let v = try JSONValue.parse(
            #"{"b": true, "i": 9007199254740993, "d": 1.5, "e": 1e2, "s": "\u00e9\ud83d\ude00\n", "n": null, "a": [1, "x", {}], "f": false}"#)
        #expect(v["b"] == true && v["f"] == false && v["n"] == .null)
        #expect(v["i"] == .int(9_007_199_254_740_993))
        #expect(v["d"] == .double(1.5) && v["e"] == .double(100))
        #expect(v["s"] == "é😀\n")
        #expect(v["a"]?[1] == "x" && v["a"]?[5] == nil)
        #expect(try JSONValue.parse(v.serialized) == v)
        #expect(JSONValue(["k": "\u{1}"]).serialized == #"{"k":"\u0001"}"#)
    }

    @Test(arguments: ["", "{", "[1,]", "{\"a\" 1}", "tru", "\"open", "1 2", String(repeating: "[", count: 600)])
    func refusesBadText(text: String) {
        #expect(throws: FirebaseEmulatorError.self) { try JSONValue.parse(text) }
    }

    @Test func firestoreValuesRoundTrip() {
        let fields: [String: JSONValue] = ["s": "x", "i": 3, "d": 2.5, "b": false, "n": nil, "a": [1, "two"], "m": ["k": ["deep": true]]]
        let encoded = FirestoreValue.encode(fields)
        #expect(encoded["i"] == ["integerValue": "3"])
        #expect(encoded["m"]?["mapValue"]?["fields"]?["k"]?["mapValue"]?["fields"]?["deep"] == ["booleanValue": true])
        #expect(FirestoreValue.decode(fields: encoded) == fields)
        #expect(FirestoreValue.decode(["timestampValue": "2030-01-01T00:00:00Z"]) == "2030-01-01T00:00:00Z")
    }

    @Test func grpcFramingRoundTrips() throws {
        let messages = [Data([1, 2, 3]), Data(), Data(repeating: 7, count: 300)]
        #expect(try GRPCFraming.unframe(GRPCFraming.frame(messages)) == messages)
        #expect(throws: FirebaseEmulatorError.self) { try GRPCFraming.unframe(Data([0, 0, 0, 0, 9, 1])) }
        #expect(throws: FirebaseEmulatorError.self) { try GRPCFraming.unframe(Data([1, 0, 0, 0, 0])) }
    }
}
