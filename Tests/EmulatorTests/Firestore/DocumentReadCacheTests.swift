import EmulatorCore
import EmulatorStore
import Testing

@testable import Emulator

/// GetDocument through the store with the per-version cache: a new version (an update, a
/// transform) is what the next read answers, a masked read does not touch the full encoding, and a
/// read-time read answers the old version.
@Suite struct DocumentReadCacheTests {
    let app: EmulatorApp
    let api: FirestoreAPI
    let root = "projects/p/databases/(default)/documents"

    init() throws {
        app = EmulatorApp(services: try EmulatorServices(config: EmulatorConfig(), logger: NullLogSink()))
        api = FirestoreAPI(services: app.services)
    }

    func owner() -> FirestoreCallContext { FirestoreCallContext(bearerToken: "owner") }

    func commit(_ writes: [JSON]) async throws -> JSON {
        try await api.unary(.commit, ["database": "projects/p/databases/(default)", "writes": .array(writes)], owner())
    }

    func get(_ extra: UTF8Dictionary<JSON> = [:]) async throws -> (DocumentReply, JSON) {
        var q = extra
        q["name"] = .string("\(root)/tasks/t1")
        let reply = try await api.getDocumentCall(.object(q), owner())
        return (reply, try JSON.parse(reply.restJSON()))
    }

    @Test func newVersionsMaskAndReadTime() async throws {
        let first = try await commit([
            ["update": ["name": .string("\(root)/tasks/t1"), "fields": ["n": ["integerValue": "1"], "s": ["stringValue": "a"]]]]
        ])
        let (reply, v1) = try await get()
        guard case .version(let stored, _) = reply else {
            Issue.record("a full read answers the stored version")
            return
        }
        #expect(v1["fields"]?["n"]?["integerValue"] == "1")
        #expect(stored.encodings?.cached(.restJSON, project: "p", database: "(default)") != nil)
        #expect(try await get().1 == v1, "the cached answer")

        // A transform makes a new version: the next read answers it.
        _ = try await commit([
            [
                "transform": [
                    "document": .string("\(root)/tasks/t1"),
                    "fieldTransforms": [["fieldPath": "n", "increment": ["integerValue": "5"]]],
                ]
            ]
        ])
        let (_, v2) = try await get()
        #expect(v2["fields"]?["n"]?["integerValue"] == "6" && v2["fields"]?["s"]?["stringValue"] == "a")

        // A mask answers only its fields, never the cached full document.
        let (masked, m) = try await get(["mask": ["fieldPaths": ["s"]]])
        guard case .json = masked else {
            Issue.record("a masked read is encoded for the request")
            return
        }
        #expect(m["fields"]?["n"] == nil && m["fields"]?["s"]?["stringValue"] == "a")
        let (_, none) = try await get(["mask": [:]])
        #expect(none["fields"] == nil && none["name"] != nil)

        // A read at the first commit's time answers the first version.
        let readTime = try #require(first["commitTime"]?.stringValue)
        let (_, old) = try await get(["readTime": .string(readTime)])
        #expect(old == v1)
        #expect(try await get().1 == v2)
    }
}
