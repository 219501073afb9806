import EmulatorCore
import EmulatorHTTP
import EmulatorStore
import Foundation
import Testing

@testable import Emulator

/// Index enforcement and suggestions through the app: the REST route (an adapter over the
/// transport-neutral Firestore API that gRPC and WebChannel share), the index file reloaded when
/// it changes, the suggestions endpoint and project reset; the configuration keys and flags.
@Suite struct IndexEnforcementTests {
    static let emptyFile = #"{"indexes": [], "fieldOverrides": []}"#
    static let tasksIndex =
        #"{"indexes": [{"collectionGroup": "tasks", "queryScope": "COLLECTION", "fields": [{"fieldPath": "owner", "order": "ASCENDING"}, {"fieldPath": "due", "order": "DESCENDING"}]}], "fieldOverrides": []}"#

    static func app(strict: Bool, indexes: String?) throws -> EmulatorApp {
        try AppPipelineTests.app { c in
            c.strictIndexes = strict
            c.indexesPath = indexes
        }
    }

    /// `where owner == "a" order by due desc` over REST.
    static func runQuery(_ app: EmulatorApp, group: Bool = false) async -> (status: Int, body: JSON) {
        let q: JSON = [
            "structuredQuery": [
                "from": [["collectionId": "tasks", "allDescendants": .bool(group)]],
                "where": ["fieldFilter": ["field": ["fieldPath": "owner"], "op": "EQUAL", "value": ["stringValue": "a"]]],
                "orderBy": [["field": ["fieldPath": "due"], "direction": "DESCENDING"]],
            ]
        ]
        let r = await app.handle(
            HTTPRequest(
                method: "POST", target: "/v1/projects/demo-project/databases/(default)/documents:runQuery",
                headers: ["Authorization": "Bearer owner", "Content-Type": "application/json"], body: Array(q.serialized().utf8)))
        return (r.status, (try? JSON.parse(r.body)) ?? .null)
    }

    static func suggested(_ app: EmulatorApp, _ query: String = "") async throws -> JSON {
        let r = await app.handle(
            HTTPRequest(method: "GET", target: "/emulator/v1/projects/demo-project/databases/(default)/indexes:suggested\(query)"))
        #expect(r.status == 200)
        return try JSON.parse(r.body)
    }

    static let expectedIndex: JSON = [
        "collectionGroup": "tasks", "queryScope": "COLLECTION",
        "fields": [
            ["fieldPath": "owner", "order": "ASCENDING"], ["fieldPath": "due", "order": "DESCENDING"],
            ["fieldPath": "__name__", "order": "DESCENDING"],
        ],
    ]

