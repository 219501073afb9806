/// A JSON value, the lingua franca between the HTTP layer and the services.
///
/// Integers and doubles are kept apart (`1` parses as `.int`, `1.0` as `.double`) because the
/// Firestore and callable wire formats care about the difference. Objects are unordered; the
/// serializer sorts keys so output is deterministic and golden tests are stable. Object member
/// names are byte strings (`UTF8Dictionary`): names that differ only in Unicode normalisation are
/// two members, as they are on the wire.
public enum JSON: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSON])
    case object(UTF8Dictionary<JSON>)

    /// An object from a Swift dictionary (whose keys Swift has already merged by canonical
    /// equivalence; build a `UTF8Dictionary` to keep such names apart).
    public static func object(_ members: [String: JSON]) -> JSON { .object(UTF8Dictionary(members)) }
}

extension JSON {
    /// The member named `key` when this is an object, else `nil`.
    public subscript(key: String) -> JSON? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    /// The string payload, or `nil` for any other kind.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The boolean payload, or `nil` for any other kind.
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The integer payload; a double with an exact integer value also answers.
    public var intValue: Int64? {
        switch self {
        case .int(let i): return i
        case .double(let d) where d.rounded() == d && abs(d) < 9.2e18: return Int64(d)
        default: return nil
        }
    }

    /// The numeric payload as a double (ints widen).
    public var doubleValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }

    /// The elements when this is an array.
    public var arrayValue: [JSON]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The members when this is an object.
    public var objectValue: UTF8Dictionary<JSON>? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// True for `.null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// A short name of the value's kind, for error messages ("string", "object", ...).
    public var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .int, .double: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}

extension JSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByFloatLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    /// A string literal becomes `.string`.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer literal becomes `.int`.
    public init(integerLiteral value: Int64) { self = .int(value) }
    /// A boolean literal becomes `.bool`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// A float literal becomes `.double`.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// An array literal becomes `.array`.
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    /// A dictionary literal becomes `.object` (later duplicates win).
    public init(dictionaryLiteral elements: (String, JSON)...) {
        self = .object(UTF8Dictionary(elements))
    }
    /// `nil` becomes `.null`.
    public init(nilLiteral: ()) { self = .null }
}
