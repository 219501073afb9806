/// One field of a message, as declared in its .proto file.
public struct FieldSchema: Sendable, Hashable {
    /// The field number.
    public let number: Int
    /// The proto name (`update_time`).
    public let name: String
    /// The proto3 JSON name (`updateTime`): lowerCamelCase of the proto name unless declared.
    public let jsonName: String
    /// The value type; for a map field, the map's value type.
    public let type: ProtoFieldType
    /// Singular, repeated or map.
    public let cardinality: FieldCardinality
    /// The name of the oneof this field belongs to, if any.
    public let oneof: String?
    /// Index of `oneof` in the message's `oneofs` (set when the field joins a `MessageSchema`).
    public internal(set) var oneofIndex: Int?
    /// Whether presence is tracked: message fields, oneof members and proto3 `optional` fields.
    /// Other singular scalars have implicit presence: their default value is never written and
    /// reads back as absent.
    public let hasExplicitPresence: Bool

    /// Declares a field. `optional` marks a proto3 `optional` scalar (explicit presence).
    public init(
        _ number: Int, _ name: String, _ type: ProtoFieldType, _ cardinality: FieldCardinality = .singular,
        oneof: String? = nil, optional: Bool = false, jsonName: String? = nil
    ) {
        self.number = number
        self.name = name
        self.jsonName = jsonName ?? FieldSchema.jsonName(of: name)
        if case .map(_, let value) = cardinality { self.type = value } else { self.type = type }
        self.cardinality = cardinality
        self.oneof = oneof
        self.oneofIndex = nil
        var presence = optional || oneof != nil
        if cardinality == .singular, case .message = type { presence = true }
        self.hasExplicitPresence = presence
    }

    /// A singular field.
    public static func field(_ number: Int, _ name: String, _ type: ProtoFieldType, jsonName: String? = nil) -> FieldSchema {
        FieldSchema(number, name, type, jsonName: jsonName)
    }

    /// A proto3 `optional` field (explicit presence).
    public static func optional(_ number: Int, _ name: String, _ type: ProtoFieldType) -> FieldSchema {
        FieldSchema(number, name, type, optional: true)
    }

    /// A member of the oneof `oneof`.
    public static func oneof(_ oneof: String, _ number: Int, _ name: String, _ type: ProtoFieldType) -> FieldSchema {
        FieldSchema(number, name, type, oneof: oneof)
    }

    /// A repeated field.
    public static func repeated(_ number: Int, _ name: String, _ type: ProtoFieldType) -> FieldSchema {
        FieldSchema(number, name, type, .repeated)
    }

    /// A map field.
    public static func map(_ number: Int, _ name: String, _ key: ProtoFieldType, _ value: ProtoFieldType) -> FieldSchema {
        FieldSchema(number, name, value, .map(key: key, value: value))
    }

    /// protoc's default JSON name: underscores dropped, the letter after each one upper-cased.
    public static func jsonName(of protoName: String) -> String {
        var out = ""
        out.reserveCapacity(protoName.utf8.count)
        var upper = false
        for c in protoName {
            if c == "_" {
                upper = true
            } else if upper {
                out += c.uppercased()
                upper = false
            } else {
                out.append(c)
            }
        }
        return out
    }
}
