/// A position in a rules source file (1-based line and column).
public struct SourceLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// File name as given when the ruleset was compiled.
    public var file: String
    /// 1-based line.
    public var line: Int
    /// 1-based column.
    public var column: Int

    /// Creates a location.
    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// `file:line:column`.
    public var description: String { "\(file):\(line):\(column)" }

    /// Orders by line, then column.
    public static func < (a: SourceLocation, b: SourceLocation) -> Bool { (a.line, a.column) < (b.line, b.column) }
}

/// A load-time problem: syntax errors, unknown functions and variables, arity, limits.
public struct Diagnostic: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where.
    public var location: SourceLocation
    /// What, in words.
    public var message: String
    /// The offending source line and a caret under the column.
    public var excerpt: String

    /// `file:line:col: error: message` followed by the excerpt.
    public var description: String { "\(location): error: \(message)\n\(excerpt)" }
}

/// Source text with line lookup, for excerpts.
struct SourceText: Sendable {
    let name: String
    let text: String
    let lines: [Substring]

    init(name: String, text: String) {
        self.name = name
        self.text = text
        self.lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    }

    /// The widest excerpt shown; longer lines are cut to a window around the caret.
    static let excerptWidth = 120

    func excerpt(_ loc: SourceLocation) -> String {
        guard loc.line >= 1, loc.line <= lines.count else { return "" }
        var line = Array(String(lines[loc.line - 1]).replacing("\t", with: " "))
        var caret = max(0, loc.column - 1)
        if line.count > Self.excerptWidth {
            // A generated or hostile file can put 200 KiB on one line; show the part that matters.
            let from = max(0, min(caret - Self.excerptWidth / 2, line.count - Self.excerptWidth))
            let to = min(line.count, from + Self.excerptWidth)
            line = (from > 0 ? ["…"] : []) + Array(line[from..<to]) + (to < line.count ? ["…"] : [])
            caret = caret - from + (from > 0 ? 1 : 0)
        }
        return "  " + String(line) + "\n  " + String(repeating: " ", count: caret) + "^"
    }

    func diagnostic(_ loc: SourceLocation, _ message: String) -> Diagnostic {
        Diagnostic(location: loc, message: message, excerpt: excerpt(loc))
    }
}
