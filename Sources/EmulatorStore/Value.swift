import EmulatorCore

/// A document's or map's fields: names compared as UTF-8 bytes, values.
public typealias FieldMap = UTF8Dictionary<Value>

/// A Firestore value (google.firestore.v1.Value). Vectors are maps with `__type__: "__vector__"`,
/// as on the wire; `isVector` recognises them for ordering. Map keys are byte strings
/// (`UTF8Dictionary`): keys that differ only in Unicode normalisation are different fields.
///
/// Not `indirect`: a value is stored inline (24 bytes) in its array, map or document; only arrays,
/// maps, strings over 15 bytes and bytes have heap storage of their own. (An indirect enum boxed
/// every value, a 32–48-byte allocation per field of every stored document.)
public enum Value: Sendable {
    case null
    case boolean(Bool)
    case integer(Int64)
    case double(Double)
    case timestamp(Timestamp)
    case string(String)
    case bytes([UInt8])
    /// A full resource name `projects/{p}/databases/{d}/documents/{path}`.
    case reference(String)
    case geoPoint(latitude: Double, longitude: Double)
    case array([Value])
    case map(UTF8Dictionary<Value>)

    /// A map from a Swift dictionary (whose keys Swift has already merged by canonical equivalence).
    public static func map(_ fields: [String: Value]) -> Value { .map(UTF8Dictionary(fields)) }

    /// True for `{__type__: "__vector__", value: [...]}` maps.
    public var isVector: Bool {
        if case .map(let m) = self, case .string("__vector__")? = m["__type__"] { return true }
        return false
    }

    /// The numeric value as a double, for ints and doubles.
    var numericDouble: Double? {
        switch self {
        case .integer(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }

    /// True for ints and doubles.
    var isNumber: Bool { numericDouble != nil }

    /// True for a double NaN.
    var isNaN: Bool {
        if case .double(let d) = self { return d.isNaN }
        return false
    }
}

extension Value: Equatable {
    /// Exact equality: same kind and same content, strings and references by their bytes (Swift's
    /// `==` on `String` would call a precomposed and a decomposed "é" equal, so writing one over
    /// the other would look like no change). Doubles compare as doubles (NaN is unequal to itself,
    /// so a write of NaN always counts as a change). Not Firestore's query equality (1 == 1.0
    /// there): see `queryEquals`.
    public static func == (a: Value, b: Value) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.boolean(let x), .boolean(let y)): return x == y
        case (.integer(let x), .integer(let y)): return x == y
        case (.double(let x), .double(let y)): return x == y
        case (.timestamp(let x), .timestamp(let y)): return x == y
        case (.string(let x), .string(let y)): return x.utf8Equals(y)
        case (.bytes(let x), .bytes(let y)): return x == y
        case (.reference(let x), .reference(let y)): return x.utf8Equals(y)
        case (.geoPoint(let la, let lo), .geoPoint(let lb, let lob)): return la == lb && lo == lob
        case (.array(let x), .array(let y)): return x == y
        case (.map(let x), .map(let y)): return x == y
        default: return false
        }
    }
}
