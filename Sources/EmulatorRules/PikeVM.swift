/// Runs a `RegexProgram` over Unicode scalars by simulating every NFA thread in lock step (Pike's
/// VM, as RE2 does when it needs submatches): each input position is visited once and each
/// instruction at most once per position, so a search costs O(input × program) whatever the
/// pattern; `(a+)+$` cannot backtrack because nothing does. Threads are kept in priority order
/// and a match cuts off the lower-priority ones, which gives RE2's leftmost-first submatches.
///
/// Each instruction visit costs one unit of `budget`; running out throws. A value type used on
/// one thread at a time: its thread lists are scratch space, allocated once and reused by every
/// search (a sparse set needs no clearing), so that many searches over one string (`split`,
/// `replace`) cost their steps, not a program-sized allocation each.
struct PikeVM {
    let program: RegexProgram
    /// Slots recorded per thread: 0 for a yes/no answer, 2 for the match bounds, 2(k+1) for
    /// groups up to k.
    let slots: Int
    var clist: ThreadList
    var nlist: ThreadList
    var work: [Int]
    var stack: [Job] = []

    init(program: RegexProgram, slots: Int) {
        self.program = program
        self.slots = slots
        clist = ThreadList(size: program.insts.count, slots: slots)
        nlist = clist
        work = Array(repeating: -1, count: slots)
    }

    /// The budget ran out before the search ended.
    struct BudgetExceeded: Error {}

    /// A sparse set of program counters in insertion (= priority) order, with each entry's slots.
    struct ThreadList {
        var sparse: [Int32]
        var dense: [Int32]
        var count = 0
        var caps: [Int]

        init(size: Int, slots: Int) {
            sparse = Array(repeating: 0, count: size)
            dense = Array(repeating: 0, count: size)
            caps = Array(repeating: -1, count: size * slots)
        }

        func contains(_ pc: Int) -> Bool {
            let d = Int(sparse[pc])
            return d < count && Int(dense[d]) == pc
        }

        /// Adds `pc`; returns its entry index.
        mutating func insert(_ pc: Int) -> Int {
            sparse[pc] = Int32(count)
            dense[count] = Int32(pc)
            count += 1
            return count - 1
        }
    }

    /// A pending step of `addThread`: follow `pc`, or put a slot back after the branch that set it.
    enum Job {
        case visit(Int)
        case restore(slot: Int, value: Int)
    }

    /// Searches `input` from `start` for the leftmost-first match. `anchored`: only a match
    /// starting at `start`; `full`: only one ending at the end of `input`. Returns the slots of
    /// the match (`[start, end, group 1 start, ...]`, -1 for groups that did not take part), or nil.
    mutating func search(_ input: [Unicode.Scalar], from start: Int, anchored: Bool, full: Bool, budget: inout Int) throws(BudgetExceeded) -> [Int]? {
        clist.count = 0
        var matched: [Int]?
        var spent = 0
        var pos = start
        let n = input.count
        while true {
            if matched == nil, !anchored || pos == start {
                // A new thread starting here, after (below) every thread already running.
                for k in 0..<slots { work[k] = -1 }
                Self.addThread(program, slots, &clist, 0, &work, pos, input, &stack, &spent)
            }
            if clist.count == 0 { break }
            let c: UInt32? = pos < n ? input[pos].value : nil
            nlist.count = 0
            var k = 0
            threads: while k < clist.count {
                let pc = Int(clist.dense[k])
                spent += 1
                let consumed: Bool
                switch program.insts[pc] {
                case .char(let v): consumed = c == v
                case .charClass(let idx): consumed = c.map { program.classes[idx].contains($0) } ?? false
                case .any: consumed = c != nil
                case .anyNotNL: consumed = c != nil && c != 10
                case .match:
                    if full && pos != n {
                        consumed = false
                        break
                    }
                    matched = Array(clist.caps[(k * slots)..<(k * slots + slots)])
                    // Lower-priority threads lose to this match.
                    break threads
                default: consumed = false
                }
                if consumed {
                    for s in 0..<slots { work[s] = clist.caps[k * slots + s] }
                    Self.addThread(program, slots, &nlist, pc + 1, &work, pos + 1, input, &stack, &spent)
                }
                k += 1
            }
            if spent > budget {
                budget = 0
                throw BudgetExceeded()
            }
            if pos >= n { break }
            swap(&clist, &nlist)
            pos += 1
            if clist.count == 0, matched != nil || anchored { break }
        }
        budget -= spent
        return matched
    }

    /// Adds the thread at `pc` (and every thread its jumps, splits, saves and passing assertions
    /// lead to, in priority order) to `list`, at position `pos`. Iterative: the program may be
    /// long chains of epsilon steps.
    static func addThread(_ program: RegexProgram, _ slots: Int, _ list: inout ThreadList, _ pc0: Int, _ work: inout [Int], _ pos: Int,
                          _ input: [Unicode.Scalar], _ stack: inout [Job], _ spent: inout Int) {
        stack.append(.visit(pc0))
        while let job = stack.popLast() {
            let pc: Int
            switch job {
            case .restore(let slot, let value):
                work[slot] = value
                continue
            case .visit(let p): pc = p
            }
            if list.contains(pc) { continue }
            let entry = list.insert(pc)
            spent += 1
            switch program.insts[pc] {
            case .jump(let to): stack.append(.visit(to))
            case .split(let x, let y):
                stack.append(.visit(y))
                stack.append(.visit(x))
            case .save(let slot):
                if slot < slots {
                    stack.append(.restore(slot: slot, value: work[slot]))
                    work[slot] = pos
                }
                stack.append(.visit(pc + 1))
            case .assert(let a):
                if holds(a, input, pos) { stack.append(.visit(pc + 1)) }
            case .char, .charClass, .any, .anyNotNL, .match:
                for s in 0..<slots { list.caps[entry * slots + s] = work[s] }
            }
        }
    }

    /// Whether a zero-width test holds between `input[pos - 1]` and `input[pos]`.
    static func holds(_ a: RegexAssertion, _ input: [Unicode.Scalar], _ pos: Int) -> Bool {
        let n = input.count
        switch a {
        case .beginText: return pos == 0
        case .endText: return pos == n
        case .beginLine: return pos == 0 || input[pos - 1] == "\n"
        case .endLine: return pos == n || input[pos] == "\n"
        case .wordBoundary, .notWordBoundary:
            let before = pos > 0 && isWord(input[pos - 1].value)
            let after = pos < n && isWord(input[pos].value)
            return (before != after) == (a == .wordBoundary)
        }
    }

    /// RE2's `\b` word characters: ASCII letters, digits and `_`.
    static func isWord(_ c: UInt32) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F
    }
}
