/// A rules regular expression compiled for the `PikeVM`: a Thompson NFA as a list of
/// instructions, where `split` lists its preferred branch first (leftmost-first priorities, as
/// in RE2). Slot `2k` and `2k+1` of a thread hold where group `k` started and ended (group 0 is
/// the whole match). Immutable.
struct RegexProgram: Sendable {
    /// An instruction.
    enum Inst: Sendable {
        /// Consumes this scalar.
        case char(UInt32)
        /// Consumes a scalar of `classes[index]`.
        case charClass(Int)
        /// Consumes any scalar.
        case any
        /// Consumes any scalar but `\n`.
        case anyNotNL
        /// Continues at both, the first preferred.
        case split(Int, Int)
        /// Continues there.
        case jump(Int)
        /// Records the position in a slot, then continues.
        case save(Int)
        /// Continues when the zero-width test holds here.
        case assert(RegexAssertion)
        /// The thread has matched.
        case match
    }

    /// The program.
    let insts: [Inst]
    /// The classes `charClass` instructions refer to.
    let classes: [RegexCharClass]
    /// Capturing groups, not counting group 0.
    let captureCount: Int
    /// Named groups → index.
    let names: [String: Int]

    /// Our bound on program size. RE2 bounds its programs by memory (8 MiB by default) and says
    /// "pattern too large - compile failed"; a class is one instruction here, many there, so
    /// the numbers differ, but only for patterns like `(x{1000}){1000}`-sized expansions, which
    /// the repetition limit already refuses, or hundreds of counted groups.
    static let maxInstructions = 100_000

    /// Compiles `node`: `save 0, node, save 1, match`. Refuses programs over `maxInstructions`
    /// before building them (counted repetitions copy their operand).
    static func compile(_ node: RegexNode, captureCount: Int, names: [String: Int]) throws(RegexError) -> RegexProgram {
        let size = Self.size(node) + 3
        guard size <= maxInstructions else {
            throw RegexError(
                kind: .patternTooLarge, text: "", offset: 0,
                hint: "it needs \(size > 1_000_000_000 ? "over a billion" : String(size)) instructions; the limit is \(maxInstructions)")
        }
        var c = Compiler()
        c.insts.reserveCapacity(size)
        c.emit(.save(0))
        c.compile(node)
        c.emit(.save(1))
        c.emit(.match)
        return RegexProgram(insts: c.insts, classes: c.classes, captureCount: captureCount, names: names)
    }

    /// Instructions `node` compiles to (saturating, so that nested counts cannot overflow).
    static func size(_ node: RegexNode) -> Int {
        let cap = 1 << 40
        func mul(_ a: Int, _ b: Int) -> Int { a == 0 || b == 0 ? 0 : (a > cap / b ? cap : a * b) }
        switch node {
        case .empty: return 0
        case .literal, .charClass, .any, .assertion: return 1
        case .capture(_, let x): return min(cap, size(x) + 2)
        case .concat(let xs): return min(cap, xs.reduce(0) { min(cap, $0 + size($1)) })
        case .alternate(let xs): return min(cap, xs.reduce(0) { min(cap, $0 + size($1)) } + 2 * (xs.count - 1))
        case .repetition(let x, let lo, let hi, _):
            let s = size(x)
            guard let hi else { return lo == 0 ? min(cap, s + 2) : min(cap, mul(lo, s) + 1) }
            return min(cap, mul(lo, s) + mul(hi - lo, s + 1))
        }
    }

    /// Emits instructions for a node tree (recursion depth is bounded by the parser's group limit).
    struct Compiler {
        /// Emitted so far.
        var insts: [Inst] = []
        /// Classes so far.
        var classes: [RegexCharClass] = []

        /// Appends `i`; returns its index.
        @discardableResult
        mutating func emit(_ i: Inst) -> Int {
            insts.append(i)
            return insts.count - 1
        }

        /// Emits `node`.
        mutating func compile(_ node: RegexNode) {
            switch node {
            case .empty: break
            case .literal(let c): emit(.char(c))
            case .charClass(let cls):
                classes.append(cls)
                emit(.charClass(classes.count - 1))
            case .any(let dotNL): emit(dotNL ? .any : .anyNotNL)
            case .assertion(let a): emit(.assert(a))
            case .capture(let n, let x):
                emit(.save(2 * n))
                compile(x)
                emit(.save(2 * n + 1))
            case .concat(let xs):
                for x in xs { compile(x) }
            case .alternate(let xs):
                var jumps: [Int] = []
                for (k, x) in xs.enumerated() {
                    if k == xs.count - 1 {
                        compile(x)
                    } else {
                        let split = emit(.split(0, 0))
                        compile(x)
                        jumps.append(emit(.jump(0)))
                        insts[split] = .split(split + 1, insts.count)
                    }
                }
                for j in jumps { insts[j] = .jump(insts.count) }
            case .repetition(let x, let lo, let hi, let greedy):
                repetition(x, lo, hi, greedy)
            }
        }

        /// Emits `x{lo,hi}`: copies of `x` for the counts, a loop for no upper bound.
        mutating func repetition(_ x: RegexNode, _ lo: Int, _ hi: Int?, _ greedy: Bool) {
            guard let hi else {
                if lo == 0 {
                    // x* as (x+)?: split(L, out); L: body; split(L, out). Looping back to the
                    // first split instead would lose an empty iteration's place in priority
                    // order (that split is already visited), and `(|a)*` would match "aa"
                    // in "aa" rather than "" (RE2 compiles x* this way when x can be empty).
                    let first = emit(.split(0, 0))
                    let body = insts.count
                    compile(x)
                    let again = emit(.split(0, 0))
                    let out = insts.count
                    insts[first] = greedy ? .split(body, out) : .split(out, body)
                    insts[again] = greedy ? .split(body, out) : .split(out, body)
                } else {
                    for _ in 0..<(lo - 1) { compile(x) }
                    // L: body; split(L, out)
                    let body = insts.count
                    compile(x)
                    let split = emit(.split(0, 0))
                    insts[split] = greedy ? .split(body, split + 1) : .split(split + 1, body)
                }
                return
            }
            for _ in 0..<lo { compile(x) }
            // (x(x(x)?)?)? for the optional copies, every skip going to the common end.
            var splits: [Int] = []
            for _ in 0..<(hi - lo) {
                splits.append(emit(.split(0, 0)))
                compile(x)
            }
            let end = insts.count
            for s in splits { insts[s] = greedy ? .split(s + 1, end) : .split(end, s + 1) }
        }
    }
}
