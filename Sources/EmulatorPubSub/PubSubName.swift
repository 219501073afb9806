import EmulatorCore

/// A Pub/Sub resource name (`projects/{project}/topics/{id}`, `.../subscriptions/{id}`,
/// `.../snapshots/{id}`), validated as production and Google's emulator validate them.
public struct PubSubName: Sendable, Hashable {
    /// The collection a name lives in.
    public enum Kind: String, Sendable {
        /// `topics`.
        case topics
        /// `subscriptions`.
        case subscriptions
        /// `snapshots`.
        case snapshots
    }

    /// The project id.
    public let project: String
    /// The collection.
    public let kind: Kind
    /// The resource id (`my-topic`).
    public let id: String

    /// The full name.
    public var full: String { "projects/\(project)/\(kind.rawValue)/\(id)" }

    /// Parses `projects/{p}/{kind}/{id}`; a malformed name, bad project or bad id answers
    /// Google's `Invalid [topics] name: (name=...)`.
    public init(_ text: String, kind: Kind) throws(EmulatorError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        let invalid = EmulatorError.invalidArgument("Invalid [\(kind.rawValue)] name: (name=\(String(text.prefix(512))))")
        guard parts.count == 4, parts[0] == "projects", parts[2] == kind.rawValue,
            ResourceId.projectProblem(String(parts[1])) == nil, Self.isValidId(parts[3])
        else { throw invalid }
        self.project = String(parts[1])
        self.kind = kind
        self.id = String(parts[3])
    }

    /// Makes a name from parts already known to be valid.
    public init(project: String, kind: Kind, id: String) {
        self.project = project
        self.kind = kind
        self.id = id
    }

    /// Pub/Sub's id rule: 3 to 255 characters, starting with a letter, of letters, digits and
    /// `-_.~+%`, and not starting with `goog`.
    public static func isValidId(_ id: Substring) -> Bool {
        let u = Array(id.utf8)
        guard (3...255).contains(u.count), let first = u.first, isLetter(first), !id.lowercased().hasPrefix("goog") else { return false }
        return u.allSatisfy { isLetter($0) || ($0 >= 0x30 && $0 <= 0x39) || "-_.~+%".utf8.contains($0) }
    }

    private static func isLetter(_ c: UInt8) -> Bool { (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) }

    /// The project of `projects/{p}`, as List calls name it.
    public static func project(_ text: String) throws(EmulatorError) -> String {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0] == "projects", ResourceId.projectProblem(String(parts[1])) == nil else {
            throw EmulatorError.invalidArgument("Invalid [projects] name: (name=\(String(text.prefix(512))))")
        }
        return String(parts[1])
    }
}
