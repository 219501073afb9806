/// Parses RE2 syntax, as the rules' `matches`, `replace` and `split` take it, into a `RegexNode`.
/// What RE2 refuses is refused here with RE2's error and the offset of the offending text:
/// back-references (`\1`), look-arounds (`(?=`, `(?<!`), atomic groups and comments, possessive
/// and stacked quantifiers (`a*+`, `a**`), `\C`, repetition counts over 1000, unknown escapes
/// and Unicode classes, unbalanced brackets and parentheses.
///
/// Where RE2 and RE2/J (the Java port the Firestore emulator's rules engine uses) differ, the
/// emulator's answer wins: nested counts whose product exceeds 1000 (`(a{10}){101}`, refused by
/// RE2) are accepted, as are `\é` (an escaped non-ASCII character is itself) and `(?)`.
/// `RegexProgram.maxInstructions` bounds what nested counts can expand to.
struct RegexParser {
    /// The flags of `(?imsU)`, scoped to the enclosing group.
    struct Flags {
        /// `i`: case-insensitive (simple case folding).
        var fold = false
        /// `m`: `^`/`$` also match at line starts and ends.
        var multiLine = false
        /// `s`: `.` matches `\n`.
        var dotNL = false
        /// `U`: `x*` is lazy and `x*?` greedy.
        var ungreedy = false
    }

    /// The pattern's scalars (offsets in errors count these).
    let p: [Unicode.Scalar]
    /// The pattern as given.
    let text: String
    /// The position being read.
    var i = 0
    /// Capturing groups seen so far (the next gets `captures + 1`).
    var captures = 0
    /// Named groups → index.
    var names: [String: Int] = [:]
    /// Groups open around the position.
    var depth = 0
    /// Work done so far: scalars read plus folding scalars looked at (see `maxWork`).
    var work = 0

    /// RE2's limit on `{n,m}` counts.
    static let maxRepeat = 1000
    /// Group nesting limit, ours (Go stops at 1000, RE2/J not at all): parsing, compiling and
    /// freeing recurse once or more per level, and 200 levels stay within a 2 MiB stack in a
    /// debug build (500 did not), a tenth of the 8 MiB request handlers have. Real patterns
    /// nest a few levels.
    static let maxDepth = 200
    /// Parsing work limit: a pattern built from request data cannot make compiling slow (folding
    /// `(?i)[\x{0}-\x{10FFFF}]` looks at every folding scalar, about 2,800).
    static let maxWork = 1_000_000

    /// A parser for `pattern`.
    init(_ pattern: String) {
        text = pattern
        p = Array(pattern.unicodeScalars)
    }

    /// Parses the whole pattern.
    mutating func parse() throws(RegexError) -> RegexNode {
        var flags = Flags()
        let node = try parseAlternation(&flags)
        if i < p.count { throw RegexError(kind: .unexpectedParen, text: text, offset: i) }
        work += p.count
        return node
    }

    /// `ranges` closed under case folding, counting the work.
    mutating func folded(_ ranges: [ClosedRange<UInt32>]) throws(RegexError) -> [ClosedRange<UInt32>] {
        let out = RegexCharClass.caseClosed(ranges, work: &work)
        if work > Self.maxWork { throw RegexError(kind: .patternTooLarge, text: "", offset: i, hint: "case-folding its classes takes too long") }
        return out
    }

    /// The scalar `k` after the position, or nil past the end.
    func peek(_ k: Int = 0) -> Unicode.Scalar? { i + k < p.count ? p[i + k] : nil }

    /// The pattern text between two offsets (clamped), for error messages.
    func slice(_ from: Int, _ to: Int) -> String {
        let a = max(0, min(from, p.count)), b = max(a, min(to, p.count))
        return String(String.UnicodeScalarView(p[a..<b]))
    }

    /// `a|b|c` up to a `)` or the end.
    mutating func parseAlternation(_ flags: inout Flags) throws(RegexError) -> RegexNode {
        var branches: [RegexNode] = []
        while true {
            branches.append(try parseConcat(&flags))
            guard peek() == "|" else { break }
            i += 1
        }
        return branches.count == 1 ? branches[0] : .alternate(branches)
    }

