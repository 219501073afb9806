/// A field's type reduced to what the codec switches on: no payloads, no reference counting, so
/// the hot loops copy it for free (a `ProtoFieldType` carries the referenced type's name).
enum ScalarKind: UInt8, Sendable {
    /// The scalar types of `ProtoFieldType`, one for one.
    case double, float, int32, int64, uint32, uint64, sint32, sint64
    /// The rest of them; `enumeration` and `message` without the referenced name.
    case fixed32, fixed64, sfixed32, sfixed64, bool, string, bytes, enumeration, message

    /// The kind of a declared type.
    init(_ type: ProtoFieldType) {
        switch type {
        case .double: self = .double
        case .float: self = .float
        case .int32: self = .int32
        case .int64: self = .int64
        case .uint32: self = .uint32
        case .uint64: self = .uint64
        case .sint32: self = .sint32
        case .sint64: self = .sint64
        case .fixed32: self = .fixed32
        case .fixed64: self = .fixed64
        case .sfixed32: self = .sfixed32
        case .sfixed64: self = .sfixed64
        case .bool: self = .bool
        case .string: self = .string
        case .bytes: self = .bytes
        case .enumeration: self = .enumeration
        case .message: self = .message
        }
    }

    /// The wire type of one value.
    var wireType: WireType {
        switch self {
        case .int32, .int64, .uint32, .uint64, .sint32, .sint64, .bool, .enumeration: return .varint
        case .fixed64, .sfixed64, .double: return .fixed64
        case .fixed32, .sfixed32, .float: return .fixed32
        case .string, .bytes, .message: return .lengthDelimited
        }
    }

    /// Numeric kinds, packed when repeated.
    var isPackable: Bool { wireType != .lengthDelimited }

    /// The descriptor's spelling, for messages.
    var name: String { ProtoFieldType.names[Int(rawValue)] }
}

extension ProtoFieldType {
    /// Descriptor spellings by `ScalarKind` raw value.
    static let names = [
        "double", "float", "int32", "int64", "uint32", "uint64", "sint32", "sint64", "fixed32", "fixed64",
        "sfixed32", "sfixed64", "bool", "string", "bytes", "enum", "message",
    ]
}

/// Everything the codec needs of one field, as plain values (see `ScalarKind`).
struct FieldPlan: Sendable {
    /// Singular, repeated or map.
    enum Shape: UInt8, Sendable { case singular, repeated, map }

    /// The field number.
    let number: Int
    /// The value type (a map's value type).
    let kind: ScalarKind
    /// A map's key type (unused otherwise).
    let keyKind: ScalarKind
    /// Singular, repeated or map.
    let shape: Shape
    /// Message fields, oneof members, proto3 optional: written and read even when default.
    let explicitPresence: Bool
    /// Index into the message's oneofs, or -1.
    let oneof: Int

    /// The plan of a declared field.
    init(_ field: FieldSchema) {
        number = field.number
        kind = ScalarKind(field.type)
        switch field.cardinality {
        case .singular:
            shape = .singular
            keyKind = .string
        case .repeated:
            shape = .repeated
            keyKind = .string
        case .map(let key, _):
            shape = .map
            keyKind = ScalarKind(key)
        }
        explicitPresence = field.hasExplicitPresence
        oneof = field.oneofIndex ?? -1
    }
}
