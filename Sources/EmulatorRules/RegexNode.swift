/// A parsed rules regular expression (RE2 syntax), before compilation into a `RegexProgram`.
/// Public for the `regex` fuzz target, whose reference matcher walks it.
public indirect enum RegexNode: Sendable {
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
    /// One after the other.
    case concat([RegexNode])
    /// Alternatives, the earlier preferred (leftmost-first, as RE2 and Perl).
    case alternate([RegexNode])
    /// `* + ? {n} {n,} {n,m}`; `max` nil means unbounded; `greedy` after `(?U)` is applied.
    case repetition(RegexNode, min: Int, max: Int?, greedy: Bool)
}

/// Zero-width tests. Without `(?m)`, `^` is `beginText` and `$` is `endText` (RE2 matches `$`
/// only at the very end, not before a final newline).
public enum RegexAssertion: UInt8, Sendable {
    /// `\A`, and `^` without `(?m)`.
    case beginText
    /// `\z`, and `$` without `(?m)`.
    case endText
    /// `^` under `(?m)`: the start, or after `\n`.
    case beginLine
    /// `$` under `(?m)`: the end, or before `\n`.
    case endLine
    /// `\b` and `\B`: ASCII word characters (`[0-9A-Za-z_]`) on one side and not the other.
    case wordBoundary, notWordBoundary
}
