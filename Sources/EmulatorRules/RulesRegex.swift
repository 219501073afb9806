/// A rules regular expression: RE2 syntax and matching (our own parser, compiler and Pike VM;
/// linear in input × pattern), with the semantics of the rules' string methods as the Firestore
/// emulator shows them (its rules engine uses RE2/J, RE2's Java port):
///
/// - `matches` is a whole-string match (`'abc'.matches('b')` is false);
/// - `replace` and `split` find matches as Java's `Matcher.find` does: after a match, the next
///   search starts where it ended, one scalar later if it was empty, and an empty match right
///   after a non-empty one counts (`'baaac'.replace('a*', '-')` is `-b--c-`);
/// - `replace`'s replacement reads `$n` (as many digits as name an existing group), `${name}`
///   and `\x` (a literal `x`); a `$` before anything else is a literal `$`;
/// - `split` drops trailing empty strings but always returns at least one (`','.split(',')` is
///   `['']`, `',a,'.split(',')` is `['', 'a']`).
///
/// Immutable and `Sendable`: compiled once per literal pattern when a ruleset loads.
public struct RulesRegex: Sendable {
    /// The pattern as written.
    public let pattern: String
    /// The parsed pattern (the `regex` fuzz target's reference matcher walks it).
    public let syntaxTree: RegexNode
    /// The compiled program.
    let program: RegexProgram

    /// Why an operation stopped.
    public enum Failure: Error {
        /// The request's cost budget ran out.
        case budgetExceeded
        /// The replacement names a group the pattern does not have.
        case badReplacement(String)
    }

    /// What compiling took: scalars parsed, folding scalars looked at, instructions emitted
    /// (a pattern built at evaluation time is charged this much).
    let compileWork: Int

    /// Parses and compiles `pattern`, refusing what RE2 refuses.
    public static func compile(_ pattern: String) throws(RegexError) -> RulesRegex {
        var parser = RegexParser(pattern)
        let node = try parser.parse()
        let program = try RegexProgram.compile(node, captureCount: parser.captures, names: parser.names)
        return RulesRegex(pattern: pattern, syntaxTree: node, program: program, compileWork: parser.work + program.insts.count)
    }

    /// `s.matches(re)`.
    public func wholeMatch(_ input: [Unicode.Scalar], budget: inout Int) throws(Failure) -> Bool {
        let vm = try makeVM(slots: 0, budget: &budget)
        do {
            return try vm.search(input, from: 0, anchored: true, full: true, budget: &budget) != nil
        } catch {
            throw .budgetExceeded
        }
    }

    /// The leftmost-first match in `input` (scalar offsets), or nil.
    public func firstMatch(_ input: [Unicode.Scalar], budget: inout Int) throws(Failure) -> Range<Int>? {
        let vm = try makeVM(slots: 2, budget: &budget)
        do {
            return try vm.search(input, from: 0, anchored: false, full: false, budget: &budget).map { $0[0]..<$0[1] }
        } catch {
            throw .budgetExceeded
        }
    }

    /// A VM for this program, charged its size (building it copies the program).
    func makeVM(slots: Int, budget: inout Int) throws(Failure) -> PikeVM {
        budget -= program.insts.count
        if budget < 0 { throw .budgetExceeded }
        return PikeVM(program: program, slots: slots)
    }

    /// Calls `body` with the slots of each successive match (see the type's comment); `body`
    /// returns the units its own work cost, which are taken from `budget` too. The slots are
    /// valid during the call only.
    func forEachMatch(_ input: [Unicode.Scalar], slots: Int, budget: inout Int, _ body: (UnsafeMutablePointer<Int>) -> Int) throws(Failure) {
        let vm = try makeVM(slots: max(2, slots), budget: &budget)
        let outcome = input.withUnsafeBufferPointer { (text) -> Failure? in
            var from = 0
            while from <= text.count {
                do {
                    guard try vm.run(text, from, false, false, &budget) else { return nil }
                } catch {
                    return .budgetExceeded
                }
                let m = vm.result
                budget -= body(m)
                if budget < 0 { return .budgetExceeded }
                from = m[1] == m[0] ? m[1] + 1 : m[1]
            }
            return nil
        }
        if let outcome { throw outcome }
    }

    /// `s.split(re)`.
    public func split(_ input: [Unicode.Scalar], budget: inout Int) throws(Failure) -> [String] {
        var pieces: [String] = []
        var last = 0
        var buffer: [UInt8] = []
        func piece(_ range: Range<Int>) -> String {
            buffer.removeAll(keepingCapacity: true)
            Self.appendUTF8(&buffer, input[range])
            return String(decoding: buffer, as: UTF8.self)
        }
        try forEachMatch(input, slots: 2, budget: &budget) { m in
            pieces.append(piece(last..<m[0]))
            defer { last = m[1] }
            return m[0] - last + 1
        }
        pieces.append(piece(last..<input.count))
        while pieces.count > 1, pieces.last?.isEmpty == true { pieces.removeLast() }
        return pieces
    }

