import EmulatorCore

/// A Firestore value (google.firestore.v1.Value). Vectors are maps with `__type__: "__vector__"`,
/// as on the wire; `isVector` recognises them for ordering.
public indirect enum Value: Sendable, Equatable {
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
    case map([String: Value])

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
