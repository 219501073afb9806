/// A parsed rules regular expression (RE2 syntax), before compilation into a `RegexProgram`.
indirect enum RegexNode: Sendable {
    /// Matches the empty string (`()`, `a|`, `x{0}`).
    case empty
    /// One scalar, exactly.
    case literal(UInt32)
    /// One scalar in the class.
    case charClass(RegexCharClass)
    /// `.`: any scalar, or any but `\n` unless `(?s)`.
    case any(dotNL: Bool)
    /// A zero-width test (`^ $ \A \z \b \B`).
    case assertion(RegexAssertion)
    /// `( ... )`: group `index` (1-based) captures what the node matched.
    case capture(Int, RegexNode)
    case concat([RegexNode])
    /// Alternatives, the earlier preferred (leftmost-first, as RE2 and Perl).
    case alternate([RegexNode])
    /// `* + ? {n} {n,} {n,m}`; `max` nil means unbounded; `greedy` after `(?U)` is applied.
    case repetition(RegexNode, min: Int, max: Int?, greedy: Bool)
}

/// Zero-width tests. Without `(?m)`, `^` is `beginText` and `$` is `endText` (RE2 matches `$`
/// only at the very end, not before a final newline).
enum RegexAssertion: UInt8, Sendable {
    case beginText, endText, beginLine, endLine
    /// `\b` and `\B`: ASCII word characters (`[0-9A-Za-z_]`) on one side and not the other.
    case wordBoundary, notWordBoundary
}
