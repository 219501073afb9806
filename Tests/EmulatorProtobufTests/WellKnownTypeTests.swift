import EmulatorCore
import Testing

@testable import EmulatorProtobuf

/// The google.protobuf types with special JSON forms.
struct WellKnownTypeTests {
    let timestamp = FirestoreSchemas.message(named: "google.protobuf.Timestamp")!
    let duration = FirestoreSchemas.message(named: "google.protobuf.Duration")!
    let structType = FirestoreSchemas.message(named: "google.protobuf.Struct")!
    let protobufValue = FirestoreSchemas.message(named: "google.protobuf.Value")!
    let any = FirestoreSchemas.message(named: "google.protobuf.Any")!

    func error(_ body: () throws -> Any) -> String? {
        do {
            _ = try body()
            return nil
        } catch { return (error as? ProtobufError)?.description ?? "\(error)" }
    }

    /// Timestamps print exactly as `Document.json` prints them (`Timestamp.rfc3339()`).
    @Test(
        arguments: [
            (0, 0), (1_700_000_000, 123_456_000), (1_700_000_000, 5_000), (-1, 500_000_000), (253_402_300_799, 999_999_999), (-62_135_596_800, 0),
        ] as [(Int64, Int32)])
    func timestampsMatchTheRESTFormat(_ seconds: Int64, _ nanos: Int32) throws {
        let bytes = try ProtoJSON.encode(.string(Timestamp(seconds: seconds, nanos: nanos).rfc3339()), as: timestamp)
        #expect(try ProtoJSON.decode(bytes, as: timestamp) == .string(Timestamp(seconds: seconds, nanos: nanos).rfc3339()))
    }

    /// The allocation-free formatter and parser agree with EmulatorCore's `Timestamp` on random
    /// times across the whole range and on awkward texts.
    @Test func fastTimestampTextMatchesEmulatorCore() async throws {
        let disagreements = await offThePool { () -> [String] in
            var rng = SystemRandomNumberGenerator()
            var disagreements: [String] = []
            for _ in 0..<10_000 {
                let seconds = Int64.random(in: WellKnownText.minTimestampSeconds...WellKnownText.maxTimestampSeconds, using: &rng)
                let nanos = [
                    0, 1000 * Int32.random(in: 0..<1_000_000, using: &rng), Int32.random(in: 0..<1_000_000_000, using: &rng),
                    1_000_000 * Int32.random(in: 0..<1000, using: &rng),
                ].randomElement(using: &rng)!
                let text = (try? WellKnownText.timestamp(seconds: seconds, nanos: nanos)) ?? "error"
                let parsed = try? WellKnownText.parseTimestamp(text)
                if text != Timestamp(seconds: seconds, nanos: nanos).rfc3339() || parsed?.0 != seconds || parsed?.1 != nanos {
                    disagreements.append(text)
                }
            }
            return disagreements
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(5))")
        for text in [
            "2024-02-31T00:00:00Z", "2016-12-31T23:59:60Z", "2024-01-01T00:00:00.1Z", "2024-01-01T00:00:00.123456789Z",
            "2024-01-01T00:00:00.Z", "2024-01-01T00:00:00.1234567890Z", "2024-01-01t00:00:00z", "2024-13-01T00:00:00Z",
            "0000-01-01T00:00:00Z", "2024-01-01T24:00:00Z", "2024-01-01T00:00:00+00:00", "2024-1-01T00:00:00Z", "2024-01-01T00:00:0aZ",
        ] {
            let core = Timestamp(rfc3339: text).map { ($0.seconds, $0.nanos) }
            let ours = try? WellKnownText.parseTimestamp(text)
            let coreInRange = core.flatMap { $0.0 >= WellKnownText.minTimestampSeconds ? $0 : nil }
            #expect(ours.map { "\($0)" } == coreInRange.map { "\($0)" }, "\(text)")
        }
    }

