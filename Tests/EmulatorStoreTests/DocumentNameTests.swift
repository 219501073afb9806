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
        #expect(parsed("projects/p/databases/db/documents/c/") == nil)
        #expect(parsed("projects/p/databases/db/documents//c") == nil)
        #expect(parsed("projects/p/databases/db/documents/c") == "p|db|c")
        #expect(parsed("projects/p/") == nil)
        #expect(parsed("/projects/p/databases/db/documents") == nil)
    }

    /// Names put together from awkward pieces parse exactly as splitting on `/` does (the
    /// reference below: five leading segments, then no empty segment).
    @Test func fullNamesAreTheRootAndThePath() {
        for (project, database, path) in [
            ("p", "(default)", "tasks/t1"), ("demo-x", "db2", ""), ("p", "d", "a/\u{301}x/é/日本"), ("", "", "x"),
            ("p", "d", "c/" + String(repeating: "z", count: 300)),
        ] {
            let expected =
                path.isEmpty ? "projects/\(project)/databases/\(database)/documents" : "projects/\(project)/databases/\(database)/documents/\(path)"
            #expect(DocumentName.full(project: project, database: database, path: path) == expected)
            #expect(DocumentName.full(project: project, database: database, path: path).utf8.elementsEqual(expected.utf8))
        }
    }

    @Test func parsingMatchesSplittingOnSlashes() {
        func reference(_ name: String) -> String? {
            let s = DocumentName.segments(name)
            guard s.count >= 5, s[0] == "projects", s[2] == "databases", s[4] == "documents", !s[1].isEmpty, !s[3].isEmpty else { return nil }
            let rest = s.dropFirst(5)
            guard !rest.contains(where: \.isEmpty) else { return nil }
            return "\(s[1])|\(s[3])|\(rest.joined(separator: "/"))"
        }
        let pieces = ["projects", "databases", "documents", "p", "(default)", "", "/", "c", "d", "\u{301}", "é", "documentsX", "//"]
        let g = IDGenerator(seed: 5)
        for _ in 0..<5000 {
            var name = ""
            for k in 0..<Int(g.next(below: 9)) {
                if k > 0 || g.next(below: 4) == 0 { name += "/" }
                name += pieces[Int(g.next(below: UInt64(pieces.count)))]
            }
            if g.next(below: 2) == 0 { name = "projects/p/databases/(default)/documents" + (name.isEmpty ? "" : "/" + name) }
            #expect(DocumentName.parse(name).map { "\($0.project)|\($0.database)|\($0.path)" } == reference(name), "\(name)")
        }
    }

    /// The shortcut `validateDocumentPath` takes for ordinary paths passes only paths the full
    /// checks pass, with their segment count; every path with a problem goes to the full checks.
    @Test func theOrdinaryPathShortcutAgreesWithTheFullChecks() {
        let long = String(repeating: "x", count: 1501)
        let cases = [
            "c/d", "c/d/e/f", "c", "c/d/e", "", "/c/d", "c/d/", "c//d", "./d", "c/..", "c/.x", "c/__x__", "c/__id12__", "c/_x_", "c/__",
            "c/___", "c/____", "c/\(long)", "c/" + String(repeating: "y", count: 1500), "é/ü", String(repeating: "a/b/", count: 1600) + "a/b",
        ]
        for path in cases {
            let full = Result { try DocumentName.validateSegments(DocumentName.segments(path), path) }
            if let n = DocumentName.plainSegmentCount(path) {
                #expect((try? full.get()) != nil, "\(path)")
                #expect(n == DocumentName.segments(path).count, "\(path)")
            }
            let even = !path.isEmpty && DocumentName.segments(path).count % 2 == 0
            #expect(((try? DocumentName.validateDocumentPath(path)) != nil) == (even && (try? full.get()) != nil), "\(path)")
        }
        #expect(DocumentName.plainSegmentCount("c/__x__") == nil)
        #expect(DocumentName.plainSegmentCount("c/d") == 2)
    }

    /// The byte-order shortcut of `compareNames` gives the segment walk's answer for 30,000
    /// generated pairs built from awkward pieces: bytes below and above `/`, prefixes of each
    /// other, numeric ids and near-misses (`__id1`, `__id__`, `__id01__`), empty segments,
    /// non-ASCII, names that are ancestors of each other.
    @Test func theByteOrderShortcutAgreesWithTheSegmentWalk() {
        let pieces = [
            "a", "b", "ab", "a!", "a-", "a.", "a0", "/", "/", "/", "_", "__", "__id1__", "__id2__", "__id10__", "__id01__", "__id__",
            "__id1", "__x__", "é", "e\u{301}", "\u{10FFFF}", "\u{0}", "~", " ", "__id9223372036854775808__",
        ]
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ n: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(n))
        }
        func name() -> String { (0..<(1 + next(6))).map { _ in pieces[next(pieces.count)] }.joined() }
        func walk(_ a: String, _ b: String) -> Int {
            a.withUTF8Bytes { p in b.withUTF8Bytes { q in DocumentName.compareSegments(p, q) } }
        }
        var disagreements: [String] = []
        for _ in 0..<30_000 {
            let a = name()
            // Half the pairs share a prefix, so the difference falls deep inside.
            let b = next(2) == 0 ? name() : a + name()
            for (x, y) in [(a, b), (b, a), (a, a)] where DocumentName.compareNames(x, y) != walk(x, y) {
                disagreements.append("\(x.debugDescription) vs \(y.debugDescription)")
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(5))")
    }
}
