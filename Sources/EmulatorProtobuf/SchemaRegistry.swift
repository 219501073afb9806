/// A closed set of message and enum schemas, linked to each other by name.
///
/// Creating a registry resolves every type a field names (and fails, naming it, when one is
/// missing), so decoding and encoding follow direct references instead of looking names up.
/// Immutable after `init`; meant to live in a `static let` for the life of the process.
public final class SchemaRegistry: Sendable {
    private let messages: [String: MessageSchema]
    private let enums: [String: EnumSchema]

    /// Links `messages` and `enums`. Throws when a field names a type that is not among them, a
    /// name is declared twice, or a schema already belongs to another registry.
    public init(messages: [MessageSchema], enums: [EnumSchema]) throws(ProtobufError) {
        var m: [String: MessageSchema] = [:]
        for s in messages {
            guard m.updateValue(s, forKey: s.fullName) == nil else { throw ProtobufError("message \(s.fullName) is declared twice") }
        }
        var e: [String: EnumSchema] = [:]
        for s in enums {
            guard e.updateValue(s, forKey: s.fullName) == nil else { throw ProtobufError("enum \(s.fullName) is declared twice") }
        }
        self.messages = m
        self.enums = e
        for s in messages { try s.link(self) }
    }

    /// The message with this full name.
    public func message(named fullName: String) -> MessageSchema? { messages[fullName] }

    /// The enum with this full name.
    public func enumeration(named fullName: String) -> EnumSchema? { enums[fullName] }

    /// Every message, by full name.
    public var allMessages: [MessageSchema] { messages.values.sorted { $0.fullName < $1.fullName } }

    /// Every enum, by full name.
    public var allEnums: [EnumSchema] { enums.values.sorted { $0.fullName < $1.fullName } }
}
