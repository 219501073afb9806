import EmulatorCore

/// Why protobuf bytes or a proto3 JSON value could not be converted.
///
/// Every malformed input ends here, never in a trap. The message names the problem, the innermost
/// message and field where it was found (`location`), and the route from the outermost message
/// (`path`), e.g. `truncated varint in google.firestore.v1.Value.integer_value (at
/// writes[0].update.fields.value.integer_value)`. The gRPC layer maps it to INVALID_ARGUMENT.
public struct ProtobufError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, in words ("truncated varint", "unknown field \"x\"").
    public var reason: String
    /// `<message full name>.<field name>` (or just the message name) where the problem was found;
    /// nil when it was found outside any message (e.g. a schema registry error).
    public var location: String?
    /// Field names from the outermost message down to the problem (`writes[0]`, `update`, ...).
    public var path: [String]
    /// A map key or list index waiting for the field name it belongs to (`["a"]`, `[3]`).
    var pendingSubscript: String?

    /// Creates an error; `location` and `path` are usually filled in while it propagates.
    public init(_ reason: String, location: String? = nil, path: [String] = []) {
        self.reason = reason
        self.location = location
        self.path = path
    }

    /// `<reason> in <location> (at <path>)`, leaving out what is unknown.
    public var description: String {
        var s = reason
        if let location { s += " in \(location)" }
        if !path.isEmpty { s += " (at \(path.joined(separator: ".")))" }
        return s
    }

    /// Records that the error happened inside `field` of `message`: the innermost caller sets the
    /// location, every caller prepends its field to the path. Only runs on the error path.
    /// `component` is what the path shows (the JSON name, an index, a map key); it defaults to
    /// the field's proto name.
    func within(_ message: MessageSchema, _ field: String, component: String? = nil) -> ProtobufError {
        var e = self
        if e.location == nil { e.location = "\(message.fullName).\(field)" }
        e.path.insert((component ?? field) + (e.pendingSubscript ?? ""), at: 0)
        e.pendingSubscript = nil
        return e
    }

    /// Records that the error happened under map key `key` (shown after the field's name, its
    /// first `maxKeyShown` characters only: the message travels in a gRPC trailer).
    func underKey(_ key: String) -> ProtobufError {
        var e = self
        let head = key.prefix(ProtobufError.maxKeyShown)
        let shown = head.endIndex == key.endIndex ? key : String(head) + "…"
        e.pendingSubscript = "[\(JSON.string(shown))]"
        return e
    }

    /// The most characters of a map key an error's route shows.
    static let maxKeyShown = 100

    /// Records that the error happened in `message` itself (not in one of its fields).
    func inMessage(_ message: MessageSchema) -> ProtobufError {
        var e = self
        if e.location == nil { e.location = message.fullName }
        return e
    }
}
