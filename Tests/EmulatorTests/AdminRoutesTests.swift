import EmulatorCore
import EmulatorHTTP
import EmulatorTestSupport
import Foundation
import Testing

@testable import Emulator

/// Projects, clock, seed and fault endpoints through the pipeline (no sockets).
@Suite struct AdminRoutesTests {
    let app: EmulatorApp
    init() throws { app = try AppPipelineTests.app() }

    func call(_ method: String, _ target: String, _ body: JSON? = nil) async throws -> (Int, JSON) {
        try await app.call(method, target, body, headers: [:])
    }

    @Test func registersProjectsWithApiKeys() async throws {
        let (status, body) = try await call("POST", "/emulator/v1/projects", ["projectId": "suite-a", "apiKey": "key-a"])
        #expect(status == 200)
        #expect(body["apiKey"] == "key-a")
        #expect(app.services.projects.projectId(forAPIKey: "key-a") == "suite-a")
        #expect(app.services.projects.projectId(forAPIKey: "unknown") == "demo-project")
        let (_, list) = try await call("GET", "/emulator/v1/projects")
        #expect(list["projects"]?.arrayValue?.compactMap { $0["projectId"]?.stringValue } == ["demo-project", "suite-a"])
    }

    /// Keys are looked up in a table kept beside the projects: a new key replaces the old one,
    /// the last project registered with a key owns it, and removing a project drops only its own.
    @Test func apiKeysFollowTheirLastRegistration() throws {
        let projects = app.services.projects
        try projects.register(projectId: "keyed-a", apiKey: "k1")
        try projects.register(projectId: "keyed-a", apiKey: "k2")
        #expect(projects.projectId(forAPIKey: "k1") == "demo-project")
        #expect(projects.projectId(forAPIKey: "k2") == "keyed-a")
        try projects.register(projectId: "keyed-b", apiKey: "k2")
        #expect(projects.projectId(forAPIKey: "k2") == "keyed-b")
        projects.remove("keyed-a")
        #expect(projects.projectId(forAPIKey: "k2") == "keyed-b")
        projects.remove("keyed-b")
        #expect(projects.projectId(forAPIKey: "k2") == "demo-project")
        #expect(projects.apiKey(of: "keyed-b") == nil)
    }

    @Test(
        arguments: [
            (JSON.object([:]), "'projectId' must be a non-empty string"),
            (["projectId": "a/b"], "Project id 'a/b' is invalid: it contains '/'"),
            (["projectId": "Upper"], "Project id 'Upper' is invalid: it contains upper-case letters"),
            (["projectId": "ok", "apiKey": 3], "'apiKey' must be a non-empty string"),
        ] as [(JSON, String)])
    func rejectsBadProjectBodies(body: JSON, fragment: String) async throws {
        let (status, r) = try await call("POST", "/emulator/v1/projects", body)
        #expect(status == 400)
        #expect(r["error"]?["message"]?.stringValue?.contains(fragment) == true)
    }

    @Test func removingAProjectForgetsEverythingOfIt() async throws {
        _ = try await call("POST", "/emulator/v1/projects", ["projectId": "gone", "apiKey": "key-gone"])
        _ = try await call("PUT", "/emulator/v1/projects/gone/clock", ["mode": "frozen", "time": "2030-01-01T00:00:00Z"])
        #expect(try await call("PATCH", "/v1/projects/gone/databases/(default)/documents/c/d", ["fields": [:]]).0 == 200)
        #expect(try await call("POST", "/emulator/v1/projects/gone/snapshots", ["name": "s"]).0 == 200)
        let (status, body) = try await call("DELETE", "/emulator/v1/projects/gone")
        #expect(status == 200 && body["removed"] == true)
        let (_, list) = try await call("GET", "/emulator/v1/projects")
        #expect(list["projects"]?.arrayValue?.contains { $0["projectId"] == "gone" } == false)
        #expect(app.services.projects.projectId(forAPIKey: "key-gone") == "demo-project")
        #expect(try await call("GET", "/emulator/v1/projects/gone/snapshots").0 == 404)
        // Used again, it starts afresh: no documents, the system clock.
        #expect(try await call("GET", "/v1/projects/gone/databases/(default)/documents/c/d").0 == 404)
        #expect(try await call("PATCH", "/v1/projects/gone/databases/(default)/documents/c/e", ["fields": [:]]).0 == 200)
        #expect(try await call("GET", "/emulator/v1/projects/gone/clock").1["mode"] == "system")
        #expect(try await call("DELETE", "/emulator/v1/projects/never-used").0 == 404)
        #expect(try await call("DELETE", "/emulator/v1/projects/demo-project").0 == 400)
    }

