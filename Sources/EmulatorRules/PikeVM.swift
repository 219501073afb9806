/// Runs a `RegexProgram` over Unicode scalars by simulating every NFA thread in lock step (Pike's
/// VM, as RE2 does when it needs submatches): each input position is visited once and each
/// instruction at most once per position, so a search costs O(input × program) whatever the
/// pattern; `(a+)+$` cannot backtrack because nothing does. Threads are kept in priority order
/// and a match cuts off the lower-priority ones, which gives RE2's leftmost-first submatches.
///
/// Each instruction visit costs one unit of `budget`; running out throws. Used by one thread at a
/// time. The program is copied into flat buffers and the thread lists are allocated once, at
/// creation, and reused by every search (a sparse set needs no clearing), so that the inner loop
/// touches no reference counts: a step costs a few nanoseconds, where `Array`s of enums cost
/// tens. Every index into these buffers is a program counter or slot number that
/// `RegexProgram` produced and `init` checked against the buffer sizes, or a position below
/// `input.count`.
final class PikeVM {
    /// The budget ran out before the search ended.
    struct BudgetExceeded: Error {}

    /// Opcodes of the flattened program.
    enum Op {
        /// The opcodes, one per `RegexProgram.Inst` case, and `fail` for an instruction that
        /// failed the checks (never produced by the compiler).
        static let char: UInt8 = 0, charClass: UInt8 = 1, any: UInt8 = 2, anyNotNL: UInt8 = 3
        static let split: UInt8 = 4, jump: UInt8 = 5, save: UInt8 = 6, assert: UInt8 = 7, match: UInt8 = 8, fail: UInt8 = 9
    }

    /// The program's classes (for scalars beyond ASCII).
    let classes: [RegexCharClass]
    /// Slots recorded per thread: 0 for a yes/no answer, 2 for the match bounds, 2(k+1) for
    /// groups up to k.
    let slots: Int
    /// Instructions in the program.
    let size: Int
    /// Each instruction's opcode (`Op`).
    let op: UnsafeMutablePointer<UInt8>
    /// Each instruction's operand: scalar, class index, target, slot or assertion.
    let x: UnsafeMutablePointer<Int32>
    /// A split's second target.
    let y: UnsafeMutablePointer<Int32>
    /// Each class's answers for ASCII (the common case, without a call).
    let asciiLo: UnsafeMutablePointer<UInt64>
    /// See `asciiLo`: scalars 64-127.
    let asciiHi: UnsafeMutablePointer<UInt64>
    /// The current and next thread lists, swapped at each position.
    var lists: (ThreadList, ThreadList)
    /// The slots of the thread being added.
    let work: UnsafeMutablePointer<Int>
    /// `addThread`'s pending jobs: a program counter to visit, or `-(slot + 1)` to put
    /// `stackValue` back into a slot. Each visit pushes at most three, so 3 × size + 1 suffice.
    let stack: UnsafeMutablePointer<Int>
    /// The slot values of restore jobs.
    let stackValue: UnsafeMutablePointer<Int>
    /// The slots of the last match `run` found.
    let result: UnsafeMutablePointer<Int>
    /// Units a search costs besides its steps (setting up, the match's slots): with empty
    /// matches a search runs at every position, and its fixed cost must count.
    static let callCost = 8
    /// The consuming instructions a match must start with, when there are few and nothing
    /// zero-width comes first: an unanchored search with no thread running skips positions none
    /// of them accepts (`split(',')` then scans for commas instead of starting a thread at each
    /// character). Empty when the start is not that simple.
    let firstPCs: [Int]

    /// A sparse set of program counters in insertion (= priority) order, with each entry's slots.
    struct ThreadList {
        /// Program counter → its index in `dense` (valid when `dense` agrees).
        var sparse: UnsafeMutablePointer<Int32>
        /// The program counters in the list, in order.
        var dense: UnsafeMutablePointer<Int32>
        /// `slots` values per entry.
        var caps: UnsafeMutablePointer<Int>
        /// Entries in use.
        var count = 0

        /// Buffers for `size` program counters.
        init(size: Int, slots: Int) {
            sparse = .allocate(capacity: size)
            sparse.initialize(repeating: 0, count: size)
            dense = .allocate(capacity: size)
            dense.initialize(repeating: 0, count: size)
            caps = .allocate(capacity: max(1, size * slots))
            caps.initialize(repeating: -1, count: max(1, size * slots))
        }

        /// Releases the buffers.
        func free() {
            sparse.deallocate()
            dense.deallocate()
            caps.deallocate()
        }

        /// Whether `pc` is in the list.
        @inline(__always) func contains(_ pc: Int) -> Bool {
            let d = Int(sparse[pc])
            return d < count && Int(dense[d]) == pc
        }

        @inline(__always) mutating func insert(_ pc: Int) -> Int {
            sparse[pc] = Int32(truncatingIfNeeded: count)
            dense[count] = Int32(truncatingIfNeeded: pc)
            count += 1
            return count - 1
        }
    }

