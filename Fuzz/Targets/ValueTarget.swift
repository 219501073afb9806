import EmulatorCore
import EmulatorStore

/// The `value` target: Firestore `Value(json:)`, its ordering and its JSON round trip.
///
/// A decoded value must equal itself under `Value.compare`, and its JSON form, serialized and
/// parsed as the REST layer does, must decode again to a value that compares equal. When the
/// input is an `arrayValue`, its first elements are also compared with each other: the order
/// must be antisymmetric and transitive (queries sort and filter with it).
public enum ValueTarget {
    /// Runs the target on `data`.
    public static func run(_ data: [UInt8]) throws(FuzzViolation) {
        guard let json = try? JSON.parse(data), let value = try? Value(json: json) else { return }
        guard Value.compare(value, value) == 0 else { throw FuzzViolation(.value, "a value is not equal to itself: \(json)") }
        let wire = value.json.serializedBytes()
        let back: Value
        do { back = try Value(json: try JSON.parse(wire)) } catch {
            throw FuzzViolation(.value, "the JSON form does not decode again (\(error)): \(String(decoding: wire.prefix(200), as: UTF8.self))")
        }
        guard Value.compare(value, back) == 0, Value.compare(back, value) == 0 else {
            throw FuzzViolation(.value, "the round trip changed the value: \(String(decoding: wire.prefix(200), as: UTF8.self))")
        }
        if case .array(let items) = value { try checkOrder(Array(items.prefix(8))) }
    }

    /// Checks antisymmetry on every pair and transitivity on every triple of `items` (few: the
    /// check is cubic).
    static func checkOrder(_ items: [Value]) throws(FuzzViolation) {
        for a in items {
            for b in items {
                let ab = Value.compare(a, b)
                guard ab == -Value.compare(b, a) else {
                    throw FuzzViolation(.value, "compare is not antisymmetric for \(a.json) and \(b.json)")
                }
                for c in items where ab <= 0 && Value.compare(b, c) <= 0 {
                    guard Value.compare(a, c) <= 0 else {
                        throw FuzzViolation(.value, "compare is not transitive: \(a.json) <= \(b.json) <= \(c.json) but not \(a.json) <= \(c.json)")
                    }
                }
            }
        }
    }
}
