/// Why a rules regular expression was refused: RE2's error kind and the text it names, and where
/// in the pattern (in Unicode scalars) the problem starts, so that a pattern written as a string
/// literal in a ruleset can be reported at its line and column.
struct RegexError: Error, Sendable, Equatable {
    /// RE2's error kinds, worded as RE2 words them (`invalid escape sequence`, `missing )`, ...).
    enum Kind: String, Sendable {
        case badEscape = "invalid escape sequence"
        case badCharClass = "invalid character class"
        case badCharRange = "invalid character class range"
        case missingBracket = "missing ]"
        case missingParen = "missing )"
        case unexpectedParen = "unexpected )"
        case trailingBackslash = "trailing \\"
        case repeatArgument = "no argument for repetition operator"
        case repeatSize = "invalid repetition size"
        case repeatOp = "bad repetition operator"
        case badPerlOp = "invalid perl operator"
        case badNamedCapture = "invalid named capture group"
        case patternTooLarge = "pattern too large - compile failed"
        case nestingDepth = "expression nested too deeply"
    }

    /// The kind of problem.
    var kind: Kind
    /// The offending part of the pattern (`\1`, `(?=`, `{1001}`), empty when the kind says it all.
    var text: String
    /// Offset of the problem in the pattern, in Unicode scalars from 0.
    var offset: Int
    /// Why RE2 refuses it, when that is not obvious (back-references, look-arounds).
    var hint: String?

    /// RE2's message: `missing ): (a`, with a hint for features RE2 leaves out on purpose.
    var reason: String {
        (text.isEmpty ? kind.rawValue : "\(kind.rawValue): \(text)") + (hint.map { " (\($0))" } ?? "")
    }

    /// The message rules errors and diagnostics show.
    func message(pattern: String) -> String {
        "invalid regular expression \(RegexError.quote(pattern)): \(reason), at character \(offset + 1) of the pattern"
    }

    /// `"pattern"` as written (backslashes not doubled), shortened to 80 characters.
    static func quote(_ s: String) -> String {
        let scalars = s.unicodeScalars
        guard scalars.count > 80 else { return "\"" + s + "\"" }
        return "\"" + String(String.UnicodeScalarView(scalars.prefix(80))) + "…\""
    }
}