    /// A VM for `program`, recording `slots` slots per thread.
    init(program: RegexProgram, slots: Int) {
        let size = program.insts.count
        self.size = size
        self.slots = slots
        classes = program.classes
        op = .allocate(capacity: size)
        x = .allocate(capacity: size)
        y = .allocate(capacity: size)
        asciiLo = .allocate(capacity: max(1, classes.count))
        asciiHi = .allocate(capacity: max(1, classes.count))
        for (k, c) in classes.enumerated() {
            (asciiLo + k).initialize(to: c.ascii.0)
            (asciiHi + k).initialize(to: c.ascii.1)
        }
        func target(_ t: Int) -> Int32 { Int32(truncatingIfNeeded: t) }
        for (pc, inst) in program.insts.enumerated() {
            var o = Op.fail, a: Int32 = 0, b: Int32 = 0
            // Targets and indices are checked here, once, so that the loops need not.
            switch inst {
            case .char(let v) where pc + 1 < size:
                o = Op.char
                a = Int32(bitPattern: v)
            case .charClass(let k) where k >= 0 && k < classes.count && pc + 1 < size:
                o = Op.charClass
                a = target(k)
            case .any where pc + 1 < size: o = Op.any
            case .anyNotNL where pc + 1 < size: o = Op.anyNotNL
            case .split(let t, let u) where t >= 0 && t < size && u >= 0 && u < size:
                o = Op.split
                a = target(t)
                b = target(u)
            case .jump(let t) where t >= 0 && t < size:
                o = Op.jump
                a = target(t)
            case .save(let s) where s >= 0 && pc + 1 < size:
                o = Op.save
                a = target(s)
            case .assert(let k) where pc + 1 < size:
                o = Op.assert
                a = Int32(k.rawValue)
            case .match: o = Op.match
            default: o = Op.fail
            }
            (op + pc).initialize(to: o)
            (x + pc).initialize(to: a)
            (y + pc).initialize(to: b)
        }
        lists = (ThreadList(size: size, slots: slots), ThreadList(size: size, slots: slots))
        work = .allocate(capacity: max(1, slots))
        work.initialize(repeating: -1, count: max(1, slots))
        stack = .allocate(capacity: 3 * size + 1)
        stackValue = .allocate(capacity: 3 * size + 1)
        result = .allocate(capacity: max(1, slots))
        result.initialize(repeating: -1, count: max(1, slots))
        firstPCs = Self.firstConsumers(op, x, y, size)
    }

    /// The instructions reachable from the start through jumps, splits and saves, if they are
    /// all consuming and at most eight; else empty.
    static func firstConsumers(_ op: UnsafeMutablePointer<UInt8>, _ x: UnsafeMutablePointer<Int32>, _ y: UnsafeMutablePointer<Int32>, _ size: Int)
        -> [Int]
    {
        var seen: Set<Int> = [], todo = [0], out: [Int] = []
        while let pc = todo.popLast() {
            guard pc < size, seen.insert(pc).inserted else { continue }
            switch op[pc] {
            case Op.jump: todo.append(Int(x[pc]))
            case Op.split: todo += [Int(y[pc]), Int(x[pc])]
            case Op.save: todo.append(pc + 1)
            case Op.char, Op.charClass, Op.any, Op.anyNotNL: out.append(pc)
            default: return []
            }
            if out.count > 8 || seen.count > 64 { return [] }
        }
        return out
    }

    /// Whether instruction `pc` (consuming) accepts `c` at a position before the end.
    @inline(__always) func accepts(_ pc: Int, _ c: UInt32) -> Bool {
        switch op[pc] {
        case Op.char: return c == UInt32(bitPattern: x[pc])
        case Op.charClass:
            let idx = Int(x[pc])
            if c < 64 { return asciiLo[idx] & (1 << UInt64(c)) != 0 }
            if c < 128 { return asciiHi[idx] & (1 << UInt64(c - 64)) != 0 }
            return classes[idx].contains(c)
        case Op.any: return true
        case Op.anyNotNL: return c != 10
        default: return false
        }
    }

    deinit {
        op.deallocate()
        x.deallocate()
        y.deallocate()
        asciiLo.deallocate()
        asciiHi.deallocate()
        lists.0.free()
        lists.1.free()
        work.deallocate()
        stack.deallocate()
        stackValue.deallocate()
        result.deallocate()
    }

    /// Searches `input` from `start` for the leftmost-first match. `anchored`: only a match
    /// starting at `start`; `full`: only one ending at the end of `input`. Returns the slots of
    /// the match (`[start, end, group 1 start, ...]`, -1 for groups that did not take part), or nil.
    func search(_ input: [Unicode.Scalar], from start: Int, anchored: Bool, full: Bool, budget: inout Int) throws(BudgetExceeded) -> [Int]? {
        try input.withUnsafeBufferPointer { (text) throws(BudgetExceeded) -> [Int]? in
            guard try run(text, start, anchored, full, &budget) else { return nil }
            return Array(UnsafeBufferPointer(start: result, count: slots))
        }
    }

