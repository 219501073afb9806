/// A lexical token of the rules language.
struct Token: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case identifier(String)
        case int(Int64)
        case float(Double)
        case string(String)
        case bytes([UInt8])
        /// Operators and punctuation, e.g. `&&`, `{`, `$(`.
        case symbol(String)
        case end
    }
    var kind: Kind
    /// Byte offset of the first character.
    var offset: Int
    var line: Int
    var column: Int

    /// True for the given punctuation.
    func isSymbol(_ s: String) -> Bool { kind == .symbol(s) }
    /// True for the given identifier or keyword.
    func isWord(_ w: String) -> Bool { kind == .identifier(w) }

    var text: String {
        switch kind {
        case .identifier(let s): return s
        case .int(let i): return String(i)
        case .float(let d): return String(d)
        case .string(let s): return "'\(s)'"
        case .bytes: return "b'...'"
        case .symbol(let s): return s
        case .end: return "end of file"
        }
    }
}
