extension Methods {
    /// String methods. Each is charged to the request's budget (`Evaluation.charge`): the
    /// characters it reads and writes, and for `matches`, `replace` and `split` the steps of the
    /// regular-expression VM, which runs in time linear in string × pattern (RE2 semantics, see
    /// `RulesRegex`).
    static func string(_ s: String, _ name: String, _ a: [RulesValue], _ ev: Evaluation) -> RulesValue? {
        let n = s.utf8.count
        switch (name, a.count) {
        case ("size", 0):
            if let e = ev.charge(n, "size() of a string of \(n) bytes") { return e }
            // UTF-16 code units, as production's (Java) rules engine counts: '😀' is 2, 'e\u0301' 2.
            return .int(Int64(s.utf16.count))
        case ("lower", 0):
            if let e = ev.charge(2 * n, "lower() of a string of \(n) bytes") { return e }
            return .string(s.lowercased())
        case ("upper", 0):
            if let e = ev.charge(2 * n, "upper() of a string of \(n) bytes") { return e }
            return .string(s.uppercased())
        case ("trim", 0):
            if let e = ev.charge(n, "trim() of a string of \(n) bytes") { return e }
            return .string(s.trimmingScalars { $0 == "\t" || $0.properties.generalCategory == .spaceSeparator })
        case ("toUtf8", 0):
            if let e = ev.charge(n, "toUtf8() of a string of \(n) bytes") { return e }
            return .bytes(Array(s.utf8))
        case ("matches", 1):
            guard case .string(let re) = a[0] else { return nil }
            return regexCall("matches", s, re, ev) { rx, input, budget throws(RulesRegex.Failure) in
                .bool(try rx.wholeMatch(input, budget: &budget))
            }
        case ("replace", 2):
            guard case .string(let re) = a[0], case .string(let sub) = a[1] else { return nil }
            return regexCall("replace", s, re, ev) { rx, input, budget throws(RulesRegex.Failure) in
                .string(try rx.replace(input, with: sub, budget: &budget))
            }
        case ("split", 1):
            guard case .string(let re) = a[0] else { return nil }
            return regexCall("split", s, re, ev) { rx, input, budget throws(RulesRegex.Failure) in
                .list(try rx.split(input, budget: &budget).map { .string($0) })
            }
        default: return nil
        }
    }

    /// Compiles (or finds) the pattern, converts the string, runs `body` on the budget, and turns
    /// a failure into the rules error value.
    static func regexCall(
        _ name: String, _ s: String, _ pattern: String, _ ev: Evaluation,
        _ body: (RulesRegex, [Unicode.Scalar], inout Int) throws(RulesRegex.Failure) -> RulesValue
    ) -> RulesValue {
        let what = "\(name)() on a string of \(s.utf8.count) bytes"
        let rx: RulesRegex
        switch ev.regex(pattern) {
        case .success(let r): rx = r
        case .failure(let e): return e.value
        }
        let input: [Unicode.Scalar]
        switch ev.scalars(s, what) {
        case .success(let x): input = x
        case .failure(let e): return e.value
        }
        do {
            return try body(rx, input, &ev.budget)
        } catch {
            switch error {
            case .budgetExceeded: return ev.overBudget(what)
            case .badReplacement(let m): return .error("replace(): \(m)")
            }
        }
    }
}