    /// `search` over the scalars' buffer, leaving the match's slots in `result`; returns whether
    /// there was one. Each call is charged `callCost` on top of its steps.
    func run(_ text: UnsafeBufferPointer<Unicode.Scalar>, _ start: Int, _ anchored: Bool, _ full: Bool, _ budget: inout Int) throws(BudgetExceeded)
        -> Bool
    {
        var clist = lists.0, nlist = lists.1
        defer { lists = (clist, nlist) }
        clist.count = 0
        var matched = false
        var spent = Self.callCost
        var pos = max(0, start)
        let n = text.count
        let slots = self.slots
        let skip = !anchored && !firstPCs.isEmpty
        while true {
            if skip, !matched, clist.count == 0 {
                // Nothing running: jump to the next position where a match can start.
                let first = firstPCs[0], single = firstPCs.count == 1
                scan: while pos < n {
                    let c = text[pos].value
                    if single {
                        if accepts(first, c) { break scan }
                    } else {
                        for f in firstPCs where accepts(f, c) { break scan }
                    }
                    pos += 1
                    spent += 1
                }
            }
            if !matched, !anchored || pos == start {
                // A new thread starting here, after (below) every thread already running.
                for k in 0..<slots { work[k] = -1 }
                addThread(&clist, 0, pos, text, &spent)
            }
            if clist.count == 0 { break }
            let c: UInt32 = pos < n ? text[pos].value : UInt32.max
            nlist.count = 0
            var k = 0
            threads: while k < clist.count {
                let pc = Int(clist.dense[k])
                spent += 1
                let consumed: Bool
                switch op[pc] {
                case Op.char, Op.charClass, Op.any, Op.anyNotNL: consumed = pos < n && accepts(pc, c)
                case Op.match:
                    if full && pos != n {
                        consumed = false
                        break
                    }
                    for s in 0..<slots { result[s] = clist.caps[k * slots + s] }
                    matched = true
                    // Lower-priority threads lose to this match.
                    break threads
                default: consumed = false
                }
                if consumed {
                    for s in 0..<slots { work[s] = clist.caps[k * slots + s] }
                    addThread(&nlist, pc + 1, pos + 1, text, &spent)
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
            if clist.count == 0, matched || anchored { break }
        }
        budget -= spent
        return matched
    }

    /// Adds the thread at `pc0` (and every thread its jumps, splits, saves and passing assertions
    /// lead to, in priority order) to `list`, at position `pos`, with the slots in `work`.
    /// Iterative: programs can be long chains of epsilon steps.
    func addThread(_ list: inout ThreadList, _ pc0: Int, _ pos: Int, _ text: UnsafeBufferPointer<Unicode.Scalar>, _ spent: inout Int) {
        var top = 0
        stack[0] = pc0
        top = 1
        while top > 0 {
            top -= 1
            let job = stack[top]
            if job < 0 {
                work[-job - 1] = stackValue[top]
                continue
            }
            let pc = job
            if list.contains(pc) { continue }
            let entry = list.insert(pc)
            spent += 1
            switch op[pc] {
            case Op.jump:
                stack[top] = Int(x[pc])
                top += 1
            case Op.split:
                stack[top] = Int(y[pc])
                stack[top + 1] = Int(x[pc])
                top += 2
            case Op.save:
                let slot = Int(x[pc])
                if slot < slots {
                    stack[top] = -(slot + 1)
                    stackValue[top] = work[slot]
                    top += 1
                    work[slot] = pos
                }
                stack[top] = pc + 1
                top += 1
            case Op.assert:
                if let a = RegexAssertion(rawValue: UInt8(truncatingIfNeeded: x[pc])), Self.holds(a, text, pos) {
                    stack[top] = pc + 1
                    top += 1
                }
            case Op.fail: break
            default:
                for s in 0..<slots { list.caps[entry * slots + s] = work[s] }
            }
        }
    }

    /// Whether a zero-width test holds between `text[pos - 1]` and `text[pos]`.
    static func holds(_ a: RegexAssertion, _ text: UnsafeBufferPointer<Unicode.Scalar>, _ pos: Int) -> Bool {
        let n = text.count
        switch a {
        case .beginText: return pos == 0
        case .endText: return pos == n
        case .beginLine: return pos == 0 || text[pos - 1] == "\n"
        case .endLine: return pos == n || text[pos] == "\n"
        case .wordBoundary, .notWordBoundary:
            let before = pos > 0 && isWord(text[pos - 1].value)
            let after = pos < n && isWord(text[pos].value)
            return (before != after) == (a == .wordBoundary)
        }
    }

    /// RE2's `\b` word characters: ASCII letters, digits and `_`.
    static func isWord(_ c: UInt32) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F
    }
}
