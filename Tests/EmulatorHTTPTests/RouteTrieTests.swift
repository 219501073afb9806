import Testing

@testable import EmulatorHTTP

/// The trie finds exactly the routes whose template matches a path, as testing every template
/// did (`Router.scanMatching`): over fixed edge cases and many generated paths.
@Suite struct RouteTrieTests {
    /// Templates of every shape the emulator registers: literals, parameters, wildcards, verbs
    /// after each, a bare root, pattern-first routes, overlapping prefixes.
    static let templates = [
        "/", "/emulator/v1/status", "/{project}/{region}/{name}", "/identitytoolkit.googleapis.com/v1/accounts:signUp",
        "/emulator/v1/projects/{project}:securityRules", "/v1/projects/{project}/databases/{database}/documents/{path=**}",
        "/v1/projects/{project}/databases/{database}/documents/{path=**}:runQuery",
        "/v1/projects/{project}/databases/{database}/documents:runQuery", "/v1/projects/{project}/databases/{database}/documents",
        "/v1/projects/{project}/topics/{topic}", "/v1/projects/{project}/topics/{topic}:publish", "/x/{b}", "/{a}/{b}", "/{a}:go",
        "/x:go", "/x:", "/b/{bucket}/o/{object=**}", "/b/{bucket}/o", "/{all=**}", "/{all=**}:verb", "/ui/{file=**}",
        "/emulator/v1/projects/{project}/accounts/{id}", "/a/b/c",
    ]

    static func router() -> Router {
        var r = Router()
        for (i, t) in templates.enumerated() { r.get(t) { _, _ in .text("\(i)") } }
        return r
    }

    /// Checks one path; returns how many routes it matched.
    @discardableResult func agree(_ r: Router, _ path: String) -> Int {
        guard case .success(let p) = RequestPath.normalized(path) else { return 0 }
        let trie = r.trieMatching(p)
        #expect(Set(trie) == r.scanMatching(p), "\(path)")
        #expect(Set(trie).count == trie.count, "a route found twice for \(path)")
        return trie.count
    }

    @Test func edgeCasesAgreeWithTestingEveryTemplate() {
        let r = Self.router()
        for path in [
            "/", "/x", "/x/", "/x/1", "/x:go", "/:go", "/x:", "/x::", "/z:go", "/a:b:go", "/emulator/v1/status", "/emulator/v1/status:x",
            "/emulator/v1/projects/p:securityRules", "/emulator/v1/projects/:securityRules", "/v1/projects/p/databases/d/documents",
            "/v1/projects/p/databases/d/documents:runQuery", "/v1/projects/p/databases/d/documents/c/d",
            "/v1/projects/p/databases/d/documents/c/d:runQuery", "/v1/projects/p/databases/d/documents/c/d:c",
            "/v1/projects/p/databases/d/documents/c/%3Arun", "/v1/projects/p/databases/d/documents/c/", "/v1/projects/p/topics/t:publish",
            "/v1/projects/p/topics/t:pub:publish", "/b/bk/o/a%2Fb/c", "/b/bk/o", "/b/bk/o/", "/ui/", "/ui/a/b.js", "/%78/1", "/a/b/c",
            "/a/b/c:verb", "/a/b:verb", "/q:verb", "/identitytoolkit.googleapis.com/v1/accounts:signUp",
        ] {
            agree(r, path)
        }
    }

    @Test func generatedPathsAgreeWithTestingEveryTemplate() {
        let r = Self.router()
        let words = [
            "", "x", "v1", "projects", "p", "databases", "(default)", "documents", "c", "d", "topics", "b", "o", "ui", "emulator", "status",
            "a", "%78", "%3A", "a%2Fb", "x:go", ":go", "d:runQuery", "t:publish", "accounts:signUp", "q:", "a:b:verb", "all:verb",
            "documents:runQuery",
        ]
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ n: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(n))
        }
        var matched = 0
        for _ in 0..<20_000 {
            let count = next(9)
            let path = "/" + (0..<count).map { _ in words[next(words.count)] }.joined(separator: "/")
            if agree(r, path) > 1 { matched += 1 }
        }
        // The comparison means something only if many paths match several routes.
        #expect(matched > 2_000)
    }
}
