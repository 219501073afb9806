import EmulatorCore
import EmulatorHTTP
import EmulatorTestSupport
import Testing

@testable import Emulator

/// The admin endpoints the UI reads, through the whole pipeline (no sockets).
@Suite struct UIEndpointsTests {
    static let owner: HTTPHeaders = ["Authorization": "Bearer owner"]

    static func call(_ app: EmulatorApp, _ method: String, _ target: String, _ body: JSON? = nil, headers: HTTPHeaders = owner) async throws -> (
        Int, JSON
    ) {
        try await app.call(method, target, body, headers: headers)
    }

    @Test func rulesEvaluationsRecordDenialsWithTheDecidingLine() async throws {
        let app = try AppPipelineTests.app()
        let rules =
            "rules_version = '2';\nservice cloud.firestore {\n  match /databases/{db}/documents {\n    match /tasks/{id} {\n      allow read: if request.auth != null && request.auth.uid == resource.data.owner;\n    }\n  }\n}\n"
        let (put, _) = try await Self.call(
            app, "PUT", "/emulator/v1/projects/demo-project:securityRules",
            ["rules": ["files": [["name": "firestore.rules", "content": .string(rules)]]]])
        #expect(put == 200)
        let (denied, _) = try await Self.call(app, "GET", "/v1/projects/demo-project/databases/(default)/documents/tasks/t1", headers: [:])
        #expect(denied == 403)
        let (ok, _) = try await Self.call(
            app, "PATCH", "/v1/projects/demo-project/databases/(default)/documents/tasks/t1", ["fields": ["owner": ["stringValue": "u1"]]])
        #expect(ok == 200)
        let (status, page) = try await Self.call(app, "GET", "/emulator/v1/projects/demo-project/rulesEvaluations")
        #expect(status == 200)
        let items: [JSON] = page["evaluations"]?.arrayValue ?? []
        #expect(items.map { $0["outcome"]?.stringValue ?? "" } == ["admin", "deny"])  // newest first
        let deny = items[1]
        #expect(deny["caller"]?["kind"] == "unauthenticated" && deny["method"] == "get" && deny["path"] == "tasks/t1")
        let point = deny["deciding"]?.arrayValue?.first
        #expect(point?["line"] == 5 && point?["expression"] == "request.auth != null")
        let id = deny["id"]?.stringValue ?? ""
        let (_, detail) = try await Self.call(app, "GET", "/emulator/v1/projects/demo-project/rulesEvaluations/\(id)")
        #expect(detail["rules"]?["content"]?.stringValue == rules)
        let (_, filtered) = try await Self.call(app, "GET", "/emulator/v1/projects/demo-project/rulesEvaluations?outcome=deny&pageSize=1")
        #expect(filtered["evaluations"]?.arrayValue?.count == 1 && filtered["nextPageToken"] == nil)
        let (bad, _) = try await Self.call(app, "GET", "/emulator/v1/projects/demo-project/rulesEvaluations?outcome=maybe")
        #expect(bad == 400)
        _ = try await Self.call(app, "POST", "/emulator/v1/projects/demo-project:reset")
        let (_, cleared) = try await Self.call(app, "GET", "/emulator/v1/projects/demo-project/rulesEvaluations")
        #expect(cleared["evaluations"]?.arrayValue?.isEmpty == true)  // a reset starts the log afresh
    }

    @Test func logIsARingOfTheNewest() {
        let log = RulesEvaluationLog(capacity: 3)
        for i in 1...5 {
            log.append(
                RulesEvaluation(
                    id: 0, project: "p", database: "(default)", time: Timestamp(seconds: Int64(i)), method: "get", path: "a/\(i)",
                    callerKind: "admin", outcome: "admin", explanation: "", deciding: [], debug: []))
        }
        let page = log.page(project: "p", filter: RulesEvaluationFilter(), before: nil, pageSize: 2)
        #expect(page.items.map(\.path) == ["a/5", "a/4"] && page.kept == 3)
        let rest = log.page(project: "p", filter: RulesEvaluationFilter(), before: page.next, pageSize: 2)
        #expect(rest.items.map(\.path) == ["a/3"] && rest.next == nil)
    }

    /// The log remembers the ring it appended to last; clearing or resetting a project must not
    /// leave appends going to a ring no longer in the log.
    @Test func logKeepsProjectsApartAcrossClears() {
        let log = RulesEvaluationLog(capacity: 10)
        func add(_ project: String, _ path: String) {
            log.append(
                RulesEvaluation(
                    id: 0, project: project, database: "(default)", time: Timestamp(seconds: 1), method: "get", path: path,
                    callerKind: "admin", outcome: "admin", explanation: "", deciding: [], debug: []))
        }
        add("a", "x/1")
        add("b", "x/2")
        add("a", "x/3")
        #expect(log.count(project: "a") == 2 && log.count(project: "b") == 1)
        log.clear(project: "a")
        add("a", "x/4")
        #expect(log.count(project: "a") == 1 && log.count(project: "b") == 1)
        log.resetAll()
        add("b", "x/5")
        #expect(log.count(project: "a") == 0 && log.count(project: "b") == 1)
        let ids = log.page(project: "b", filter: RulesEvaluationFilter(), before: nil, pageSize: 5).items.map(\.id)
        #expect(ids.count == 1 && ids[0] == 5)  // ids keep increasing across clears
    }

