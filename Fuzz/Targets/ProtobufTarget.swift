import EmulatorCore
import EmulatorProtobuf

/// The `protobuf` target: `ProtoJSON.decode` of arbitrary bytes as a Firestore message, then
/// the round trip through JSON.
///
/// The first byte picks the message (RunQueryRequest, CommitRequest, ListenRequest, Document,
/// ListenResponse, BatchWriteResponse); the rest is its wire bytes. Whatever decodes must encode
/// (encoding accepts everything decoding produces), the encoding must decode to the same JSON
/// (sign of zero included), and encoding that again must give the same bytes (the canonical form
/// is stable).
public enum ProtobufTarget {
    /// The messages the first byte selects from.
    static let schemas = [
        FirestoreSchemas.runQueryRequest, FirestoreSchemas.commitRequest, FirestoreSchemas.listenRequest,
        FirestoreSchemas.document, FirestoreSchemas.listenResponse, FirestoreSchemas.batchWriteResponse,
    ]

    /// Runs the target on `data`.
    public static func run(_ data: [UInt8]) throws(FuzzViolation) {
        guard let selector = data.first else { return }
        let schema = schemas[Int(selector) % schemas.count]
        guard let json = try? ProtoJSON.decode(data[1...], as: schema) else { return }
        let encoded: [UInt8]
        do { encoded = try ProtoJSON.encode(json, as: schema) } catch {
            throw FuzzViolation(.protobuf, "decoded JSON does not encode (\(error)): \(String(json.serialized().prefix(300)))")
        }
        let again: JSON
        do { again = try ProtoJSON.decode(encoded, as: schema) } catch {
            throw FuzzViolation(.protobuf, "the encoding does not decode (\(error)): \(String(json.serialized().prefix(300)))")
        }
        guard identical(again, json) else {
            throw FuzzViolation(.protobuf, "the round trip changed the JSON: \(String(json.serialized().prefix(300))) became \(String(again.serialized().prefix(300)))")
        }
        let reencoded: [UInt8]
        do { reencoded = try ProtoJSON.encode(again, as: schema) } catch {
            throw FuzzViolation(.protobuf, "the round-tripped JSON does not encode (\(error))")
        }
        guard reencoded == encoded else {
            throw FuzzViolation(.protobuf, "encoding is not stable for \(String(json.serialized().prefix(300)))")
        }
    }

    /// JSON equality that tells -0.0 from 0.0 (`==` on doubles does not).
    static func identical(_ a: JSON, _ b: JSON) -> Bool {
        switch (a, b) {
        case (.double(let x), .double(let y)): return x.bitPattern == y.bitPattern
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { identical($0, $1) }
        case (.object(let x), .object(let y)): return x.count == y.count && x.allSatisfy { k, v in y[k].map { identical(v, $0) } ?? false }
        default: return a == b
        }
    }
}
