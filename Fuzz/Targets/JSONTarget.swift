import EmulatorCore

/// The `json` target: `JSON.parse`, then the serialization re-parsed.
///
/// Serializing is not the identity on values (`1.0` is written `1`, non-finite doubles become
/// strings) but it must be stable: what the emulator writes always parses, and parsing it gives
/// a value that serializes to the same bytes (compact and pretty forms alike).
public enum JSONTarget {
    /// Runs the target on `data`.
    public static func run(_ data: [UInt8]) throws(FuzzViolation) {
        guard let value = try? JSON.parse(data) else { return }
        let compact = value.serializedBytes()
        try reparse(compact, expecting: compact)
        try reparse(value.serializedBytes(pretty: true), expecting: compact)
    }

    /// Checks that `bytes` (a serialization) parses to a value whose compact form is `expected`.
    static func reparse(_ bytes: [UInt8], expecting expected: [UInt8]) throws(FuzzViolation) {
        let again: JSON
        do { again = try JSON.parse(bytes) } catch {
            throw FuzzViolation(.json, "serialization does not parse (\(error)): \(String(decoding: bytes.prefix(200), as: UTF8.self))")
        }
        guard again.serializedBytes() == expected else {
            throw FuzzViolation(.json, "serialization is not stable: \(String(decoding: expected.prefix(200), as: UTF8.self))")
        }
    }
}
