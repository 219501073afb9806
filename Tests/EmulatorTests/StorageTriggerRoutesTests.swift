import EmulatorCore
import EmulatorFunctions
import EmulatorHTTP
import Testing

@testable import Emulator

/// Storage triggers reach Swift functions registered in process (the same queue workers and
/// Python codebases use): one event per change, none for reads. The any-language worker path is
/// pinned by Tests/python/functions/test_python_worker.py.
@Suite struct StorageTriggerRoutesTests {
    /// What the registered functions saw, behind a `Mutex`.
    final class Seen: Sendable {
        let events = Mutex<[String]>([])
        func add(_ e: String) { events.withLock { $0.append(e) } }
        var all: [String] { events.withLock { $0 } }
    }

    @Test func swiftFunctionsGetOneEventPerChange() async throws {
        let app = try StorageRoutesTests.app()
        let seen = Seen()
        for event in ["finalized", "metadataUpdated", "deleted"] {
            app.services.functions.register(
                project: "demo-project",
                FunctionDefinition(name: "on_\(event)", trigger: .storage(bucket: "demo-project.appspot.com", event: event)),
                .event { ev, _ in
                    seen.add("\(ev.type) \(ev.subject) \(ev.after?["name"]?.stringValue ?? "-") \(ev.after?["metageneration"]?.stringValue ?? "-")")
                })
        }
        let b = "/v0/b/demo-project.appspot.com/o"
        let up = await app.handle(
            StorageRoutesTests.request("POST", "\(b)?name=pics%2Fa.txt", body: Array("hi".utf8), headers: [("Content-Type", "text/plain")]))
        #expect(up.status == 200)
        // Reads (metadata, media) fire nothing.
        _ = await app.handle(StorageRoutesTests.request("GET", "\(b)/pics%2Fa.txt"))
        _ = await app.handle(StorageRoutesTests.request("GET", "\(b)/pics%2Fa.txt?alt=media"))
        let patch = await app.handle(
            StorageRoutesTests.request(
                "PATCH", "\(b)/pics%2Fa.txt", body: Array(#"{"customMetadata":{"k":"v"}}"#.utf8), headers: [("Content-Type", "application/json")]))
        #expect(patch.status == 200)
        let del = await app.handle(StorageRoutesTests.request("DELETE", "\(b)/pics%2Fa.txt"))
        #expect(del.status == 204)
        #expect(await app.services.functions.idle(project: "demo-project", timeout: 10) == nil)
        #expect(
            seen.all == [
                "storage.finalized demo-project.appspot.com/pics/a.txt pics/a.txt 1",
                "storage.metadataUpdated demo-project.appspot.com/pics/a.txt pics/a.txt 2",
                "storage.deleted demo-project.appspot.com/pics/a.txt pics/a.txt 2",
            ])
    }
}
