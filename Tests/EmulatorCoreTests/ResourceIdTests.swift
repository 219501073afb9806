import Testing

@testable import EmulatorCore

@Suite struct ResourceIdTests {
    @Test(arguments: ["demo-project", "p", "p1", "1abc", "e2e", "nobody-", "my-app-12345", String(repeating: "x", count: 100)])
    func projectIdsProductionAndTheEmulatorsAcceptPass(id: String) {
        #expect(ResourceId.projectProblem(id) == nil)
    }

    @Test(arguments: [
        ("", "it is empty"), ("a/b", "it contains '/'"), ("victim.json\u{0}x", "it contains '.'"), ("nul\u{0}", "it contains a NUL character"),
        ("tab\t", "it contains a control character"), ("UPPER", "it contains upper-case letters"), ("été", "it contains non-ASCII characters"),
        ("-lead", "it starts with a hyphen"), ("a:b", "it contains ':'"), ("..", "it contains '.'"), ("a b", "it contains ' '"),
        (String(repeating: "x", count: 101), "it is longer than 100 characters"),
    ])
    func otherProjectIdsAreRefusedWithTheReason(id: String, reason: String) {
        #expect(ResourceId.projectProblem(id) == reason)
        #expect(throws: EmulatorError.self) { try ResourceId.project(id) }
    }

    @Test func databaseIds() {
        for ok in ["(default)", "other-db", "db2", "a", String(repeating: "d", count: 63)] { #expect(ResourceId.databaseProblem(ok) == nil, "\(ok)") }
        for bad in ["", "(other)", "a\u{0}b", "UPPER", "a/b", "a.b", String(repeating: "d", count: 64)] {
            #expect(ResourceId.databaseProblem(bad) != nil, "\(bad)")
        }
    }

    @Test func messagesEscapeControlCharactersAndCutLongIds() {
        #expect(ResourceId.shown("a\u{0}b") == "a\\u{0}b")
        #expect(ResourceId.shown(String(repeating: "x", count: 200)).count == 121)
        let e = #expect(throws: EmulatorError.self) { try ResourceId.project("a\u{0}b") }
        #expect(e?.message.hasPrefix("Project id 'a\\u{0}b' is invalid: it contains a NUL character.") == true)
        #expect(e?.code == .invalidArgument)
    }
}
