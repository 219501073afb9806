import EmulatorCore
import Testing

@testable import EmulatorRules

/// The per-request cost limit on string, list and regular-expression work
/// (`Evaluation.maxWork`): work that fits is done; work that does not is an error value naming
/// the call, found before the time or memory is spent.
@Suite struct RulesCostLimitTests {
    /// 900,000 characters, as in the report that `split` on such a string took 4.4 s.
    static let csv = String(repeating: "abcdefgh,", count: 100_000)

    /// Evaluates with the request's limit, or a smaller one so that a small input shows it.
    static func eval(_ expr: String, _ vars: [String: RulesValue], budget: Int = Evaluation.maxWork) -> RulesValue {
        switch Evaluation.evaluateExpression(expr, vars: vars, budget: budget) {
        case .success(let v): return v
        case .failure(let d): return .error("did not parse: \(d)")
        }
    }

    static func expectCostError(_ v: RulesValue, _ call: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        guard case .error(let m) = v else {
            Issue.record("expected a cost-limit error, got \(v.typeName)", sourceLocation: sourceLocation)
            return
        }
        #expect(m.contains("exceeds the cost limit of a request") && m.contains(call), "\(m)", sourceLocation: sourceLocation)
    }

    /// The reported case, at full size: it fits the limit (and takes one pass, not seconds).
    @Test func splitOfALongStringFits() {
        #expect(RulesValue.equal(Self.eval("s.split(',').size()", ["s": .string(Self.csv)]), .int(100_000)))
    }

    @Test func workThatFitsIsDone() {
        let s: RulesValue = .string(String(repeating: "abcdefgh,", count: 1000))
        let budget = 100_000
        #expect(RulesValue.equal(Self.eval("s.split(',').size()", ["s": s], budget: budget), .int(1000)))
        let replaced = Self.eval("s.replace(',', ';')", ["s": s], budget: budget)
        #expect(RulesValue.equal(replaced, .string(String(repeating: "abcdefgh;", count: 1000))))
        #expect(RulesValue.equal(Self.eval("s.matches('[a-z,]*')", ["s": s], budget: budget), .bool(true)))
    }

    @Test func aReplacementThatWouldGrowTheStringAHundredfoldIsRefused() {
        let v = Self.eval(
            "s.replace('', r)", ["s": .string(String(Self.csv.prefix(9000))), "r": .string(String(repeating: "x", count: 100))],
            budget: 100_000)
        Self.expectCostError(v, "replace() on a string of 9000 bytes")
    }

    @Test func aPatternThatTakesManyStepsPerCharacterIsStoppedNotRun() {
        // Every position keeps twenty threads alive, one per x*.
        let s = String(repeating: "x", count: 9000), p = String(repeating: "x*", count: 20) + "y"
        let vars: [String: RulesValue] = ["s": .string(s), "p": .string(p)]
        Self.expectCostError(Self.eval("s.matches(p)", vars, budget: 100_000), "matches() on a string of 9000 bytes")
        Self.expectCostError(Self.eval("s.split(p)", vars, budget: 100_000), "split() on a string of 9000 bytes")
        Self.expectCostError(Self.eval("s.replace(p, '')", vars, budget: 100_000), "replace() on a string of 9000 bytes")
    }

    @Test func theLimitIsForTheWholeRequestNotEachCall() {
        let s: RulesValue = .string(String(repeating: "a", count: 1000))
        // size() reads the string: 16 of them fit in 16,000 units, the 17th does not.
        let sixteen = Array(repeating: "s.size() > 0", count: 16).joined(separator: " && ")
        #expect(RulesValue.equal(Self.eval(sixteen, ["s": s], budget: 16_000), .bool(true)))
        Self.expectCostError(Self.eval(sixteen + " && s.size() > 0", ["s": s], budget: 16_000), "size() of a string of 1000 bytes")
        Self.expectCostError(Self.eval(Array(repeating: "s.lower() != ''", count: 9).joined(separator: " && "), ["s": s], budget: 16_000), "lower()")
        Self.expectCostError(Self.eval(Array(repeating: "s.upper() != ''", count: 9).joined(separator: " && "), ["s": s], budget: 16_000), "upper()")
        Self.expectCostError(Self.eval(Array(repeating: "s.trim() != ''", count: 17).joined(separator: " && "), ["s": s], budget: 16_000), "trim()")
        Self.expectCostError(
            Self.eval(Array(repeating: "s.toUtf8() != b''", count: 17).joined(separator: " && "), ["s": s], budget: 16_000), "toUtf8()")
        Self.expectCostError(
            Self.eval(Array(repeating: "[s, s].join('') != ''", count: 9).joined(separator: " && "), ["s": s], budget: 16_000), "list.join()")
    }

