import EmulatorCore
import Foundation
import Testing

@testable import EmulatorRules

/// Deeply nested rules must be refused with a diagnostic, never overflow the stack: a ruleset with
/// 1,000 nested parentheses used to crash the whole emulator (regression for a segfault found
/// while fuzzing). The deepest accepted rulesets must compile, evaluate and be freed on a thread
/// with a 2 MiB stack, a quarter of the 8 MiB that request handlers run on.
@Suite struct NestingLimitTests {
    static let nesting = Parser.maxNesting
    static let depth = Parser.maxExpressionDepth

    /// A ruleset whose only condition is `condition`.
    static func ruleset(_ condition: String) -> String {
        "rules_version = '2';\nservice cloud.firestore { match /databases/{db}/documents { match /{doc=**} { allow read: if \(condition); } } }"
    }

    static func chain(_ terms: Int, _ op: String = "&&", _ term: String = "true") -> String {
        Array(repeating: term, count: terms).joined(separator: " \(op) ")
    }

    /// Runs `body` on a new thread with a small stack and waits for it.
    static func onSmallStack(_ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let t = Thread {
                body()
                done.resume()
            }
            t.stackSize = 2 << 20
            t.start()
        }
    }

    /// The deepest accepted shapes. The top-level condition is one level of nesting, so
    /// `nesting - 1` parentheses are the most.
    static let accepted: [(String, String)] = {
        let n = nesting - 1
        var cases: [(String, String)] = []
        cases.append(("parentheses", String(repeating: "(", count: n) + "true" + String(repeating: ")", count: n)))
        cases.append(("negations", String(repeating: "!", count: n - 1) + "true"))
        cases.append(("lists", String(repeating: "[", count: n) + String(repeating: "]", count: n) + " != null"))
        cases.append(("maps", String(repeating: "{'k': ", count: n) + "1" + String(repeating: "}", count: n) + " != null"))
        cases.append(("calls", String(repeating: "f(", count: n) + "true" + String(repeating: ")", count: n)))
        cases.append(("and-chain", chain(depth)))
        cases.append(("plus-chain", chain(depth - 1, "+", "1") + " > 0"))
        cases.append(("member-chain", "request" + String(repeating: ".a", count: depth - 2) + " == null"))
        cases.append(("nested chains", "(" + chain(depth / 2) + ") && (" + chain(depth / 2) + ")"))
        return cases
    }()

    @Test(arguments: accepted)
    func deepestAcceptedRulesetsAreSafe(name: String, condition: String) async {
        let source = Self.ruleset(condition).replacingOccurrences(
            of: "match /databases",
            with: "function f(x) { return x; } match /databases")
        await Self.onSmallStack {
            switch CompiledRuleset.compile(source: source) {
            case .failure(let e):
                Issue.record("\(name) was refused: \(e.description.prefix(300))")
            case .success(let rs):
                for m in RulesMethod.allCases {
                    _ = rs.evaluate(
                        RulesRequest(
                            method: m, path: ["c", "d"], auth: AuthContext(uid: "u", token: [:]),
                            time: Timestamp(seconds: 0), resource: [:], requestResource: [:]),
                        data: EmptyDataSource())
                }
                _ = rs.coverageJSON()
                _ = rs.coverageHTML()
            }
        }
    }

    /// Just over each limit, and hostile sizes far over it (each under the 256 KiB source limit).
    static let refused: [(String, String, String)] = {
        let nested = "expression is nested more than \(nesting) levels deep"
        let deep = "expression is more than \(depth) levels deep; split long chains of operators into functions"
        var cases: [(String, String, String)] = []
        cases.append(("parentheses", String(repeating: "(", count: nesting) + "true" + String(repeating: ")", count: nesting), nested))
        cases.append(("negations", String(repeating: "!", count: nesting) + "true", nested))
        cases.append(("and-chain", chain(depth + 1), deep))
        cases.append(("hostile parentheses", String(repeating: "(", count: 100_000) + "true" + String(repeating: ")", count: 100_000), nested))
        cases.append(("hostile negations", String(repeating: "!", count: 100_000) + "true", nested))
        cases.append(("hostile minus", String(repeating: "- ", count: 100_000) + "1 < 0", nested))
        cases.append(("hostile plus-chain", chain(60_000, "+", "1") + " > 0", deep))
        cases.append(("hostile ternaries", String(repeating: "true ? 1 : ", count: 20_000) + "2", nested))
        cases.append(
            (
                "hostile path",
                "exists(/databases/$(" + String(repeating: "(", count: 10_000) + "'x'" + String(repeating: ")", count: 10_000) + ")/documents/a)",
                nested
            ))
        return cases
    }()

    @Test(arguments: refused)
    func tooDeepIsADiagnosticNotACrash(name: String, condition: String, message: String) async {
        let source = Self.ruleset(condition)
        await Self.onSmallStack {
            switch CompiledRuleset.compile(source: source) {
            case .success: Issue.record("\(name) compiled")
            case .failure(let e):
                #expect(e.diagnostics.count == 1)
                #expect(e.description.contains("error: " + message), "\(name): \(e.description.prefix(300))")
            }
        }
    }

    @Test func matchBlocksNestedTooDeeplyAreRefusedWhileParsing() async {
        for levels in [11, 20_000] {
            let source = "service cloud.firestore { " + String(repeating: "match /a { ", count: levels) + String(repeating: "} ", count: levels) + "}"
            await Self.onSmallStack {
                switch CompiledRuleset.compile(source: source) {
                case .success: Issue.record("\(levels) nested match blocks compiled")
                case .failure(let e): #expect(e.description.contains("match blocks are nested deeper than 10 levels"), "\(e.description.prefix(200))")
                }
            }
        }
        let ten =
            "service cloud.firestore { " + String(repeating: "match /a { ", count: 10) + "allow read; " + String(repeating: "} ", count: 10) + "}"
        #expect((try? CompiledRuleset.compile(source: ten).get()) != nil)
    }

    @Test func depthCountsTheDeepestBranch() throws {
        let rs = try CompiledRuleset.compile(source: Self.ruleset("1 + 2 * 3 == 7 && [1, [2, [3]]] != null")).get()
        let condition = try #require(rs.ast.matches.first?.children.first?.allows.first?.condition)
        // && → != → list → list → list → 3
        #expect(condition.depth == 6)
    }
}

