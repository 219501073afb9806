import EmulatorCore
import EmulatorProtobuf

/// The `protobuf` target: `ProtoJSON.decode` of arbitrary bytes as a Firestore message, then
/// the round trip through JSON.
///
/// The first byte picks the message (RunQueryRequest, CommitRequest, ListenRequest, Document,
/// ListenResponse, BatchWriteResponse); the rest is its wire bytes. Decoding, whether it succeeds
/// or not, takes at most `ProtoJSON.maxSteps(forBytes:)` steps (linear work). Whatever decodes
/// must encode (encoding accepts everything decoding produces), the encoding must decode to the
/// same JSON (sign of zero included), and encoding that again must give the same bytes (the
/// canonical form is stable). The encoding written twice must decode to the JSON with every
/// repeated field reached through singular messages doubled (protobuf's merge rule: every singular
/// message occurs twice and merges, at every level), again in linear work.
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
        let input = Array(data[1...])
        var steps = 0
        let decoded = try? ProtoJSON.decode(input, as: schema, steps: &steps)
        guard steps <= ProtoJSON.maxSteps(forBytes: input.count) else {
            throw FuzzViolation(
                .protobuf, "decoding \(input.count) bytes took \(steps) steps (more than \(ProtoJSON.maxSteps(forBytes: input.count)))")
        }
        guard let json = decoded else { return }
        let encoded: [UInt8]
        do { encoded = try ProtoJSON.encode(json, as: schema) } catch {
            throw FuzzViolation(.protobuf, "decoded JSON does not encode (\(error)): \(String(json.serialized().prefix(300)))")
        }
        let again: JSON
        do { again = try ProtoJSON.decode(encoded, as: schema) } catch {
            throw FuzzViolation(.protobuf, "the encoding does not decode (\(error)): \(String(json.serialized().prefix(300)))")
        }
        guard identical(again, json) else {
            throw FuzzViolation(
                .protobuf,
                "the round trip changed the JSON: \(String(json.serialized().prefix(300))) became \(String(again.serialized().prefix(300)))")
        }
        let reencoded: [UInt8]
        do { reencoded = try ProtoJSON.encode(again, as: schema) } catch {
            throw FuzzViolation(.protobuf, "the round-tripped JSON does not encode (\(error))")
        }
        guard reencoded == encoded else {
            throw FuzzViolation(.protobuf, "encoding is not stable for \(String(json.serialized().prefix(300)))")
        }
        try checkMerge(encoded, json, schema)
    }

    /// Decodes `encoded` written twice, which merges every singular message with its copy.
    static func checkMerge(_ encoded: [UInt8], _ json: JSON, _ schema: MessageSchema) throws(FuzzViolation) {
        let twice = encoded + encoded
        var steps = 0
        let merged: JSON
        do { merged = try ProtoJSON.decode(twice, as: schema, steps: &steps) } catch {
            throw FuzzViolation(.protobuf, "the encoding written twice does not decode (\(error)): \(String(json.serialized().prefix(300)))")
        }
        guard steps <= ProtoJSON.maxSteps(forBytes: twice.count) else {
            throw FuzzViolation(.protobuf, "decoding the encoding written twice (\(twice.count) bytes) took \(steps) steps")
        }
        let expected = doubled(json, schema)
        guard identical(merged, expected) else {
            throw FuzzViolation(
                .protobuf,
                "the encoding written twice decoded to \(String(merged.serialized().prefix(300))), not \(String(expected.serialized().prefix(300)))")
        }
    }

    /// The well-known types whose JSON a merge with an identical copy leaves alone: every field is
    /// a scalar (last wins), a map (same keys replaced) or, for Any, bytes.
    static let unchangedByMerge: Set<String> = [
        "google.protobuf.Timestamp", "google.protobuf.Duration", "google.protobuf.Struct", "google.protobuf.Any",
        "google.protobuf.DoubleValue", "google.protobuf.FloatValue", "google.protobuf.Int64Value", "google.protobuf.UInt64Value",
        "google.protobuf.Int32Value", "google.protobuf.UInt32Value", "google.protobuf.BoolValue", "google.protobuf.StringValue",
        "google.protobuf.BytesValue",
    ]

    /// What a `schema` message with this JSON becomes when merged with itself: repeated fields
    /// concatenated with themselves, singular messages merged the same way, everything else (scalars,
    /// maps, oneof members set again, elements of repeated fields) as it was.
    static func doubled(_ json: JSON, _ schema: MessageSchema) -> JSON {
        if unchangedByMerge.contains(schema.fullName) { return json }
        if schema.fullName == "google.protobuf.ListValue" || schema.fullName == "google.protobuf.Value" {
            // A ListValue's JSON is its array; a Value's is an array when it holds a list.
            if case .array(let items) = json { return .array(items + items) }
            return json
        }
        guard case .object(var members) = json else { return json }
        for (key, value) in members {
            guard let field = schema.field(named: key) else { continue }
            switch field.cardinality {
            case .repeated:
                if case .array(let items) = value { members[key] = .array(items + items) }
            case .map:
                break
            case .singular:
                if case .message = field.type, let sub = schema.messageType(of: field) { members[key] = doubled(value, sub) }
            }
        }
        return .object(members)
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