    @Test func doublingAStringInLetsStopsAtTheLimit() throws {
        // Each call of d multiplies the length by 1024; three would make 16 GiB.
        let source = """
            rules_version = '2';
            service cloud.firestore {
              match /databases/{db}/documents {
                function d(s) {
                  let a = s + s; let b = a + a; let c = b + b; let e = c + c; let f = e + e;
                  let g = f + f; let h = g + g; let i = h + h; let j = i + i; let k = j + j;
                  return k;
                }
                match /c/{id} { allow read: if d(d(d('xxxxxxxxxxxxxxxx'))).size() > 0; }
              }
            }
            """
        let rs = try CompiledRuleset.compile(source: source).get()
        let d = rs.evaluate(RulesRequest(method: .get, path: ["c", "x"], auth: nil, time: Timestamp(seconds: 0)), data: EmptyDataSource())
        #expect(!d.allowed)
        #expect(d.explanation.contains("'+' of strings of") && d.explanation.contains("exceeds the cost limit"), "\(d.explanation)")
    }

    @Test func quadraticListMethodsAreChargedTheirProduct() {
        let list: RulesValue = .list((0..<5000).map { .int(Int64($0)) })
        Self.expectCostError(Self.eval("l.toSet().size() > 0", ["l": list]), "list.toSet() on 5000 elements")
        Self.expectCostError(Self.eval("l.hasAll(l)", ["l": list]), "list.hasAll() on 5000 elements")
        let small: RulesValue = .list((0..<1000).map { .int(Int64($0)) })
        #expect(RulesValue.equal(Self.eval("l.toSet().size()", ["l": small]), .int(1000)))
    }

    @Test func hashingIndexingAndRangesAreCharged() {
        let s: RulesValue = .string(String(repeating: "a", count: 1000))
        let crcs = Array(repeating: "hashing.crc32(s) != b''", count: 17).joined(separator: " && ")
        Self.expectCostError(Self.eval(crcs, ["s": s], budget: 16_000), "hashing.crc32() of 1000 bytes")
        let indexes = Array(repeating: "s[999] == 'a'", count: 17).joined(separator: " && ")
        Self.expectCostError(Self.eval(indexes, ["s": s], budget: 16_000), "indexing a string of 1000 bytes")
        let ranges = Array(repeating: "s[1:2] == 'a'", count: 17).joined(separator: " && ")
        Self.expectCostError(Self.eval(ranges, ["s": s], budget: 16_000), "a range of a string of 1000 bytes")
    }

    /// A pattern computed from data is compiled when used and charged for it; one RE2 refuses is
    /// an error value, as production's "Invalid regular expression pattern".
    @Test func dynamicPatternsAreCompiledChargedAndChecked() {
        let v = Self.eval("'aaa'.matches(p + '+')", ["p": .string("a")])
        #expect(RulesValue.equal(v, .bool(true)))
        guard case .error(let m) = Self.eval("'aa'.matches(p)", ["p": .string("(a)\\1")]) else {
            Issue.record("accepted")
            return
        }
        #expect(
            m
                == "invalid regular expression \"(a)\\1\": invalid escape sequence: \\1 (back-references are not supported), at character 4 of the pattern"
        )
        let long = String(repeating: "[a-z]", count: 1000)
        Self.expectCostError(Self.eval("'a'.matches(p)", ["p": .string(long)], budget: 5000), "compiling the regular expression")
        // Case-folding a class of all of Unicode (about 2,800 folding scalars) over and over is
        // refused before it takes long, whatever the budget.
        let fold = "(?i)[\\x{0}-\\x{10FFFF}]"
        Self.expectCostError(
            Self.eval("'a'.matches(p)", ["p": .string(String(repeating: fold, count: 100))], budget: 100_000), "compiling the regular expression")
        let folds = String(repeating: fold, count: 400)
        guard case .error(let big) = Self.eval("'a'.matches(p)", ["p": .string(folds)]) else {
            Issue.record("accepted")
            return
        }
        #expect(big.contains("pattern too large"), "\(big)")
    }
}
