import EmulatorCore
import Testing

@testable import EmulatorStore

/// Full document names: every write's name is parsed, byte-wise.
@Suite struct DocumentNameTests {
    @Test func parsesFullNamesIntoProjectDatabaseAndPath() {
        func parsed(_ n: String) -> String? { DocumentName.parse(n).map { "\($0.project)|\($0.database)|\($0.path)" } }
        #expect(parsed("projects/p/databases/(default)/documents/c/d") == "p|(default)|c/d")
        #expect(parsed("projects/p/databases/db/documents") == "p|db|")
        #expect(parsed("projects/p/databases/db/documents/a/b/c") == "p|db|a/b/c")
        // An id may start with a combining mark: the slash before it still separates.
        #expect(parsed("projects/p/databases/db/documents/c/\u{301}x") == "p|db|c/\u{301}x")
        #expect(parsed("projects/p/databases/db/documents/") == nil)
        #expect(parsed("projects/p/databases/db/documents/c//d") == nil)
        #expect(parsed("projects//databases/db/documents/c/d") == nil)
        #expect(parsed("projects/p/databases//documents/c/d") == nil)
        #expect(parsed("projects/p/databases/db/document/c/d") == nil)
        #expect(parsed("project/p/databases/db/documents/c/d") == nil)
        #expect(parsed("projects/p/databases/db") == nil)
        #expect(parsed("") == nil)
    }
}