    /// `s.replace(re, sub)`. Each scalar written costs a unit of `budget`, so that a long
    /// replacement at every position of a long string cannot grow without bound.
    public func replace(_ input: [Unicode.Scalar], with replacement: String, budget: inout Int) throws(Failure) -> String {
        let parts = try parseReplacement(replacement)
        let maxGroup = parts.reduce(0) { if case .group(let g) = $1 { max($0, g) } else { $0 } }
        // Every thread carries its slots: keep the VM's scratch space to a few MiB.
        guard 2 * (maxGroup + 1) * program.insts.count <= 1 << 20 else {
            throw .badReplacement("the pattern is too large to capture group $\(maxGroup) for a replacement")
        }
        var out: [UInt8] = []
        out.reserveCapacity(input.count)
        var last = 0
        try forEachMatch(input, slots: 2 * (maxGroup + 1), budget: &budget) { m in
            Self.appendUTF8(&out, input[last..<m[0]])
            var spent = m[0] - last
            for part in parts {
                switch part {
                case .text(let t):
                    Self.appendUTF8(&out, t[...])
                    spent += t.count
                case .group(let g):
                    guard m[2 * g] >= 0 else { continue }
                    Self.appendUTF8(&out, input[m[2 * g]..<m[2 * g + 1]])
                    spent += m[2 * g + 1] - m[2 * g]
                }
            }
            last = m[1]
            return spent
        }
        Self.appendUTF8(&out, input[last...])
        budget -= input.count - last
        if budget < 0 { throw .budgetExceeded }
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the UTF-8 encoding of `scalars` (building strings from scalar views one append at
    /// a time copies the whole string each time).
    static func appendUTF8(_ out: inout [UInt8], _ scalars: ArraySlice<Unicode.Scalar>) {
        for c in scalars {
            let v = c.value
            if v < 0x80 {
                out.append(UInt8(truncatingIfNeeded: v))
            } else if v < 0x800 {
                out.append(0xC0 | UInt8(truncatingIfNeeded: v >> 6))
                out.append(0x80 | UInt8(truncatingIfNeeded: v & 0x3F))
            } else if v < 0x10000 {
                out.append(0xE0 | UInt8(truncatingIfNeeded: v >> 12))
                out.append(0x80 | UInt8(truncatingIfNeeded: (v >> 6) & 0x3F))
                out.append(0x80 | UInt8(truncatingIfNeeded: v & 0x3F))
            } else {
                out.append(0xF0 | UInt8(truncatingIfNeeded: v >> 18))
                out.append(0x80 | UInt8(truncatingIfNeeded: (v >> 12) & 0x3F))
                out.append(0x80 | UInt8(truncatingIfNeeded: (v >> 6) & 0x3F))
                out.append(0x80 | UInt8(truncatingIfNeeded: v & 0x3F))
            }
        }
    }

    /// A piece of a replacement: literal text or a group's match.
    enum ReplacementPart {
        /// Written as is.
        case text([Unicode.Scalar])
        /// What the group matched ("" when it took no part).
        case group(Int)
    }

    /// Reads `$n`, `${name}` and `\x` as Java's `Matcher.appendReplacement` does (RE2/J too).
    func parseReplacement(_ s: String) throws(Failure) -> [ReplacementPart] {
        let r = Array(s.unicodeScalars)
        var parts: [ReplacementPart] = []
        var text: [Unicode.Scalar] = []
        func flush() {
            if !text.isEmpty { parts.append(.text(text)) }
            text = []
        }
        var i = 0
        while i < r.count {
            let c = r[i]
            if c == "\\" {
                text.append(i + 1 < r.count ? r[i + 1] : c)
                i += 2
                continue
            }
            guard c == "$", i + 1 < r.count else {
                text.append(c)
                i += 1
                continue
            }
            let next = r[i + 1]
            if let d = RegexParser.digit(next) {
                guard d <= program.captureCount else {
                    throw .badReplacement(
                        "replacement refers to group $\(d) but the pattern has \(program.captureCount) group\(program.captureCount == 1 ? "" : "s")")
                }
                var g = d
                i += 2
                while i < r.count, let d2 = RegexParser.digit(r[i]), g * 10 + d2 <= program.captureCount {
                    g = g * 10 + d2
                    i += 1
                }
                flush()
                parts.append(.group(g))
            } else if next == "{" {
                guard let close = r[(i + 2)...].firstIndex(of: "}") else {
                    throw .badReplacement("replacement has '${' without a closing '}'")
                }
                let name = String(String.UnicodeScalarView(r[(i + 2)..<close]))
                guard let g = program.names[name] else {
                    throw .badReplacement("replacement refers to group '\(name)', which the pattern does not name")
                }
                flush()
                parts.append(.group(g))
                i = close + 1
            } else {
                text.append(c)
                i += 1
            }
        }
        flush()
        return parts
    }
}