    /// Reading a project nothing has written keeps nothing of it: every read of a made-up project
    /// id once registered it (about 1.1 KB) for the process's life. A write makes it known.
    @Test func readsOfUnusedProjectsRegisterNothing() async throws {
        #expect(try await call("GET", "/v1/projects/only-read/databases/(default)/documents/c/d").0 == 404)
        #expect(
            try await call(
                "POST", "/v1/projects/only-read/databases/(default)/documents:runQuery", ["structuredQuery": ["from": [["collectionId": "c"]]]]
            ).0 == 200)
        #expect(!app.services.projects.contains("only-read"))
        let (status, body) = try await call("GET", "/emulator/v1/projects/only-read/clock")
        #expect(status == 404 && body["error"]?["message"]?.stringValue?.contains("write to it first") == true)
        #expect(try await call("PATCH", "/v1/projects/only-read/databases/(default)/documents/c/d", ["fields": [:]]).0 == 200)
        #expect(app.services.projects.contains("only-read"))
    }

    @Test func clockFreezesAdvancesAndReturnsToSystem() async throws {
        var (status, body) = try await call("PUT", "/emulator/v1/projects/demo-project/clock", ["mode": "frozen", "time": "2030-01-01T00:00:00Z"])
        #expect(status == 200)
        #expect(body["time"] == "2030-01-01T00:00:00Z")
        (status, body) = try await call("POST", "/emulator/v1/projects/demo-project/clock:advance", ["seconds": 301])
        #expect(body["time"] == "2030-01-01T00:05:01Z")
        #expect(app.services.projects.environment(for: "demo-project").clock.now() == Timestamp(rfc3339: "2030-01-01T00:05:01Z"))
        (status, body) = try await call("PUT", "/emulator/v1/projects/demo-project/clock", ["mode": "system"])
        #expect(body["mode"] == "system")
    }

    @Test func clockRejectsBadInputAndUnknownProjects() async throws {
        #expect(try await call("PUT", "/emulator/v1/projects/demo-project/clock", ["mode": "frozen", "time": "yesterday"]).0 == 400)
        #expect(try await call("PUT", "/emulator/v1/projects/demo-project/clock", ["mode": "warp"]).0 == 400)
        #expect(try await call("POST", "/emulator/v1/projects/demo-project/clock:advance", ["seconds": "x"]).0 == 400)
        #expect(try await call("GET", "/emulator/v1/projects/never-seen/clock").0 == 404)
    }

    @Test func seedMakesIdsReproducible() async throws {
        _ = try await call("PUT", "/emulator/v1/projects/demo-project/seed", ["seed": 42])
        let ids = app.services.projects.environment(for: "demo-project").ids
        let first = ids.documentID()
        app.services.projects.restartSequence(of: "demo-project")
        #expect(ids.documentID() == first)
        #expect(try await call("PUT", "/emulator/v1/projects/demo-project/seed", ["seed": -1]).0 == 400)
        #expect(try await call("GET", "/emulator/v1/projects/demo-project/seed").1["seed"] == 42)
    }

    @Test func faultsAreListedCountedAndCleared() async throws {
        let (status, rule) = try await call(
            "POST", "/emulator/v1/projects/demo-project/faults",
            [
                "match": ["service": "firestore", "method": "commit"], "error": ["status": "ABORTED"], "times": 2,
            ])
        #expect(status == 200)
        #expect(rule["remaining"] == 2)
        let t = FaultTarget(service: "firestore", method: "commit", path: "")
        #expect(app.services.faults.fire(projectId: "demo-project", target: t)?.error?.code == .aborted)
        #expect(app.services.faults.fire(projectId: "demo-project", target: FaultTarget(service: "firestore", method: "get", path: "")) == nil)
        #expect(app.services.faults.fire(projectId: "demo-project", target: t) != nil)
        #expect(app.services.faults.fire(projectId: "demo-project", target: t) == nil)
        let (_, list) = try await call("GET", "/emulator/v1/projects/demo-project/faults")
        #expect(list["faults"]?.arrayValue?.first?["fired"] == 2)
        #expect(try await call("DELETE", "/emulator/v1/projects/demo-project/faults").1["removed"] == 1)
    }

    @Test(
        arguments: [
            (JSON.object(["error": ["status": "ABORTED"]]), "fault needs a 'match' object"),
            (["match": ["service": "hosting"]], "match.service must be one of"),
            (["match": ["service": "auth"], "error": ["status": "NOPE"]], "error.status must be a canonical code"),
            (["match": ["service": "auth"]], "a fault needs an 'error', a 'delayMs', or both"),
            (["match": ["service": "auth"], "delayMs": 10, "probability": 2], "probability must be between 0 and 1"),
            (["match": ["service": "auth"], "delayMs": 10, "times": 0], "times must be a positive integer"),
            (["match": ["service": "auth"], "delayMs": 10, "extra": 1], "unknown fault field 'extra'"),
        ] as [(JSON, String)])
    func rejectsBadFaults(body: JSON, fragment: String) async throws {
        let (status, r) = try await call("POST", "/emulator/v1/projects/demo-project/faults", body)
        #expect(status == 400)
        #expect(r["error"]?["message"]?.stringValue?.contains(fragment) == true, "\(r)")
    }

    @Test func seededProbabilityIsReproducible() throws {
        func pattern() throws -> [Bool] {
            let f = FaultInjector()
            f.reseed(7)
            _ = try f.add(projectId: "p", body: ["match": ["service": "auth"], "error": ["status": "UNAVAILABLE"], "probability": 0.5])
            return (0..<32).map { _ in f.fire(projectId: "p", target: FaultTarget(service: "auth", method: "x", path: "/")) != nil }
        }
        let a = try pattern()
        #expect(a == (try pattern()))
        #expect(a.contains(true) && a.contains(false))
    }

    @Test(arguments: [
        ("tasks/*", "tasks/t1", true), ("tasks/*", "tasks/t1/sub/x", false), ("tasks/**", "tasks/t1/sub/x", true),
        ("**/x", "a/b/x", true), ("t*/a?", "tasks/a?", true), ("users/u*", "users/alice", false), ("users/a*", "users/alice", true),
    ])
    func globMatching(pattern: String, path: String, expected: Bool) {
        #expect(Glob.matches(pattern, path) == expected)
    }
}

@Suite struct AdminOpenAPITests {
    @Test func everyDocumentedPathIsRouted() async throws {
        let app = try AppPipelineTests.app()
        let r = await app.handle(HTTPRequest(method: "GET", target: "/emulator/v1/openapi.json"))
        #expect(r.status == 200)
        let doc = try JSON.parse(r.body)
        let paths = try #require(doc["paths"]?.objectValue)
        for (path, ops) in paths {
            for method in Array(ops.objectValue?.keys ?? UTF8Dictionary<JSON>().keys) {
                let concrete = path.replacingOccurrences(of: "{project}", with: "demo-project").replacingOccurrences(of: "{name}", with: "n")
                guard case .found = app.router.resolve(method: method.uppercased(), path: concrete) else {
                    Issue.record("\(method.uppercased()) \(path) is documented but not routed")
                    continue
                }
            }
        }
    }
}