    /// Atoms and their repetition operators up to `|`, `)` or the end.
    mutating func parseConcat(_ flags: inout Flags) throws(RegexError) -> RegexNode {
        var items: [RegexNode] = []
        var operand = false  // whether the last thing parsed can take a repetition operator
        var lastRepeat: Int?  // where the last item's operator started, to refuse `a**`
        while let c = peek(), c != "|", c != ")" {
            if let op = try parseRepeatOperator(flags) {
                if let prev = lastRepeat {
                    throw RegexError(
                        kind: .repeatOp, text: slice(prev, i), offset: prev,
                        hint: p[op.start] == "+" ? "possessive quantifiers are not supported" : nil)
                }
                guard operand, let last = items.popLast() else {
                    throw RegexError(kind: .repeatArgument, text: slice(op.start, i), offset: op.start)
                }
                items.append(.repetition(last, min: op.min, max: op.max, greedy: op.greedy))
                lastRepeat = op.start
                continue
            }
            lastRepeat = nil
            let before = items.count
            try parseAtom(&flags, into: &items)
            operand = items.count > before
        }
        switch items.count {
        case 0: return .empty
        case 1: return items[0]
        default: return .concat(items)
        }
    }

    /// A repetition operator at the current position, consumed, or nil (then nothing is consumed).
    struct RepeatOp {
        /// Where the operator starts.
        var start: Int
        /// At least this many.
        var min: Int
        /// At most this many; nil for no bound.
        var max: Int?
        /// Whether more iterations are preferred (after `?` and `(?U)`).
        var greedy: Bool
    }

    /// Reads `*`, `+`, `?`, `{n,m}` and a lazy `?` after them.
    mutating func parseRepeatOperator(_ flags: Flags) throws(RegexError) -> RepeatOp? {
        guard let c = peek() else { return nil }
        let start = i
        var op: RepeatOp
        switch c {
        case "*":
            op = RepeatOp(start: start, min: 0, max: nil, greedy: true)
            i += 1
        case "+":
            op = RepeatOp(start: start, min: 1, max: nil, greedy: true)
            i += 1
        case "?":
            op = RepeatOp(start: start, min: 0, max: 1, greedy: true)
            i += 1
        case "{":
            guard let (lo, hi, end) = scanCount(from: i) else { return nil }
            i = end
            if lo > Self.maxRepeat || (hi ?? lo) > Self.maxRepeat || hi.map({ $0 < lo }) == true {
                throw RegexError(
                    kind: .repeatSize, text: slice(start, i), offset: start,
                    hint: lo > Self.maxRepeat || (hi ?? 0) > Self.maxRepeat ? "RE2 allows at most \(Self.maxRepeat)" : nil)
            }
            op = RepeatOp(start: start, min: lo, max: hi, greedy: true)
        default: return nil
        }
        if peek() == "?" {
            op.greedy = false
            i += 1
        }
        if flags.ungreedy { op.greedy.toggle() }
        return op
    }

    /// `{n}`, `{n,}` or `{n,m}` at `from`: the counts and the index after `}`; nil when the text
    /// is not a repetition (RE2 then reads `{` as a literal, as in `a{,2}` or `a{x}`).
    func scanCount(from: Int) -> (Int, Int?, Int)? {
        var k = from + 1
        func number() -> Int? {
            var n = 0, digits = 0
            while k < p.count, let d = Self.digit(p[k]) {
                n = min(n * 10 + d, 100_000)
                digits += 1
                k += 1
            }
            return digits > 0 ? n : nil
        }
        guard let lo = number() else { return nil }
        var hi: Int? = lo
        if k < p.count, p[k] == "," {
            k += 1
            hi = k < p.count && p[k] == "}" ? nil : number()
            if hi == nil, !(k < p.count && p[k] == "}") { return nil }
        }
        guard k < p.count, p[k] == "}" else { return nil }
        return (lo, hi, k + 1)
    }

    /// The value of an ASCII digit.
    static func digit(_ c: Unicode.Scalar) -> Int? {
        c.value >= 0x30 && c.value <= 0x39 ? Int(c.value - 0x30) : nil
    }

    /// Parses one atom and appends it (nothing for `(?i)`, several literals for `\Q...\E`).
    mutating func parseAtom(_ flags: inout Flags, into items: inout [RegexNode]) throws(RegexError) {
        guard let c = peek() else { return }
        switch c {
        case "(":
            if let group = try parseGroup(&flags) { items.append(group) }
        case "[":
            let cls = try parseClass(flags)
            items.append(.charClass(cls))
        case ".":
            i += 1
            items.append(.any(dotNL: flags.dotNL))
        case "^":
            i += 1
            items.append(.assertion(flags.multiLine ? .beginLine : .beginText))
        case "$":
            i += 1
            items.append(.assertion(flags.multiLine ? .endLine : .endText))
        case "\\":
            try parseEscapeAtom(flags, into: &items)
        case "{":
            // Not a repetition (parseRepeatOperator declined it): a literal brace.
            i += 1
            items.append(literal(c.value, flags))
        default:
            i += 1
            items.append(literal(c.value, flags))
        }
    }