    @Test func timestampsAcceptOffsetsAndRejectGarbage() throws {
        #expect(try ProtoJSON.encode("2024-01-01T01:00:00+01:00", as: timestamp) == ProtoJSON.encode("2024-01-01T00:00:00Z", as: timestamp))
        #expect(error { try ProtoJSON.encode("yesterday", as: timestamp) } == "invalid RFC 3339 timestamp \"yesterday\" in google.protobuf.Timestamp")
        #expect(error { try ProtoJSON.encode(1, as: timestamp) }?.hasPrefix("expected an RFC 3339 timestamp string, got number") == true)
        // seconds 253402300800 (year 10000) and nanos 10^9 have no RFC 3339 form.
        #expect(
            error { try ProtoJSON.decode([0x08, 0x80, 0x83, 0xD1, 0xFF, 0xAF, 0x07], as: self.timestamp) }?.hasPrefix(
                "timestamp seconds 253402300800 outside years 1 to 9999") == true)
        #expect(
            error { try ProtoJSON.decode([0x10, 0x80, 0x94, 0xEB, 0xDC, 0x03], as: self.timestamp) }?.hasPrefix("timestamp nanos 1000000000 outside")
                == true)
        #expect(
            error { try ProtoJSON.decode([0x10, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F], as: self.timestamp) }?.hasPrefix("timestamp nanos -1 outside") == true)
    }

    @Test func durations() throws {
        for (text, seconds, nanos) in [
            ("1.500s", 1, 500_000_000), ("-0.500s", 0, -500_000_000), ("0s", 0, 0), ("-3.000001s", -3, -1000), ("315576000000s", 315_576_000_000, 0),
        ] as [(String, Int64, Int32)] {
            let bytes = try ProtoJSON.encode(.string(text), as: duration)
            #expect(try ProtoJSON.decode(bytes, as: duration) == .string(text), "\(text)")
            #expect(try WellKnownText.parseDuration(text) == (seconds, nanos))
        }
        #expect(try ProtoJSON.decode(try ProtoJSON.encode("1.1s", as: duration), as: duration) == "1.100s")
        for bad in ["1.5", "s", "-s", "1.s", "1.1234567890s", "1e3s", " 1s", "315576000001s"] {
            #expect(error { try ProtoJSON.encode(.string(bad), as: self.duration) } != nil, "\(bad)")
        }
        // seconds 1, nanos -1: signs differ.
        #expect(
            error { try ProtoJSON.decode([0x08, 0x01, 0x10] + Array(repeating: 0xFF, count: 9) + [0x01], as: self.duration) }?.contains(
                "of another sign") == true)
    }

    @Test func structValueAndListValueCarryArbitraryJSON() throws {
        let json: JSON = ["a": [1.5, "x", nil, true, ["b": [:]], []], "": "", "n": -2.0]
        let bytes = try ProtoJSON.encode(json, as: structType)
        #expect(sameJSON(try ProtoJSON.decode(bytes, as: structType), json))
        #expect(try ProtoJSON.encode(nil, as: protobufValue) == [0x08, 0x00])
        #expect(try ProtoJSON.decode([], as: protobufValue) == .null, "an unset Value reads as null")
        #expect(try ProtoJSON.encode(5, as: protobufValue) == [0x11, 0, 0, 0, 0, 0, 0, 0x14, 0x40])
        #expect(error { try ProtoJSON.encode(.double(.nan), as: self.protobufValue) }?.hasPrefix("number_value cannot be NaN") == true)
        #expect(error { try ProtoJSON.decode([0x11, 0, 0, 0, 0, 0, 0, 0xF8, 0x7F], as: self.protobufValue) }?.contains("has no JSON form") == true)
        #expect(error { try ProtoJSON.encode([1], as: self.structType) }?.hasPrefix("expected a JSON object, got array") == true)
        let debug = FirestoreSchemas.message(named: "google.firestore.v1.ExecutionStats")!
        #expect(try ProtoJSON.decode(try ProtoJSON.encode(["debugStats": [:]], as: debug), as: debug) == ["debugStats": [:]])
    }

    @Test func anyOfAKnownMessageAWellKnownTypeAndAnUnknownType() throws {
        let status: JSON = ["@type": "type.googleapis.com/google.rpc.Status", "code": 5, "message": "gone"]
        #expect(try ProtoJSON.decode(try ProtoJSON.encode(status, as: any), as: any) == status)
        let wkt: JSON = ["@type": "type.googleapis.com/google.protobuf.Duration", "value": "2s"]
        #expect(try ProtoJSON.decode(try ProtoJSON.encode(wkt, as: any), as: any) == wkt)
        let unknown: JSON = ["@type": "type.googleapis.com/google.rpc.ErrorInfo", "@value": "EgA="]
        #expect(try ProtoJSON.decode(try ProtoJSON.encode(unknown, as: any), as: any) == unknown)
        #expect(try ProtoJSON.encode([:], as: any) == [])
        #expect(error { try ProtoJSON.encode(["code": 1], as: self.any) }?.hasPrefix("Any needs an \"@type\" string") == true)
        #expect(
            error { try ProtoJSON.encode(["@type": "x/google.rpc.Status", "nope": 1], as: self.any) } == "unknown field \"nope\" in google.rpc.Status"
        )
        #expect(
            error { try ProtoJSON.encode(["@type": "x/unknown.Type", "reason": "r"], as: self.any) }?.contains("can only carry \"@value\"") == true)
    }

    @Test func wrappersAreTheirBareValue() throws {
        let names = [
            "DoubleValue": JSON.double(2.5), "FloatValue": 0.5, "Int64Value": "-5", "UInt64Value": "5", "Int32Value": -5, "UInt32Value": 5,
            "BoolValue": true, "StringValue": "s", "BytesValue": "AQ==",
        ]
        for (name, v) in names {
            let schema = FirestoreSchemas.message(named: "google.protobuf." + name)!
            #expect(try ProtoJSON.decode(try ProtoJSON.encode(v, as: schema), as: schema) == v, "\(name)")
        }
        let defaults = ["DoubleValue": JSON.double(0), "Int64Value": "0", "Int32Value": 0, "BoolValue": false, "StringValue": "", "BytesValue": ""]
        for (name, v) in defaults {
            let schema = FirestoreSchemas.message(named: "google.protobuf." + name)!
            #expect(try ProtoJSON.encode(v, as: schema) == [], "\(name)")
            #expect(try ProtoJSON.decode([], as: schema) == v, "\(name)")
        }
    }

    /// google.events.cloud.firestore.v1.DocumentEventData, as firebase-functions decodes it.
    @Test func documentEventData() throws {
        let json: JSON = [
            "value": [
                "name": "projects/p/databases/(default)/documents/a/b", "fields": ["n": ["integerValue": "2"]], "createTime": "2024-01-01T00:00:00Z",
                "updateTime": "2024-01-02T00:00:00.5Z",
            ],
            "oldValue": ["name": "projects/p/databases/(default)/documents/a/b", "fields": ["n": ["integerValue": "1"]]],
            "updateMask": ["fieldPaths": ["n"]],
        ]
        let bytes = try ProtoJSON.encode(json, as: FirestoreSchemas.documentEventData)
        let back = try ProtoJSON.decode(bytes, as: FirestoreSchemas.documentEventData)
        #expect(back["value"]?["updateTime"] == "2024-01-02T00:00:00.500Z")
        #expect(back["oldValue"] == json["oldValue"])
        #expect(back["updateMask"] == json["updateMask"])
        // The events package's Value has no pipeline members.
        #expect(
            error { try ProtoJSON.encode(["value": ["fields": ["f": ["fieldReferenceValue": "x"]]]], as: FirestoreSchemas.documentEventData) }?
                .hasPrefix("unknown field \"fieldReferenceValue\" in google.events.cloud.firestore.v1.Value") == true)
    }
}
