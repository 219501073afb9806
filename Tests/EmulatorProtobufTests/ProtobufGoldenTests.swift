import EmulatorCore
import Testing

@testable import EmulatorProtobuf

/// One case of `Fixtures/golden.json` (made by `Fixtures/make_golden.py` with the real Python
/// protobuf classes).
struct GoldenCase: CustomTestStringConvertible, Sendable {
    let name: String
    let message: MessageSchema
    let bytes: [UInt8]
    let json: JSON
    /// "python" (built and serialized by Python), "parsed" (hand-made bytes Python parsed) or
    /// "hand" (Python cannot speak for it).
    let source: String

    var testDescription: String { name }

    static let all: [GoldenCase] = {
        guard let cases = try? Fixtures.load("golden")["cases"]?.arrayValue else { return [] }
        return cases.compactMap { c in
            guard let name = c["name"]?.stringValue, let full = c["message"]?.stringValue,
                let schema = FirestoreSchemas.message(named: full), let hex = c["hex"]?.stringValue, let json = c["json"]
            else { return nil }
            return GoldenCase(name: name, message: schema, bytes: Fixtures.bytes(hex: hex), json: json, source: c["source"]?.stringValue ?? "")
        }
    }()
}

struct ProtobufGoldenTests {
    @Test func everyGoldenCaseLoads() throws {
        let raw = try #require(try Fixtures.load("golden")["cases"]?.arrayValue)
        #expect(GoldenCase.all.count == raw.count, "a case names a message we do not declare")
        #expect(raw.count > 100)
    }

    /// decode(Python's bytes) is Python's JSON.
    @Test(arguments: GoldenCase.all)
    func decodesToPythonsJSON(_ c: GoldenCase) throws {
        let decoded = try ProtoJSON.decode(c.bytes, as: c.message)
        #expect(sameJSON(decoded, c.json), "\(c.name):\n ours   \(decoded)\n python \(c.json)")
    }

    /// Cases whose maps have a key that is a prefix of another ("neg", "negzero"; "" and "a"):
    /// Python's upb puts the longer key first, we (like protobuf's C++ and Java) put the prefix
    /// first. Map order on the wire is unspecified; these are compared by decoding both.
    static let upbMapOrder: Set<String> = [
        "document-every-kind", "update-document-request", "wkt-struct", "run-query-response-explain-metrics",
    ]

    /// decode(encode(json)) is json, and for messages Python serialized (or we wrote by hand),
    /// encode(json) is the same bytes: both write fields by number and map entries by key.
    @Test(arguments: GoldenCase.all)
    func encodesBackToTheSameMessage(_ c: GoldenCase) throws {
        let encoded = try ProtoJSON.encode(c.json, as: c.message)
        let again = try ProtoJSON.decode(encoded, as: c.message)
        #expect(sameJSON(again, c.json), "\(c.name):\n round trip \(again)\n expected   \(c.json)")
        guard c.source != "parsed" else { return }
        if Self.upbMapOrder.contains(c.name) {
            #expect(encoded != c.bytes, "\(c.name) now matches byte for byte: remove it from upbMapOrder")
            #expect(encoded.count == c.bytes.count)
            #expect(sameJSON(try ProtoJSON.decode(c.bytes, as: c.message), again))
        } else {
            #expect(encoded == c.bytes, "\(c.name):\n ours   \(Fixtures.hex(encoded))\n python \(Fixtures.hex(c.bytes))")
        }
    }

    /// The JSON also survives the REST layer's text form: what ProtoJSON decodes, serialized and
    /// parsed again, encodes to a message that decodes the same. (EmulatorCore's serializer
    /// writes -0.0 as 0, so the sign of zero is not compared here.)
    @Test(arguments: GoldenCase.all)
    func survivesJSONText(_ c: GoldenCase) throws {
        let decoded = try ProtoJSON.decode(c.bytes, as: c.message)
        let reparsed = try JSON.parse(decoded.serializedBytes())
        let again = try ProtoJSON.decode(try ProtoJSON.encode(reparsed, as: c.message), as: c.message)
        #expect(sameJSON(again, decoded, signedZero: false), "\(c.name)")
    }

    /// Every prefix of every golden message decodes or throws a ProtobufError; none traps.
    @Test func everyPrefixDecodesOrThrows() async throws {
        let (threw, decoded, silent) = await offThePool { () -> (Int, Int, Int) in
            var threw = 0, decoded = 0, silent = 0
            for c in GoldenCase.all {
                for n in 0..<c.bytes.count {
                    do {
                        _ = try ProtoJSON.decode(c.bytes[0..<n], as: c.message)
                        decoded += 1
                    } catch {
                        threw += 1
                        if (error as? ProtobufError)?.description.isEmpty != false { silent += 1 }
                    }
                }
            }
            return (threw, decoded, silent)
        }
        #expect(threw > 1000)
        #expect(decoded > 100)
        #expect(silent == 0, "errors that are not a described ProtobufError")
    }

    /// Every single-byte corruption (continuation bit, wire type bits) of the golden messages up
    /// to 300 bytes decodes or throws; what decodes round-trips.
    @Test func everyByteFlipDecodesOrThrows() async throws {
        let problems = await offThePool { () -> [String] in
            var problems: [String] = []
            for c in GoldenCase.all where c.bytes.count <= 300 {
                for i in c.bytes.indices {
                    for flip: UInt8 in [0x80, 0x07] {
                        var b = c.bytes
                        b[i] ^= flip
                        guard let json = try? ProtoJSON.decode(b, as: c.message) else { continue }
                        // Whatever decodes must encode and decode to the same JSON.
                        let again = try? ProtoJSON.decode(try ProtoJSON.encode(json, as: c.message), as: c.message)
                        if again.map({ sameJSON($0, json) }) != true { problems.append("\(c.name) byte \(i) ^ \(flip)") }
                    }
                }
            }
            return problems
        }
        #expect(problems.isEmpty, "\(problems.prefix(10))")
    }
}