    /// A literal scalar, or the class of its case orbit under `(?i)`.
    mutating func literal(_ c: UInt32, _ flags: Flags) -> RegexNode {
        guard flags.fold, let orbit = RegexCaseFolding.orbit(c) else { return .literal(c) }
        return .charClass(makeClass(ranges: orbit.map { $0...$0 }))
    }

    /// A class, counting the work of precomputing its ASCII answers.
    mutating func makeClass(ranges: [ClosedRange<UInt32>], predicates: [RegexCharClass.Predicate] = [], negated: Bool = false) -> RegexCharClass {
        work += predicates.isEmpty ? 8 : 128
        return RegexCharClass(ranges: ranges, predicates: predicates, negated: negated)
    }

    /// `(...)`, `(?:...)`, `(?P<name>...)`, `(?<name>...)`, `(?flags)`, `(?flags:...)`. Returns
    /// nil for `(?flags)`, which changes `flags` for the rest of the enclosing group.
    mutating func parseGroup(_ flags: inout Flags) throws(RegexError) -> RegexNode? {
        let open = i
        i += 1
        var inner = flags
        var captureIndex: Int?
        if peek() == "?" {
            let next = peek(1)
            if next == "<", peek(2) == "=" || peek(2) == "!" {
                throw RegexError(kind: .badPerlOp, text: slice(open, i + 3), offset: open, hint: "look-behind is not supported")
            }
            if next == "P" || next == "<" {
                captureIndex = try parseCaptureName(open)
            } else {
                guard try parseFlags(open, &inner) else {
                    flags = inner
                    return nil
                }
            }
        } else {
            captures += 1
            captureIndex = captures
        }
        depth += 1
        defer { depth -= 1 }
        if depth > Self.maxDepth { throw RegexError(kind: .nestingDepth, text: "", offset: open, hint: "more than \(Self.maxDepth) nested groups") }
        let body = try parseAlternation(&inner)
        guard peek() == ")" else { throw RegexError(kind: .missingParen, text: text, offset: open) }
        i += 1
        if let n = captureIndex { return .capture(n, body) }
        return body
    }

    /// After `(?P` or `(?<`: `<name>`; returns the new group's index.
    mutating func parseCaptureName(_ open: Int) throws(RegexError) -> Int {
        i += 2  // "?P" or "?<"
        if p[i - 1] == "P" {
            guard peek() == "<" else {
                // `(?P=name)` and `(?P>name)` are Python's back-reference and recursion.
                let hint = peek() == "=" ? "back-references are not supported" : nil
                throw RegexError(kind: .badNamedCapture, text: slice(open, i + 1), offset: open, hint: hint)
            }
            i += 1
        }
        let nameStart = i
        while let c = peek(), c != ">" { i += 1 }
        guard peek() == ">" else { throw RegexError(kind: .badNamedCapture, text: slice(open, i), offset: open) }
        let name = slice(nameStart, i)
        i += 1
        let valid =
            !name.isEmpty && name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || Self.digit($0) != nil || $0 == "_") }
        guard valid, names[name] == nil else {
            throw RegexError(kind: .badNamedCapture, text: slice(open, i), offset: open, hint: valid ? "duplicate name" : nil)
        }
        captures += 1
        names[name] = captures
        return captures
    }

    /// After `(?`: flags up to `)` (returns false: they apply from here on) or `:` (returns
    /// true: a non-capturing group follows with `flags` changed). Look-arounds, atomic groups,
    /// comments and anything else end up here and are refused.
    mutating func parseFlags(_ open: Int, _ flags: inout Flags) throws(RegexError) -> Bool {
        i += 1  // "?"
        var negate = false, sawFlag = false
        while let c = peek() {
            i += 1
            switch c {
            case "i": flags.fold = !negate
            case "m": flags.multiLine = !negate
            case "s": flags.dotNL = !negate
            case "U": flags.ungreedy = !negate
            case "-" where !negate:
                negate = true
                sawFlag = false
                continue
            case ":", ")":
                // `(?-)` and `(?i-:` are errors; `(?:` is a plain group, `(?)` an empty one.
                if negate && !sawFlag {
                    throw RegexError(kind: .badPerlOp, text: slice(open, i), offset: open)
                }
                return c == ":"
            default:
                throw RegexError(kind: .badPerlOp, text: slice(open, i), offset: open, hint: Self.perlHint(slice(open, i)))
            }
            sawFlag = true
        }
        throw RegexError(kind: .missingParen, text: text, offset: open)
    }

    /// Why RE2 leaves out a Perl construct.
    static func perlHint(_ op: String) -> String? {
        if op.hasPrefix("(?=") || op.hasPrefix("(?!") { return "look-ahead is not supported" }
        if op.hasPrefix("(?>") { return "atomic groups are not supported" }
        if op.hasPrefix("(?#") { return "comments are not supported" }
        return nil
    }
}
