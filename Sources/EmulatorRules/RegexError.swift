/// Why a rules regular expression was refused: RE2's error kind and the text it names, and where
/// in the pattern (in Unicode scalars) the problem starts, so that a pattern written as a string
/// literal in a ruleset can be reported at its line and column.
public struct RegexError: Error, Sendable, Equatable {
    /// RE2's error kinds, worded as RE2 words them (`invalid escape sequence`, `missing )`, ...).
    public enum Kind: String, Sendable {
        /// `\1`, `\e`, `\C`, ...
        case badEscape = "invalid escape sequence"
        /// A malformed class.
        case badCharClass = "invalid character class"
        /// `[z-a]`, `[a-\d]`, `[[:foo:]]`, `\p{Foo}`.
        case badCharRange = "invalid character class range"
        /// `[a`.
        case missingBracket = "missing ]"
        /// `(a`.
        case missingParen = "missing )"
        /// `a)`.
        case unexpectedParen = "unexpected )"
        /// A pattern ending in `\`.
        case trailingBackslash = "trailing \\"
        /// `*a`, `(?i)*`.
        case repeatArgument = "no argument for repetition operator"
        /// `a{1001}`, `a{5,2}`.
        case repeatSize = "invalid repetition size"
        /// `a**`, `a*+` (possessive).
        case repeatOp = "bad repetition operator"
        /// `(?=`, `(?<!`, `(?>`, `(?x)`.
        case badPerlOp = "invalid perl operator"
        /// `(?P<>`, `(?P=name)`, a duplicate name.
        case badNamedCapture = "invalid named capture group"
        /// More than `RegexProgram.maxInstructions`, or too much case-folding work.
        case patternTooLarge = "pattern too large - compile failed"
        /// More than `RegexParser.maxDepth` nested groups.
        case nestingDepth = "expression nested too deeply"
    }

    /// The kind of problem.
    public var kind: Kind
    /// The offending part of the pattern (`\1`, `(?=`, `{1001}`), empty when the kind says it all.
    public var text: String
    /// Offset of the problem in the pattern, in Unicode scalars from 0.
    public var offset: Int
    /// Why RE2 refuses it, when that is not obvious (back-references, look-arounds).
    public var hint: String?

    /// RE2's message: `missing ): (a`, with a hint for features RE2 leaves out on purpose.
    public var reason: String {
        (text.isEmpty ? kind.rawValue : "\(kind.rawValue): \(text)") + (hint.map { " (\($0))" } ?? "")
    }

    /// The message rules errors and diagnostics show.
    public func message(pattern: String) -> String {
        "invalid regular expression \(RegexError.quote(pattern)): \(reason), at character \(offset + 1) of the pattern"
    }

    /// `"pattern"` as written (backslashes not doubled), shortened to 80 characters.
    static func quote(_ s: String) -> String {
        let scalars = s.unicodeScalars
        guard scalars.count > 80 else { return "\"" + s + "\"" }
        return "\"" + String(String.UnicodeScalarView(scalars.prefix(80))) + "…\""
    }
}