    @Test func strictRefusesWithProductionsMessageUntilTheFileHasTheIndex() async throws {
        let dir = try TempDir()
        let file = try dir.write("firestore.indexes.json", Self.emptyFile)
        let app = try Self.app(strict: true, indexes: file)
        let refused = await Self.runQuery(app)
        #expect(refused.status == 400)
        let error = refused.body.arrayValue?.first?["error"] ?? refused.body["error"]
        #expect(error?["status"] == "FAILED_PRECONDITION")
        let message = error?["message"]?.stringValue ?? ""
        #expect(
            message.hasPrefix(
                "The query requires an index. You can create it here: https://console.firebase.google.com/v1/r/project/demo-project/firestore/indexes?create_composite="
            ))
        // The link decodes to the index production needs.
        let blob = try #require(message.split(separator: "=").last.map(String.init))
        let bytes = try #require(Base64.decode(blob))
        #expect(String(decoding: bytes, as: UTF8.self).contains("projects/demo-project/databases/(default)/collectionGroups/tasks/indexes/_"))
        // Adding the index to the file (no restart) lets the query through.
        try Self.tasksIndex.write(toFile: file, atomically: true, encoding: .utf8)
        let served = await Self.runQuery(app)
        #expect(served.status == 200)
        // A collection-group query needs a collection-group index of its own.
        let group = await Self.runQuery(app, group: true)
        #expect(group.status == 400)
    }

    @Test func suggestionsAreOnByDefaultAndClearedByReset() async throws {
        let app = try Self.app(strict: false, indexes: nil)
        #expect(await Self.runQuery(app).status == 200)
        #expect(await Self.runQuery(app).status == 200)
        let file = try await Self.suggested(app)
        #expect(file == ["indexes": [Self.expectedIndex], "fieldOverrides": []])
        #expect(try await Self.suggested(app, "?missingOnly=true") == file)
        let bad = await app.handle(
            HTTPRequest(method: "GET", target: "/emulator/v1/projects/demo-project/databases/(default)/indexes:suggested?missingOnly=maybe"))
        #expect(bad.status == 400)
        #expect(await app.handle(HTTPRequest(method: "POST", target: "/emulator/v1/projects/demo-project:reset")).status == 200)
        #expect(try await Self.suggested(app) == ["indexes": [], "fieldOverrides": []])
    }

    @Test func suggestionsKeepTheConfiguredIndexes() async throws {
        let dir = try TempDir()
        let file = try dir.write("firestore.indexes.json", Self.tasksIndex)
        let app = try Self.app(strict: false, indexes: file)
        #expect(await Self.runQuery(app, group: true).status == 200)
        let suggested = try await Self.suggested(app)
        #expect(suggested["indexes"]?.arrayValue?.count == 2)
        #expect(try await Self.suggested(app, "?missingOnly=true")["indexes"]?.arrayValue?.first?["queryScope"] == "COLLECTION_GROUP")
    }

    @Test func aListenTargetIsRemovedWithTheSameRefusal() async throws {
        let app = try Self.app(strict: true, indexes: nil)
        let listen = FirestoreListen(api: FirestoreAPI(services: app.services), context: FirestoreCallContext(bearerToken: "owner"))
        try listen.handle([
            "database": "projects/demo-project/databases/(default)",
            "addTarget": [
                "targetId": 7,
                "query": [
                    "parent": "projects/demo-project/databases/(default)/documents",
                    "structuredQuery": [
                        "from": [["collectionId": "tasks"]],
                        "where": ["fieldFilter": ["field": ["fieldPath": "owner"], "op": "EQUAL", "value": ["stringValue": "a"]]],
                        "orderBy": [["field": ["fieldPath": "due"], "direction": "DESCENDING"]],
                    ],
                ],
            ],
        ])
        guard case .events(let events) = await listen.session.next(), case .failed(let target, let error)? = events.first else {
            Issue.record("expected the target to fail")
            return
        }
        #expect(target == 7 && error.code == .failedPrecondition)
        #expect(error.message.hasPrefix("The query requires an index. You can create it here: "))
        listen.close()
    }

    @Test func aBrokenIndexFileIsAStartupError() throws {
        let dir = try TempDir()
        let file = try dir.write("firestore.indexes.json", #"{"indexes": [{"collectionGroup": "c", "fields": [{"fieldPath": "a", "order": "UP"}]}]}"#)
        #expect(throws: CLIError("index file '\(file)': indexes[0].fields[0].order must be ASCENDING or DESCENDING")) {
            try Self.app(strict: true, indexes: file)
        }
    }

    @Test func configurationKeysAndFlags() throws {
        let dir = try TempDir()
        let emulatorJSON = try dir.write(
            "emulator.json", #"{"firestore": {"strictIndexes": true, "indexes": "idx.json", "transactionIdleSeconds": 30}}"#)
        var c = EmulatorConfig()
        try ConfigLoader.load(path: emulatorJSON, into: &c)
        #expect(c.strictIndexes && c.indexesPath == dir.path + "/idx.json")
        #expect(c.firestore == ["transactionIdleSeconds": 30])
        let firebaseJSON = try dir.write(
            "firebase.json",
            #"{"emulators": {"firestore": {"port": 8080, "strictIndexes": true}}, "firestore": {"rules": "r.rules", "indexes": "firestore.indexes.json"}}"#
        )
        var f = EmulatorConfig()
        try ConfigLoader.load(path: firebaseJSON, into: &f)
        #expect(f.strictIndexes && f.indexesPath == dir.path + "/firestore.indexes.json")
        let bad = try dir.write("bad.json", #"{"firestore": {"strictIndexes": "yes"}}"#)
        var b = EmulatorConfig()
        #expect(throws: CLIError("config file '\(bad)': 'firestore.strictIndexes' must be true or false, got \"yes\"")) {
            try ConfigLoader.load(path: bad, into: &b)
        }
        var o = EmulatorConfig()
        try CommandLineOptions.parse(["start", "--strict-indexes", "--indexes", "/x/firestore.indexes.json"]).apply(to: &o)
        #expect(o.strictIndexes && o.indexesPath == "/x/firestore.indexes.json")
        try CommandLineOptions.parse(["start", "--strict-indexes=false"]).apply(to: &f)
        #expect(!f.strictIndexes)
        #expect(throws: CLIError("flag '--strict-indexes' takes no value (or =true/=false)")) {
            try CommandLineOptions.parse(["start", "--strict-indexes=on"])
        }
        #expect(CommandLineOptions.usage.contains("--strict-indexes"))
    }
}

/// Suggestions are bounded across databases and projects, not only per database: a query
/// needing an index, sent to made-up project ids, once kept a record for each for ever.
@Suite struct IndexSuggestionBoundTests {
    @Test func suggestionsStopAtTheProcessWideLimit() throws {
        let indexes = try IndexEnforcement(path: nil, strict: false, logger: NullLogSink(), maxNeeds: 3)
        let query = try StructuredQuery(json: [
            "from": [["collectionId": "tasks"]],
            "where": ["fieldFilter": ["field": ["fieldPath": "owner"], "op": "EQUAL", "value": ["stringValue": "a"]]],
            "orderBy": [["field": ["fieldPath": "due"], "direction": "DESCENDING"]],
        ])
        for i in 0..<10 { try indexes.check(project: "p\(i)", database: "(default)", query: query) }
        #expect(indexes.state.withLock { $0.suggestions.count } == 3)
        #expect(indexes.suggested(project: "p9", database: "(default)", missingOnly: true)["indexes"]?.arrayValue?.isEmpty == true)
        // A reset gives the room back.
        try indexes.resetProject("p0")
        try indexes.check(project: "p9", database: "(default)", query: query)
        #expect(indexes.suggested(project: "p9", database: "(default)", missingOnly: true)["indexes"]?.arrayValue?.count == 1)
        #expect(indexes.state.withLock { $0.suggestions.count } == 3)
    }
}
