import EmulatorCore
import Testing

@testable import EmulatorRules

/// Patterns written as string literals are compiled when the ruleset loads: one RE2 refuses is a
/// diagnostic like the other rules diagnostics (file:line:column, the line, a caret), pointing
/// at the offending character inside the literal, escapes followed back to their backslash.
@Suite struct RegexDiagnosticsTests {
    static func diagnostics(_ source: String) -> [Diagnostic] {
        if case .failure(let e) = CompiledRuleset.compile(source: source) { return e.diagnostics }
        return []
    }

    @Test func aLookAheadIsShownWhereItIs() {
        let source = """
            rules_version = '2';
            service cloud.firestore {
              match /databases/{db}/documents {
                match /users/{id} {
                  allow create: if request.resource.data.name.matches('\\\\w+\\\\.x(?=y)');
                }
              }
            }
            """
        let d = Self.diagnostics(source)
        // The quote is at column 59; `\\w+\\.x` takes 9 bytes of source before the `(`.
        #expect(
            d.map(\.description) == [
                "firestore.rules:5:68: error: invalid regular expression \"\\w+\\.x(?=y)\": invalid perl operator: (?= (look-ahead is not supported), at character 7 of the pattern\n"
                    + "        allow create: if request.resource.data.name.matches('\\\\w+\\\\.x(?=y)');\n"
                    + "                                                                     ^"
            ])
    }

    /// Every bad literal is reported, in functions too, each at its own place; `replace` and
    /// `split` patterns are checked like `matches`; a pattern computed at evaluation time is not
    /// (it is checked when used).
    @Test func everyLiteralPatternIsChecked() {
        let source = """
            rules_version = '2';
            service cloud.firestore {
              function ok(s) { return s.split('[,;]').size() < 5 && s.replace('(a)\\\\1', '') != ''; }
              match /databases/{db}/documents {
                match /c/{id} { allow read: if id.matches('[z-a]') || id.matches('a{1001}') || id.matches(id + '('); }
              }
            }
            """
        let d = Self.diagnostics(source)
        #expect(
            d.map { "\($0.location) \($0.message.split(separator: ":").dropFirst().first ?? "")" } == [
                "firestore.rules:3:71  invalid escape sequence",
                "firestore.rules:5:49  invalid character class range",
                "firestore.rules:5:72  invalid repetition size",
            ])
    }

    @Test func unicodeBeforeTheProblemCountsItsBytesInTheColumn() {
        // Columns count bytes, as every rules diagnostic does: é is two, \u00e9 six.
        let source = "service cloud.firestore { match /a { allow get: if 'x'.matches('é\\u00e9(?<=a)'); } }"
        let d = Self.diagnostics(source)
        #expect(d.first?.location.column == 64 + 1 + 2 + 6 && d.first?.message.contains("look-behind") == true, "\(d)")
    }

    /// Group nesting is bounded (200 levels) and the deepest accepted patterns parse, compile,
    /// match and are freed on a thread with a 2 MiB stack.
    @Test func deepestNestingIsSafeOnASmallStack() async {
        let n = RegexParser.maxDepth
        let deep = [
            String(repeating: "(", count: n) + "a" + String(repeating: ")", count: n),
            String(repeating: "(?:", count: n) + "a" + String(repeating: ")*", count: n),
            String(repeating: "(a|", count: n) + "b" + String(repeating: ")", count: n),
            String(repeating: "(?i:", count: n) + "A" + String(repeating: ")?", count: n),
        ]
        await NestingLimitTests.onSmallStack {
            for p in deep {
                switch Evaluation.evaluateExpression("'a'.matches(p)", vars: ["p": .string(p)]) {
                case .success(let v): #expect(RulesValue.equal(v, .bool(true)), "\(p.prefix(10)): \(v.display.prefix(200))")
                case .failure(let d): Issue.record("\(d)")
                }
            }
            let tooDeep = String(repeating: "(", count: n + 1) + String(repeating: ")", count: n + 1)
            do throws(RegexError) {
                _ = try RulesRegex.compile(tooDeep)
                Issue.record("accepted")
            } catch {
                #expect(error.kind == .nestingDepth && error.offset == n)
            }
            // Nested counts that would expand to 2^100 instructions are refused before expanding.
            do throws(RegexError) {
                _ = try RulesRegex.compile(String(repeating: "(?:", count: 100) + "a" + String(repeating: "){2}", count: 100))
                Issue.record("accepted")
            } catch {
                #expect(error.kind == .patternTooLarge)
            }
        }
    }
}
