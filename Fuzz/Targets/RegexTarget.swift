import EmulatorRules

/// The `regex` target: the rules' regular-expression engine (`RulesRegex`: RE2 syntax, Pike VM).
/// Input: `pattern NUL subject [NUL replacement]` (UTF-8, invalid bytes replaced). A pattern
/// that compiles is run on the subject by `matches`, `split` and `replace` within a cost budget
/// (nothing may trap or run away); on the first 12 scalars of the subject its answers must agree
/// with `ReferenceBacktracker`, a plain backtracking matcher over the same syntax tree: whether
/// the whole subject matches, and the bounds of the leftmost-first match. Compared only for
/// patterns in the safe subset (no repetition of something that can match empty), and not
/// where the backtracker runs out of steps (nested repetitions can take it exponential time).
public enum RegexTarget {
    /// Runs the target on `data`.
    public static func run(_ data: [UInt8]) throws(FuzzViolation) {
        let parts = data.split(separator: 0, maxSplits: 2, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        let pattern = parts[0]
        let subject = parts.count > 1 ? parts[1] : ""
        let replacement = parts.count > 2 ? parts[2] : "[$0]"
        let regex: RulesRegex
        do {
            regex = try RulesRegex.compile(pattern)
        } catch {
            guard error.offset >= 0, error.offset <= pattern.unicodeScalars.count, !error.reason.isEmpty else {
                throw FuzzViolation(.regex, "error offset \(error.offset) outside the pattern \(pattern.debugDescription)")
            }
            return
        }
        let input = Array(subject.unicodeScalars)
        for op in 0..<3 {
            var budget = 200_000
            switch op {
            case 0: _ = try? regex.wholeMatch(input, budget: &budget)
            case 1: _ = try? regex.split(input, budget: &budget)
            default: _ = try? regex.replace(input, with: replacement, budget: &budget)
            }
        }

        // The safe subset: where no repetition can iterate on the empty string. There RE2's
        // answers are those of any leftmost-first matcher; in `(x?|a)*` they are not Perl's
        // (RE2/J matches all of "xaa", Perl and a backtracker stop after "x"), and the
        // conformance table pins RE2/J's answers for such patterns instead.
        guard !ReferenceBacktracker.repeatsEmpty(regex.syntaxTree) else { return }
        let short = Array(input.prefix(12))
        let shown = "\(pattern.debugDescription) on \(String(String.UnicodeScalarView(short)).debugDescription)"
        var budget = Int.max
        let whole = try? regex.wholeMatch(short, budget: &budget)
        if let expected = ReferenceBacktracker(short).wholeMatch(regex.syntaxTree), whole != expected {
            throw FuzzViolation(.regex, "\(shown): whole match \(String(describing: whole)), the backtracker says \(expected)")
        }
        budget = Int.max
        let first = try? regex.firstMatch(short, budget: &budget)
        if let expected = ReferenceBacktracker(short).firstMatch(regex.syntaxTree), first != expected {
            throw FuzzViolation(.regex, "\(shown): first match \(String(describing: first)), the backtracker says \(String(describing: expected))")
        }
    }
}

/// A plain backtracking matcher over `RegexNode`, the oracle for the fuzz target: alternatives
/// and repetitions are tried in priority order (greedy: one more first; lazy: one fewer first),
/// so the first success is the leftmost-first match RE2 defines. An iteration past a
/// repetition's minimum that matches the empty string ends the loop there (Perl's rule: `(|a)+`
/// matches "" in "a", in RE2/J too). Gives up (nil) after `limit` steps. One use, one thread.
final class ReferenceBacktracker {
    /// The subject.
    let input: [Unicode.Scalar]
    /// Steps taken.
    var steps = 0
    /// Steps allowed.
    let limit = 100_000

    /// A matcher for `input`.
    init(_ input: [Unicode.Scalar]) { self.input = input }

    /// The step limit ran out.
    struct GaveUp: Error {}

    /// Whether the whole input matches; nil when the step limit ran out.
    func wholeMatch(_ node: RegexNode) -> Bool? {
        let n = input.count
        return try? match(node, 0) { $0 == n }
    }

    /// The leftmost-first match; `.some(nil)` for none, nil when the step limit ran out.
    func firstMatch(_ node: RegexNode) -> Range<Int>?? {
        do {
            for start in 0...input.count {
                var end = -1
                if try match(
                    node, start,
                    {
                        end = $0
                        return true
                    })
                {
                    return .some(start..<end)
                }
            }
            return .some(nil)
        } catch {
            return nil
        }
    }

