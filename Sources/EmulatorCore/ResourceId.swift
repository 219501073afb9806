/// The syntax of project and database ids, checked wherever an id enters the process (URL paths,
/// request bodies, the command line, config files, export file names, journal records).
///
/// The rule is what production accepts plus what Firebase's emulators accept, and nothing that
/// could mean something to a file system:
/// - project ids: 1-100 characters of lowercase ASCII letters, digits and hyphens, starting with a
///   letter or digit. Production ids (6-30 characters, starting with a letter, not ending with a
///   hyphen) and `demo-*` ids pass, and so do the short ids test suites use (`p`, `p1`), which
///   Google's Firestore emulator accepts (it takes App Engine app ids: this charset, 1-100
///   characters; the domain-scoped `example.com:proj` form is left out, as `:` starts a custom
///   method in our URLs).
/// - database ids: `(default)`, or 1-63 characters of lowercase ASCII letters, digits and hyphens,
///   starting with a letter or digit (production: 4-63, starting with a letter).
///
/// Neither can hold `/`, `.`, NUL, control characters, spaces or upper case, so an id is its own
/// file name stem and distinct ids map to distinct file names, on case-insensitive file systems too.
public enum ResourceId {
    /// Longest project id accepted.
    public static let maxProjectLength = 100
    /// Longest named database id accepted.
    public static let maxDatabaseLength = 63

    /// Why `id` is not a project id, or nil when it is one.
    public static func projectProblem(_ id: String) -> String? {
        problem(id, max: maxProjectLength)
    }

    /// Why `id` is not a database id, or nil when it is one.
    public static func databaseProblem(_ id: String) -> String? {
        id == "(default)" ? nil : problem(id, max: maxDatabaseLength)
    }

    /// True for a valid project id.
    public static func isProjectId(_ id: String) -> Bool { projectProblem(id) == nil }

    /// Returns `id` when it is a project id; INVALID_ARGUMENT naming the problem otherwise.
    @discardableResult
    public static func project(_ id: String) throws(EmulatorError) -> String {
        if let p = projectProblem(id) {
            throw EmulatorError.invalidArgument(
                "Project id '\(shown(id))' is invalid: \(p). Project ids are 1-\(maxProjectLength) characters of lowercase letters, digits and hyphens, starting with a letter or digit."
            )
        }
        return id
    }

    /// Returns `id` when it is a database id; INVALID_ARGUMENT naming the problem otherwise.
    @discardableResult
    public static func database(_ id: String) throws(EmulatorError) -> String {
        if let p = databaseProblem(id) {
            throw EmulatorError.invalidArgument(
                "Database id '\(shown(id))' is invalid: \(p). Database ids are '(default)' or 1-\(maxDatabaseLength) characters of lowercase letters, digits and hyphens, starting with a letter or digit."
            )
        }
        return id
    }

    static func problem(_ id: String, max: Int) -> String? {
        let u = id.utf8
        guard let first = u.first else { return "it is empty" }
        guard u.count <= max else { return "it is longer than \(max) characters" }
        func allowed(_ c: UInt8) -> Bool { (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) || c == 0x2D }
        // Over the bytes: the generic `utf8` walk cost each call about 200 instructions.
        if let bad = id.withUTF8Bytes({ $0.first(where: { !allowed($0) }) }) {
            if bad == 0 { return "it contains a NUL character" }
            if bad < 0x20 || bad == 0x7F { return "it contains a control character" }
            if bad == 0x2F { return "it contains '/'" }
            if bad >= 0x41 && bad <= 0x5A { return "it contains upper-case letters" }
            if bad >= 0x80 { return "it contains non-ASCII characters" }
            return "it contains '\(Character(Unicode.Scalar(bad)))'"
        }
        guard first != 0x2D else { return "it starts with a hyphen" }
        return nil
    }

    /// The id as shown in messages: control characters escaped, at most 120 characters.
    public static func shown(_ id: String) -> String {
        var out = ""
        for s in id.unicodeScalars.prefix(120) {
            if s.value < 0x20 || s.value == 0x7F { out += "\\u{\(String(s.value, radix: 16))}" } else { out.unicodeScalars.append(s) }
        }
        return id.unicodeScalars.count > 120 ? out + "…" : out
    }
}
