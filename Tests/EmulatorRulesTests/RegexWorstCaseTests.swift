import Testing

@testable import EmulatorRules

/// Patterns that make a backtracking engine take time exponential in the input: each case runs
/// through a rules expression, as a hostile write would, and must give RE2's answer. With the
/// standard library's backtracking `Regex` the first case alone took 112 s; the Pike VM's time is
/// linear in input × pattern (bench/ measures it; this test asserts only the answers).
@Suite struct RegexWorstCaseTests {
    static func eval(_ expr: String) -> RulesValue {
        switch Evaluation.evaluateExpression(expr, vars: [:]) {
        case .success(let v): return v
        case .failure(let d): return .error("did not parse: \(d)")
        }
    }

    @Test(arguments: [
        ("'aaaaaaaaaaaaaaaaaaaaa!'.matches('(a+)+$')", false),
        ("'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!'.matches('(a+)+$')", false),
        ("'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'.matches('(a|aa)*b')", false),
        ("'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'.matches('(x+x+)+y')", false),
        ("'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'.matches('(a*)*b')", false),
        ("'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'.matches('(?:a?){60}a{60}')", true),
        ("('ab' + 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!').matches('(.*a){12}')", false),
    ])
    func exponentialForBacktrackingIsLinearHere(_ expr: String, _ expected: Bool) {
        let v = Self.eval(expr)
        guard case .bool(let b) = v else {
            Issue.record("\(expr): \(v.display)")
            return
        }
        #expect(b == expected, "\(expr)")
    }

    /// `split` and `replace` over a long string whose every position starts a failing attempt of
    /// a nested quantifier: quadratic or worse for a backtracker, one pass here.
    @Test func splitAndReplaceOnNestedQuantifiers() {
        let s = String(repeating: "a", count: 3000) + "!"
        let split = Self.eval("'\(s)'.split('(a+)+b')")
        #expect(RulesValue.equal(split, .list([.string(s)])), "\(split.display)")
        let replaced = Self.eval("'\(s)'.replace('(a|aa)+!', 'X')")
        #expect(RulesValue.equal(replaced, .string("X")), "\(replaced.display)")
    }
}
