import EmulatorCore
import EmulatorFunctions
import EmulatorHTTP
import Testing

@testable import EmulatorFunctionsWorker

/// The Swift worker library's storage triggers without sockets: `onStorage` lists a manifest entry
/// the host decodes into `FunctionTrigger.storage`, and an event envelope reaches the closure with
/// the object. The whole path through a worker process: Tests/python/functions/test_python_worker.py.
@Suite struct StorageWorkerTriggerTests {
    final class Seen: Sendable {
        let events = Mutex<[String]>([])
    }

    @Test func onStorageRegistersAndReceivesTheObject() async throws {
        let worker = FunctionsWorker()
        let seen = Seen()
        worker.onStorage("thumbs", event: "finalized") { e, _ in
            seen.events.withLock { $0.append("\(e.type) \(e.subject) \(e.after?["contentType"]?.stringValue ?? "-")") }
        }
        worker.onStorage("gone", event: "deleted", bucket: "other-bucket", retry: true) { _, _ in }
        let admin = WorkerAdmin(host: "127.0.0.1", port: 1, project: "p")
        let listing = await worker.handle(HTTPRequest(method: "GET", target: "/__/functions.json", headers: HTTPHeaders(), body: []), admin: admin)
        let entries = try #require(try JSON.parse(listing.body)["functions"]?.arrayValue)
        let defs = try entries.map { try FunctionDefinition(manifest: $0, project: "p") }.sorted { $0.name < $1.name }
        #expect(defs.map(\.trigger) == [.storage(bucket: "other-bucket", event: "deleted"), .storage(bucket: "p.appspot.com", event: "finalized")])
        #expect(defs.map(\.retry) == [true, false])

        // The envelope the host posts (`WorkerBackend.event`: `BackgroundEvent.json` of a storage event).
        let event: JSON = [
            "id": "1", "type": "storage.finalized", "time": "2027-01-15T08:00:00Z", "subject": "p.appspot.com/a/b.png", "params": [:],
            "after": ["name": "a/b.png", "bucket": "p.appspot.com", "contentType": "image/png"],
        ]
        let envelope: JSON = ["kind": "event", "project": "p", "time": "2027-01-15T08:00:00Z", "event": event]
        let r = await worker.handle(
            HTTPRequest(method: "POST", target: "/__/invoke/thumbs", headers: HTTPHeaders(), body: envelope.serializedBytes()), admin: admin)
        #expect(try JSON.parse(r.body)["result"] == .null)
        #expect(seen.events.withLock { $0 } == ["storage.finalized p.appspot.com/a/b.png image/png"])
    }
}