    /// The log keeps the rings of the projects appended to most recently: a ring for every project
    /// ever read made reads of made-up project ids grow the process without bound.
    @Test func logKeepsTheProjectsAppendedToMostRecently() {
        let log = RulesEvaluationLog(capacity: 10, maxProjects: 2)
        func add(_ project: String) {
            log.append(
                RulesEvaluation(
                    id: 0, project: project, database: "(default)", time: Timestamp(seconds: 1), method: "get", path: "c/d",
                    callerKind: "admin", outcome: "admin", explanation: "", deciding: [], debug: []))
        }
        add("a")
        add("b")
        add("a")
        add("c")  // b was appended to longest ago
        #expect(log.count(project: "a") == 2 && log.count(project: "b") == 0 && log.count(project: "c") == 1)
        for i in 0..<1000 { add("made-up-\(i)") }
        #expect(log.projectCount == 2 && log.count(project: "made-up-999") == 1)
    }

    @Test func browseListsCollectionsWithCountsAndPagesByName() async throws {
        let app = try AppPipelineTests.app()
        for i in 0..<7 {
            _ = try await Self.call(
                app, "PATCH", "/v1/projects/demo-project/databases/(default)/documents/items/i\(i)",
                ["fields": ["n": ["integerValue": .string(String(i))]]])
        }
        _ = try await Self.call(app, "PATCH", "/v1/projects/demo-project/databases/(default)/documents/items/ghost/sub/s1", ["fields": [:]])
        let (_, root) = try await Self.call(app, "GET", "/emulator/v1/projects/demo-project/databases/(default)/documents")
        #expect(root["collections"] == [["id": "items", "path": "items", "count": 7]])
        let (_, first) = try await Self.call(app, "GET", "/emulator/v1/projects/demo-project/databases/(default)/documents/items?pageSize=3")
        #expect(first["total"] == 7 && first["documents"]?.arrayValue?.count == 3 && first["nextPageToken"] == "i2" && first["missing"] == ["ghost"])
        let (_, last) = try await Self.call(
            app, "GET", "/emulator/v1/projects/demo-project/databases/(default)/documents/items?pageSize=3&pageToken=i5")
        #expect(last["documents"]?.arrayValue?.count == 1 && last["nextPageToken"] == nil)
        let (_, doc) = try await Self.call(app, "GET", "/emulator/v1/projects/demo-project/databases/(default)/documents/items/ghost")
        #expect(doc["document"] == .null && doc["collections"] == [["id": "sub", "path": "items/ghost/sub", "count": 1]])
        let (_, rev) = try await Self.call(app, "GET", "/emulator/v1/projects/demo-project/revision")
        #expect(rev["revision"] == 8)
        let (_, summary) = try await Self.call(app, "GET", "/emulator/v1/projects/demo-project/summary")
        #expect(summary["documents"] == 8 && summary["rules"]?["mode"] == "open")
    }

    @Test func usersArePagedNewestFirstAndSearchable() async throws {
        let app = try AppPipelineTests.app()
        let clock = app.services.projects.environment(for: "demo-project").clock
        for i in 0..<5 {
            try clock.freeze(at: Timestamp(seconds: 1_800_000_000 + Int64(i)))
            _ = try await Self.call(
                app, "POST", "/identitytoolkit.googleapis.com/v1/projects/demo-project/accounts",
                ["localId": .string("u\(i)"), "email": .string("user\(i)@example.com")])
        }
        let (_, p1) = try await Self.call(app, "GET", "/emulator/v1/projects/demo-project/users?pageSize=2")
        #expect(p1["users"]?.arrayValue?.map { $0["localId"]?.stringValue ?? "" } == ["u4", "u3"] && p1["total"] == 5 && p1["matched"] == 5)
        let token = p1["nextPageToken"]?.stringValue ?? ""
        let (_, p2) = try await Self.call(app, "GET", "/emulator/v1/projects/demo-project/users?pageSize=2&pageToken=\(token)")
        #expect(p2["users"]?.arrayValue?.map { $0["localId"]?.stringValue ?? "" } == ["u2", "u1"])
        let (_, found) = try await Self.call(app, "GET", "/emulator/v1/projects/demo-project/users?search=USER3%40")
        #expect(found["users"]?.arrayValue?.map { $0["localId"]?.stringValue ?? "" } == ["u3"] && found["matched"] == 1)
        let (_, anonymous) = try await Self.call(app, "GET", "/emulator/v1/projects/demo-project/users?kind=anonymous")
        #expect(anonymous["users"]?.arrayValue?.isEmpty == true)
        let (bad, _) = try await Self.call(app, "GET", "/emulator/v1/projects/demo-project/users?pageSize=0")
        #expect(bad == 400)
    }

    @Test func uiShellAnswersEveryDeepLinkAndAssetsHaveTypes() async throws {
        let app = try AppPipelineTests.app()
        for path in ["/ui", "/ui/", "/ui/firestore/a/b/c?project=x", "/ui/requests"] {
            let r = await app.handle(HTTPRequest(method: "GET", target: path))
            #expect(r.status == 200 && r.headers["Content-Type"] == "text/html; charset=utf-8")
            #expect(String(decoding: r.body, as: UTF8.self).contains("/ui/assets/core.js"))
        }
        for (name, asset) in UIAssets.all {
            let r = await app.handle(HTTPRequest(method: "GET", target: "/ui/assets/\(name)"))
            #expect(r.status == 200 && r.body == asset.bytes && r.headers["Content-Security-Policy"] != nil)
        }
        #expect(await app.handle(HTTPRequest(method: "GET", target: "/ui/assets/missing.js")).status == 404)
        // Data reaches the page as text only: no asset builds HTML from strings.
        for (name, asset) in UIAssets.all {
            let text = String(decoding: asset.bytes, as: UTF8.self)
            for sink in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("] {
                #expect(!text.contains(sink), "\(name) uses \(sink)")
            }
        }
        // Every script the shell loads exists.
        let shell = String(decoding: UIAssets.index.bytes, as: UTF8.self)
        for name in UIAssets.all.keys where name.hasSuffix(".js") { #expect(shell.contains("/ui/assets/\(name)")) }
    }
}
