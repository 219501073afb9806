import EmulatorCore

/// The checks production applies to values beyond their JSON shape: typed maps (vectors), the size
/// of one field value, the size of a query operand. Messages are production's (as Google's
/// emulator gives them), since clients and tests match on them.
extension Value {
    /// The largest dimension of a vector.
    static let maxVectorDimensions = 2048
    /// The largest field value (1 MiB - 89 bytes), by Firestore's storage size.
    static let maxFieldValueBytes = 1_048_487
    /// The largest indexed value: query operands above it are refused, and strings and bytes are
    /// compared on their first bytes up to it (the index keeps no more).
    static let maxIndexedBytes = 1500

    /// A proto3 JSON double: a number, or "NaN", "Infinity", "-Infinity" (or a decimal string).
    static func protoDouble(_ j: JSON) -> Double? {
        switch j {
        case .int(let i): return Double(i)
        case .double(let d): return d
        case .string(let s):
            switch s {
            case "NaN": return .nan
            case "Infinity": return .infinity
            case "-Infinity": return -.infinity
            default:
                // Swift also reads "nan" and "inf"; proto3 JSON does not.
                guard let first = s.utf8.first, first == UInt8(ascii: "-") || first == UInt8(ascii: ".") || (0x30...0x39).contains(first),
                    let d = Double(s), d.isFinite
                else { return nil }
                return d
            }
        default: return nil
        }
    }

    /// A double as Java's `Double.toString` writes it (`100.0`, `NaN`, `Infinity`), for messages
    /// that quote production's.
    static func javaDouble(_ d: Double) -> String {
        if d.isNaN { return "NaN" }
        if d.isInfinite { return d < 0 ? "-Infinity" : "Infinity" }
        let a = abs(d)
        if a != 0 && (a >= 1e7 || a < 1e-3) {
            // Java: one digit, a fraction, "E" and the exponent (1.0E7, 1.5E-4).
            var mantissa = a, exponent = 0
            while mantissa >= 10 {
                mantissa /= 10
                exponent += 1
            }
            while mantissa < 1 {
                mantissa *= 10
                exponent -= 1
            }
            return (d < 0 ? "-" : "") + "\(mantissa)E\(exponent)"
        }
        return "\(d)"
    }

    /// Checks a map with a `__type__` member: only vectors (`{__type__: "__vector__", value: [doubles]}`)
    /// are typed maps a client may write, and production refuses malformed ones.
    static func validateTypedMap(_ fields: FieldMap, field: String) throws {
        guard case .string(let type)? = fields["__type__"], type.utf8Equals("__vector__") else {
            throw EmulatorError.invalidArgument("Property \(field) contains an invalid nested entity.")
        }
        guard let value = fields["value"] else { throw EmulatorError.invalidArgument("Vector map is missing key 'value'.") }
        guard case .array(let items) = value else { throw EmulatorError.invalidArgument("Vector Value type must be an array.") }
        guard fields.count == 2 else { throw EmulatorError.invalidArgument("Vector Value map has extraneous entries.") }
        guard !items.isEmpty else { throw EmulatorError.invalidArgument("Cannot have a zero length vector.") }
        guard items.count <= maxVectorDimensions else {
            throw EmulatorError.invalidArgument("Vectors must be at most \(maxVectorDimensions) dimensions.")
        }
        for item in items {
            guard case .double(let d) = item else { throw EmulatorError.invalidArgument("Vector must only contain values of type 'double'") }
            guard !d.isNaN else { throw EmulatorError.invalidArgument("Vector cannot contain NaN values.") }
        }
    }

    /// Refuses a field value larger than 1,048,487 bytes (a string or bytes value, or an array or
    /// map holding one), as production does whatever the document's total size.
    static func validateFieldSizes(_ fields: FieldMap) throws {
        for (name, value) in fields {
            switch value {
            case .string, .bytes, .array:
                if value.payloadSize > maxFieldValueBytes {
                    throw EmulatorError.invalidArgument("The value of property \"\(name)\" is longer than \(maxFieldValueBytes) bytes.")
                }
            case .map(let m):
                if !value.isVector, m.values.contains(where: { $0.payloadSize > maxFieldValueBytes }) {
                    throw EmulatorError.invalidArgument("Property \(name) contains an invalid nested entity.")
                }
            default: continue
            }
        }
    }

    /// The bytes a string or bytes value holds, the largest one inside an array or map.
    var payloadSize: Int {
        switch self {
        case .string(let s): return s.utf8.count
        case .bytes(let b): return b.count
        case .array(let a): return a.reduce(0) { max($0, $1.payloadSize) }
        case .map(let m): return m.values.reduce(0) { max($0, $1.payloadSize) }
        default: return 0
        }
    }

    /// Refuses a query operand whose index entry would exceed 1,500 bytes (Firestore's storage
    /// size: a string counts its bytes plus one), with production's message naming the field.
    static func validateOperand(_ v: Value, field: FieldPath) throws {
        let tooLarge: Bool
        switch v {
        case .array(let items): tooLarge = items.contains { $0.storageSize > maxIndexedBytes }
        default: tooLarge = v.storageSize > maxIndexedBytes
        }
        if tooLarge { throw EmulatorError.invalidArgument("value for \(field) is too large to be used in a query") }
    }
}
