import EmulatorCore
import Testing

@testable import EmulatorRules

/// The rows of `Conformance/regex.json`: `matches`, `replace` and `split` answers and refused
/// patterns. The answers were taken from Google's Firestore emulator (its rules engine uses
/// RE2/J) by `Tests/python/rules/regex_oracle.py`, which checks them again; rows with a `note`
/// are where we keep RE2's behaviour on Unicode scalars and the Java engine differs.
@Suite struct RegexConformanceTests {
    static func rows() throws -> [JSON] { try #require(try conformanceFile("regex").arrayValue) }

    static func eval(_ expr: String, _ vars: [String: RulesValue]) -> RulesValue {
        switch Evaluation.evaluateExpression(expr, vars: vars) {
        case .success(let v): return v
        case .failure(let d): return .error("did not parse: \(d)")
        }
    }

    /// A rules string literal for `s` (single-quoted, backslashes and quotes escaped).
    static func literal(_ s: String) -> String {
        var out = "'"
        for c in s.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "'": out += "\\'"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default: out.unicodeScalars.append(c)
            }
        }
        return out + "'"
    }

    @Test func answersAgreeWithTheTable() throws {
        var counts = (matches: 0, replace: 0, split: 0)
        for row in try Self.rows() where row["refused"] == nil {
            let pattern = try #require(row["pattern"]?.stringValue), input = try #require(row["input"]?.stringValue)
            let vars: [String: RulesValue] = ["s": .string(input), "p": .string(pattern)]
            if let expected = row["matches"]?.boolValue {
                counts.matches += 1
                let v = Self.eval("s.matches(p)", vars)
                #expect(RulesValue.equal(v, .bool(expected)), "\(pattern) on \(input.debugDescription): \(v.display)")
            } else if let sub = row["replace"]?.stringValue {
                counts.replace += 1
                var withSub = vars
                withSub["r"] = .string(sub)
                let v = Self.eval("s.replace(p, r)", withSub)
                if let result = row["result"]?.stringValue {
                    #expect(RulesValue.equal(v, .string(result)), "\(pattern) / \(sub) on \(input.debugDescription): \(v.display)")
                } else {
                    #expect(v.isError, "\(pattern) / \(sub) on \(input.debugDescription) should be an error: \(v.display)")
                }
            } else if let pieces = row["split"]?.arrayValue {
                counts.split += 1
                let v = Self.eval("s.split(p)", vars)
                let expected = RulesValue.list(pieces.compactMap(\.stringValue).map { .string($0) })
                #expect(RulesValue.equal(v, expected), "\(pattern) on \(input.debugDescription): \(v.display)")
            } else {
                Issue.record("row without an expectation: \(row)")
            }
        }
        #expect(counts.matches > 150 && counts.replace > 30 && counts.split > 20)
    }

    /// A refused pattern is an error value when computed at evaluation time, and a diagnostic
    /// at the offending character when it is a literal in the ruleset; an accepted one is
    /// neither.
    @Test func refusedPatternsAreDiagnosedWhereTheyGoWrong() throws {
        var refused = 0
        for row in try Self.rows() {
            guard let isRefused = row["refused"]?.boolValue else { continue }
            let pattern = try #require(row["pattern"]?.stringValue)
            let dynamic = Self.eval("'x'.matches(p)", ["p": .string(pattern)])
            let prefix = "    match /c/{d} { allow read: if 'x'.matches("
            let source =
                "rules_version = '2';\nservice cloud.firestore {\n  match /databases/{db}/documents {\n"
                + prefix + Self.literal(pattern) + "); }\n  }\n}\n"
            let compiled = CompiledRuleset.compile(source: source)
            guard isRefused else {
                #expect(!dynamic.isError, "\(pattern) should be accepted: \(dynamic.display)")
                if case .failure(let e) = compiled { Issue.record("\(pattern) should compile: \(e)") }
                continue
            }
            refused += 1
            let reason = try #require(row["reason"]?.stringValue, "\(pattern): no reason")
            let at = try #require(row["at"]?.intValue, "\(pattern): no position")
            guard case .error(let message) = dynamic else {
                Issue.record("\(pattern) should be refused, got \(dynamic.display)")
                continue
            }
            #expect(
                message.hasPrefix("invalid regular expression") && message.contains(reason) && message.hasSuffix("at character \(at) of the pattern"),
                "\(pattern): \(message)")
            guard case .failure(let e) = compiled, let d = e.diagnostics.first else {
                Issue.record("\(pattern) compiled")
                continue
            }
            // The column of the character's first byte inside the literal (escapes counted as written).
            let before = String(String.UnicodeScalarView(pattern.unicodeScalars.prefix(Int(at) - 1)))
            let column = prefix.utf8.count + 1 + Self.literal(before).utf8.count - 1
            #expect(
                d.location == SourceLocation(file: "firestore.rules", line: 4, column: column) && d.message == message,
                "\(pattern): \(d)")
        }
        #expect(refused > 60)
    }
}
