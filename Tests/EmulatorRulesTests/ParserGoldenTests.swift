import Testing

@testable import EmulatorRules

@Suite struct ParserGoldenTests {
    func ast(_ source: String) throws -> RulesAST {
        switch CompiledRuleset.compile(source: source) {
        case .success(let r): return r.ast
        case .failure(let e): throw e
        }
    }

    @Test func printsTheTreeWithPrecedence() throws {
        let source = """
            rules_version = '2';
            service cloud.firestore {
              function f(a, b) {
                let c = a + b * 2;
                return c > 3 || !b is int && a in [1, 2];
              }
              match /databases/{database}/documents {
                match /users/{uid}/{rest=**} {
                  allow read, write: if f(1, 2) ? request.auth.uid == uid : get(/databases/$(database)/documents/x/$(uid)).data.ok;
                  allow delete;
                }
              }
            }
            """
        #expect(
            try ast(source).printed == """
                rules_version 2
                service cloud.firestore
                function f(a, b)
                  let c = (a + (b * 2))
                  return ((c > 3) || ((!(b) is int) && (a in [1, 2])))
                match /databases/{database}/documents
                  match /users/{uid}/{rest=**}
                    allow read, write: if (f(1, 2) ? (request.auth.uid == uid) : get(path(databases/$(database)/documents/x/$(uid))).data.ok)
                    allow delete

                """)
    }

    @Test(arguments: [
        (
            "service cloud.firestore { match /a { allow get: if 1 +; } }",
            "firestore.rules:1:55: error: expected an expression but found ';'\n  service cloud.firestore { match /a { allow get: if 1 +; } }\n"
                + String(repeating: " ", count: 56) + "^"
        ),
        (
            "service cloud.firestore {\n  match /a {\n    allow fetch;\n  }\n}",
            "firestore.rules:3:5: error: unknown method 'fetch' (expected read, write, get, list, create, update or delete)\n      allow fetch;\n      ^"
        ),
        (
            "service cloud.firestore { match /a { allow get: if nope(1); } }",
            "firestore.rules:1:52: error: unknown function 'nope'\n  service cloud.firestore { match /a { allow get: if nope(1); } }\n                                                     ^"
        ),
        (
            "service cloud.firestore { match /a { allow get: if who == 1; } }",
            "firestore.rules:1:52: error: unknown variable 'who'\n  service cloud.firestore { match /a { allow get: if who == 1; } }\n                                                     ^"
        ),
        (
            "service cloud.firestore { function f(x) { return x; } match /a { allow get: if f(1, 2); } }",
            "firestore.rules:1:80: error: function 'f' takes 1 argument(s), called with 2\n  service cloud.firestore { function f(x) { return x; } match /a { allow get: if f(1, 2); } }\n"
                + String(repeating: " ", count: 81) + "^"
        ),
        (
            "service cloud.firestore { function f() { return g(); } function g() { return f(); } match /a { allow get: if f(); } }",
            "firestore.rules:1:27: error: recursion is not allowed: f → g → f\n  service cloud.firestore { function f() { return g(); } function g() { return f(); } match /a { allow get: if f(); } }\n                            ^"
        ),
        (
            "service cloud.firestore { function f() { let x = 1; return x; } match /a { allow get: if f(); } }",
            "firestore.rules:1:42: error: 'let' bindings need rules_version = '2'\n  service cloud.firestore { function f() { let x = 1; return x; } match /a { allow get: if f(); } }\n                                           ^"
        ),
        (
            "service cloud.firestore { match /a { allow get: if 'open; } }",
            "firestore.rules:1:52: error: unterminated string\n  service cloud.firestore { match /a { allow get: if 'open; } }\n                                                     ^"
        ),
        // One backslash before a regex class: production refuses the ruleset, so do we.
        (
            "service cloud.firestore { match /a { allow get: if 'a1'.matches('a\\d'); } }",
            "firestore.rules:1:67: error: invalid escape sequence '\\d' (a regular expression needs its backslash doubled: '\\\\d')\n  service cloud.firestore { match /a { allow get: if 'a1'.matches('a\\d'); } }\n"
                + String(repeating: " ", count: 68) + "^"
        ),
    ])
    func diagnosticsShowTheLineAndACaret(source: String, expected: String) {
        switch CompiledRuleset.compile(source: source) {
        case .success: Issue.record("compiled: \(source)")
        case .failure(let e): #expect(e.description == expected)
        }
    }

    @Test func coverageCountsAndRenders() throws {
        let rs = try CompiledRuleset.compile(
            source: "service cloud.firestore { match /databases/{d}/documents/{c}/{id} { allow get: if request.auth != null; } }"
        ).get()
        _ = rs.evaluate(RulesRequest(method: .get, path: ["c", "x"], auth: nil, time: .init(seconds: 0)), data: EmptyDataSource())
        let rows = rs.coverageJSON()["expressions"]?.arrayValue ?? []
        #expect(rows.contains { $0["expression"] == "request.auth != null" && $0["false"] == 1 })
        #expect(rs.coverageHTML().contains("✘1"))
    }
}
