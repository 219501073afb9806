import Testing

@testable import EmulatorHTTP

@Suite struct RouterTests {
    static func router() -> Router {
        var r = Router()
        let tag: (String) -> RouteHandler = { name in
            { _, m in HTTPResponse.text(name + " " + m.params.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")) }
        }
        r.get("/emulator/v1/status", tag("status"))
        r.add("*", "/{project}/{region}/{name}", tag("function"))
        r.post("/identitytoolkit.googleapis.com/v1/accounts:signUp", tag("signUp"))
        r.put("/emulator/v1/projects/{project}:securityRules", tag("rules"))
        r.get("/v1/projects/{project}/databases/{database}/documents/{path=**}", tag("get"))
        r.post("/v1/projects/{project}/databases/{database}/documents/{path=**}:runQuery", tag("runQuery"))
        r.post("/v1/projects/{project}/databases/{database}/documents:runQuery", tag("rootQuery"))
        return r
    }

    func resolve(_ method: String, _ path: String) async -> String {
        switch Self.router().resolve(method: method, path: path) {
        case .found(let h, let m): return String(decoding: (try? await h(HTTPRequest(method: method, target: path), m))?.body ?? [], as: UTF8.self)
        case .methodNotAllowed(let allowed): return "405 \(allowed)"
        case .notFound: return "404"
        }
    }

    @Test func literalRoutesWinOverPatterns() async {
        #expect(await resolve("GET", "/emulator/v1/status") == "status ")
        #expect(await resolve("POST", "/emulator/v1/status") == "405 [\"GET\"]")
        #expect(await resolve("POST", "/demo/us-central1/migrateTasks") == "function name=migrateTasks,project=demo,region=us-central1")
    }

    /// A 405 lists the methods the path has, sorted, each once; they are collected only then.
    @Test func methodNotAllowedListsEachOtherMethodOnce() {
        var r = Router()
        let h: RouteHandler = { _, _ in HTTPResponse.text("") }
        r.patch("/a/{x}", h)
        r.get("/a/{x}", h)
        r.delete("/a/{x}", h)
        r.patch("/a/{y}", h)
        guard case .methodNotAllowed(let methods) = r.resolve(method: "PUT", path: "/a/1") else {
            Issue.record("expected a 405")
            return
        }
        #expect(methods == ["DELETE", "GET", "PATCH"])
        guard case .methodNotAllowed(let forHead) = r.resolve(method: "HEAD", path: "/a/1") else { return }
        Issue.record("HEAD reaches GET, not a 405: \(forHead)")
    }

    @Test func verbsAreMatchedOnTheLastSegment() async {
        #expect(await resolve("POST", "/identitytoolkit.googleapis.com/v1/accounts:signUp") == "signUp ")
        #expect(await resolve("PUT", "/emulator/v1/projects/p1:securityRules") == "rules project=p1")
        #expect(await resolve("POST", "/v1/projects/p/databases/(default)/documents:runQuery") == "rootQuery database=(default),project=p")
        #expect(await resolve("POST", "/v1/projects/p/databases/d/documents/a/b:runQuery") == "runQuery database=d,path=a/b,project=p")
        #expect(await resolve("GET", "/v1/projects/p/databases/d/documents/a/b:c") == "get database=d,path=a/b:c,project=p")
    }

    /// The router only tries routes filed under the request's first (decoded) segment plus those
    /// that start with a pattern; these pin that the shortcut changes no answer.
    @Test func firstSegmentIndexKeepsResolutionUnchanged() async {
        var r = Router()
        let tag: (String) -> RouteHandler = { name in { _, _ in HTTPResponse.text(name) } }
        r.get("/x/{b}", tag("literal-first"))
        r.get("/{a}/{b}", tag("pattern-first"))
        r.post("/{a}:go", tag("verb-only"))
        r.post("/x:go", tag("literal-verb-only"))
        r.get("/", tag("root"))
        r.get("/x/{b}", tag("duplicate, registered later"))
        func answer(_ method: String, _ path: String) async -> String {
            guard case .found(let h, let m) = r.resolve(method: method, path: path) else { return "miss" }
            return String(decoding: (try? await h(HTTPRequest(method: method, target: path), m))?.body ?? [], as: UTF8.self)
        }
        #expect(await answer("GET", "/x/1") == "literal-first")
        #expect(await answer("GET", "/%78/1") == "literal-first")
        #expect(await answer("GET", "/y/1") == "pattern-first")
        #expect(await answer("POST", "/x:go") == "literal-verb-only")
        #expect(await answer("POST", "/z:go") == "verb-only")
        #expect(await answer("POST", "/:go") == "miss")
        #expect(await answer("GET", "/") == "root")
    }

    @Test func segmentsArePercentDecoded() async {
        #expect(await resolve("GET", "/v1/projects/p/databases/%28default%29/documents/c/d%20x") == "get database=(default),path=c/d x,project=p")
        #expect(await resolve("GET", "/v1/projects/p/databases/%zz/documents/c/d") == "404")
    }

    @Test func wildcardKeepsEncodedSlashInsideASegment() {
        guard case .found(_, let m) = Self.router().resolve(method: "GET", path: "/v1/projects/p/databases/d/documents/c/a%2Fb") else {
            Issue.record("no match")
            return
        }
        #expect(m.wildcardSegments["path"] == ["c", "a/b"])
    }

    @Test func headFallsBackToGet() async {
        #expect(await resolve("HEAD", "/emulator/v1/status") == "status ")
    }
}