/// Diagnostics on very long lines show a window around the caret, not the whole line.
@Suite struct LongLineExcerptTests {
    @Test func longLinesAreWindowedAroundTheCaret() {
        let source = "service cloud.firestore { match /a { allow get: if " + String(repeating: "1 + ", count: 200) + "; } }"
        guard case .failure(let e) = CompiledRuleset.compile(source: source) else {
            Issue.record("compiled")
            return
        }
        let lines = e.description.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3)
        #expect(lines[0] == "firestore.rules:1:852: error: expected an expression but found ';'")
        // The error is 4 characters from the end, so the window is the line's last 120 characters.
        #expect(lines[1] == "  …" + String(source.suffix(120)))
        #expect(lines[2] == "  " + String(repeating: " ", count: 116) + "^")
    }

    @Test func aCaretInTheMiddleIsCentred() {
        let source =
            "service cloud.firestore { match /a { allow get: if " + String(repeating: "1 + ", count: 100) + "; " + String(repeating: " ", count: 400)
            + "} }"
        guard case .failure(let e) = CompiledRuleset.compile(source: source) else {
            Issue.record("compiled")
            return
        }
        let lines = e.description.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[1].count == 2 + 1 + 120 + 1)
        #expect(lines[1].hasPrefix("  …") && lines[1].hasSuffix("…"))
        #expect(lines[2] == "  " + String(repeating: " ", count: 61) + "^")
    }
}