    /// Matches `node` at `pos`, calling `k` with each end position in priority order until `k`
    /// accepts one.
    func match(_ node: RegexNode, _ pos: Int, _ k: (Int) throws(GaveUp) -> Bool) throws(GaveUp) -> Bool {
        steps += 1
        if steps > limit { throw GaveUp() }
        switch node {
        case .empty: return try k(pos)
        case .literal(let c): return pos < input.count && input[pos].value == c ? try k(pos + 1) : false
        case .charClass(let cls): return pos < input.count && cls.contains(input[pos].value) ? try k(pos + 1) : false
        case .any(let dotNL): return pos < input.count && (dotNL || input[pos] != "\n") ? try k(pos + 1) : false
        case .assertion(let a): return holds(a, pos) ? try k(pos) : false
        case .capture(_, let x): return try match(x, pos, k)
        case .concat(let xs): return try concat(xs[...], pos, k)
        case .alternate(let xs):
            for x in xs {
                if try match(x, pos, k) { return true }
            }
            return false
        case .repetition(let x, let lo, let hi, let greedy):
            return try repetition(x, lo, hi, greedy, 0, pos, k)
        }
    }

    /// Matches the sequence `xs`, then `k`.
    func concat(_ xs: ArraySlice<RegexNode>, _ pos: Int, _ k: (Int) throws(GaveUp) -> Bool) throws(GaveUp) -> Bool {
        guard let first = xs.first else { return try k(pos) }
        return try match(first, pos) { (p: Int) throws(GaveUp) -> Bool in try concat(xs.dropFirst(), p, k) }
    }

    /// Matches `x{lo,hi}` after `count` iterations, then `k`.
    func repetition(
        _ x: RegexNode, _ lo: Int, _ hi: Int?, _ greedy: Bool, _ count: Int, _ pos: Int,
        _ k: (Int) throws(GaveUp) -> Bool
    ) throws(GaveUp) -> Bool {
        func more() throws(GaveUp) -> Bool {
            guard hi.map({ count < $0 }) ?? true else { return false }
            return try match(x, pos) { (p: Int) throws(GaveUp) -> Bool in
                // An empty iteration past the minimum ends the loop (looping again would too).
                if p == pos && count >= lo { return try k(p) }
                return try repetition(x, lo, hi, greedy, count + 1, p, k)
            }
        }
        func stop() throws(GaveUp) -> Bool { count >= lo ? try k(pos) : false }
        if greedy {
            if try more() { return true }
            return try stop()
        }
        if try stop() { return true }
        return try more()
    }

    /// Whether some repetition in `node` has an operand that can match the empty string.
    static func repeatsEmpty(_ node: RegexNode) -> Bool {
        switch node {
        case .empty, .literal, .charClass, .any, .assertion: return false
        case .capture(_, let x): return repeatsEmpty(x)
        case .concat(let xs), .alternate(let xs): return xs.contains(where: repeatsEmpty)
        case .repetition(let x, _, _, _): return nullable(x) || repeatsEmpty(x)
        }
    }

    /// Whether `node` can match the empty string.
    static func nullable(_ node: RegexNode) -> Bool {
        switch node {
        case .empty, .assertion: return true
        case .literal, .charClass, .any: return false
        case .capture(_, let x): return nullable(x)
        case .concat(let xs): return xs.allSatisfy(nullable)
        case .alternate(let xs): return xs.contains(where: nullable)
        case .repetition(let x, let lo, _, _): return lo == 0 || nullable(x)
        }
    }

    /// Whether a zero-width test holds at `pos`.
    func holds(_ a: RegexAssertion, _ pos: Int) -> Bool {
        func word(_ i: Int) -> Bool {
            guard i >= 0, i < input.count else { return false }
            let c = input[i].value
            return c == 0x5F || (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
        }
        switch a {
        case .beginText: return pos == 0
        case .endText: return pos == input.count
        case .beginLine: return pos == 0 || input[pos - 1] == "\n"
        case .endLine: return pos == input.count || input[pos] == "\n"
        case .wordBoundary: return word(pos - 1) != word(pos)
        case .notWordBoundary: return word(pos - 1) == word(pos)
        }
    }
}
