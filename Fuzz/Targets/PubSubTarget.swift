import EmulatorCore
import EmulatorProtobuf
import EmulatorPubSub

/// The `pubsub` target: what Pub/Sub clients send that is parsed, not just stored.
///
/// First byte even: the rest is `filter NUL attributes` (attributes as `key=value` lines), a
/// subscription filter. `PubSubFilter.parse` must refuse or parse without trapping (an error
/// carries a message), refuse anything over 256 bytes, and a parsed filter's `NOT (f)` must parse
/// too (when it fits) and match exactly where `f` does not. First byte odd: the rest is the wire
/// bytes of a google.pubsub.v1 message the gRPC adapter decodes (chosen by the byte); decoding
/// stays within `ProtoJSON.maxSteps(forBytes:)`, and whatever decodes must encode and decode back
/// to the same JSON.
public enum PubSubTarget {
    /// The messages an odd first byte selects from.
    static let schemas = [
        PubSubSchemas.publishRequest, PubSubSchemas.streamingPullRequest, PubSubSchemas.subscription,
        PubSubSchemas.topic, PubSubSchemas.streamingPullResponse,
    ]

    /// Runs the target on `data`.
    public static func run(_ data: [UInt8]) throws(FuzzViolation) {
        guard let selector = data.first else { return }
        let input = Array(data[1...])
        if selector % 2 == 0 {
            try filter(input)
        } else {
            try message(input, schemas[Int(selector / 2) % schemas.count])
        }
    }

    static func filter(_ input: [UInt8]) throws(FuzzViolation) {
        let parts = input.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
        let text = String(decoding: parts[0], as: UTF8.self)
        var attributes: [String: String] = [:]
        if parts.count > 1 {
            for line in String(decoding: parts[1], as: UTF8.self).split(separator: "\n") {
                let kv = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                attributes[String(kv[0])] = kv.count > 1 ? String(kv[1]) : ""
            }
        }
        let parsed: PubSubFilter?
        do {
            parsed = try PubSubFilter.parse(text)
        } catch {
            guard !error.message.isEmpty else { throw FuzzViolation(.pubsub, "an empty error for \(text.debugDescription)") }
            return
        }
        guard text.utf8.count <= PubSubFilter.maxLength else {
            throw FuzzViolation(.pubsub, "a \(text.utf8.count)-byte filter was accepted (limit \(PubSubFilter.maxLength))")
        }
        guard let parsed else { return }
        let matches = parsed.matches(attributes)
        let negated = "NOT (\(text))"
        guard negated.utf8.count <= PubSubFilter.maxLength else { return }
        let inverse: PubSubFilter?
        do { inverse = try PubSubFilter.parse(negated) } catch {
            // Nesting one level deeper may pass the depth limit; nothing else may fail.
            guard error.message.contains("nest") else { throw FuzzViolation(.pubsub, "\(negated.debugDescription) refused: \(error.message)") }
            return
        }
        guard let inverse, inverse.matches(attributes) == !matches else {
            throw FuzzViolation(.pubsub, "\(negated.debugDescription) does not invert \(text.debugDescription) on \(attributes)")
        }
    }

    static func message(_ input: [UInt8], _ schema: MessageSchema) throws(FuzzViolation) {
        var steps = 0
        let decoded = try? ProtoJSON.decode(input, as: schema, steps: &steps)
        guard steps <= ProtoJSON.maxSteps(forBytes: input.count) else {
            throw FuzzViolation(.pubsub, "decoding \(input.count) bytes took \(steps) steps (more than \(ProtoJSON.maxSteps(forBytes: input.count)))")
        }
        guard let json = decoded else { return }
        let encoded: [UInt8]
        do { encoded = try ProtoJSON.encode(json, as: schema) } catch {
            throw FuzzViolation(.pubsub, "decoded JSON does not encode (\(error)): \(String(json.serialized().prefix(300)))")
        }
        let again: JSON
        do { again = try ProtoJSON.decode(encoded, as: schema) } catch {
            throw FuzzViolation(.pubsub, "the encoding does not decode (\(error)): \(String(json.serialized().prefix(300)))")
        }
        guard ProtobufTarget.identical(again, json) else {
            throw FuzzViolation(
                .pubsub, "the round trip changed the JSON: \(String(json.serialized().prefix(300))) became \(String(again.serialized().prefix(300)))")
        }
    }
}
