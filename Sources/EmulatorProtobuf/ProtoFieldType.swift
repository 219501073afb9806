/// The type of a field's values, as in a .proto file. Enum and message types are referenced by
/// full name (`google.firestore.v1.Value`) and resolved by a `SchemaRegistry`, which is what lets
/// recursive messages (Value → MapValue → Value) be declared as plain data.
public enum ProtoFieldType: Sendable, Hashable {
    /// Floating point and varint-encoded integers (`sint*` zigzag-encoded).
    case double, float, int32, int64, uint32, uint64, sint32, sint64
    /// Fixed-width integers, bool, UTF-8 text, raw bytes.
    case fixed32, fixed64, sfixed32, sfixed64, bool, string, bytes
    /// An enum, by full name.
    case enumeration(String)
    /// A message, by full name.
    case message(String)

    /// The wire type a singular value of this type is written with.
    public var wireType: WireType {
        switch self {
        case .int32, .int64, .uint32, .uint64, .sint32, .sint64, .bool, .enumeration: return .varint
        case .fixed64, .sfixed64, .double: return .fixed64
        case .fixed32, .sfixed32, .float: return .fixed32
        case .string, .bytes, .message: return .lengthDelimited
        }
    }

    /// Scalar numeric types, whose repeated fields are packed.
    public var isPackable: Bool { wireType != .lengthDelimited }

    /// The descriptor's type name (`int32`, `enum`, `message`, ...), as `descriptor.proto` spells it.
    public var descriptorName: String {
        switch self {
        case .double: "double"
        case .float: "float"
        case .int32: "int32"
        case .int64: "int64"
        case .uint32: "uint32"
        case .uint64: "uint64"
        case .sint32: "sint32"
        case .sint64: "sint64"
        case .fixed32: "fixed32"
        case .fixed64: "fixed64"
        case .sfixed32: "sfixed32"
        case .sfixed64: "sfixed64"
        case .bool: "bool"
        case .string: "string"
        case .bytes: "bytes"
        case .enumeration: "enum"
        case .message: "message"
        }
    }

    /// The referenced enum or message's full name, nil for scalars.
    public var typeName: String? {
        switch self {
        case .enumeration(let n), .message(let n): n
        default: nil
        }
    }
}

/// How many values a field holds.
public enum FieldCardinality: Sendable, Hashable {
    /// At most one value.
    case singular
    /// A list (`repeated`).
    case repeated
    /// `map<key, value>`: on the wire a repeated entry message {key = 1, value = 2}.
    case map(key: ProtoFieldType, value: ProtoFieldType)
}
