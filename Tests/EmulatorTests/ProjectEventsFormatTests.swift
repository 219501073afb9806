import EmulatorCore
import Testing

@testable import Emulator
@testable import EmulatorStorage
@testable import EmulatorStore

/// The UI's event stream: Storage changes reach it through Storage's change observer
/// (`StorageFeed`) as `storage` events, merged per bucket, next to the store's `change` events.
@Suite struct ProjectEventsFormatTests {
    final class Sink: StorageFeedSink, @unchecked Sendable {
        let seen = Mutex<[StorageChange]>([])
        func storageChanged(_ change: StorageChange) { seen.withLock { $0.append(change) } }
    }

    @Test func aStorageUploadReachesTheProjectsSubscribersOnly() throws {
        let s = try EmulatorServices(config: EmulatorConfig(), logger: NullLogSink())
        let mine = Sink(), other = Sink()
        let revision = s.revisions.revision(of: "demo-project")
        s.storageFeed.subscribe(project: "demo-project", mine)
        s.storageFeed.subscribe(project: "other-project", other)
        _ = try s.storage.store(bytes: [1], as: .init(bucket: "demo-project.appspot.com", name: "a/b.txt"), caller: .admin)
        s.storageFeed.unsubscribe(mine)
        _ = try s.storage.store(bytes: [1], as: .init(bucket: "demo-project.appspot.com", name: "a/c.txt"), caller: .admin)
        #expect(mine.seen.withLock { $0.map { $0.object?.name } } == ["a/b.txt"])
        #expect(other.seen.withLock { $0.isEmpty })
        #expect(s.revisions.revision(of: "demo-project") == revision + 2)  // what the UI polls without a stream
    }

    /// A browser that never reads its event stream holds at most the queue's bound of small
    /// events: a queued Storage event names the object, it does not keep the object (whose
    /// `Blob` would keep a deleted object's file on disk, and whose metadata would cost memory).
    @Test func aQueuedStorageEventDoesNotKeepTheObjectsBytes() throws {
        let s = try EmulatorServices(config: EmulatorConfig(), logger: NullLogSink())
        let unread = ProjectFeedQueue()
        s.storageFeed.subscribe(project: "demo-project", unread)
        defer { s.storageFeed.unsubscribe(unread) }
        _ = try s.storage.store(bytes: [1, 2, 3], as: .init(bucket: "demo-project.appspot.com", name: "gone.txt"), caller: .admin)
        try s.storage.delete(bucket: "demo-project.appspot.com", name: "gone.txt", caller: .admin)
        #expect(s.storageBlobs.blobIds.isEmpty)
    }

    /// A stream that is not read costs one merged event per database and bucket, each with at
    /// most 201 names, however many changes arrive.
    @Test func anUnreadQueueKeepsOneBoundedEventPerDatabaseAndBucket() async throws {
        let queue = ProjectFeedQueue()
        let s = try EmulatorServices(config: EmulatorConfig(), logger: NullLogSink())
        let t = Timestamp(seconds: 1_800_000_000)
        let x = try s.storage.store(bytes: [1], as: .init(bucket: "demo-project.appspot.com", name: "x"), caller: .admin)
        for i in 0..<1_000 {
            queue.storeChanged(StoreFeedEvent(project: "p", database: "(default)", time: t, paths: ["c/\(i)", "c/0"], replaced: false))
            var o = x
            o.name = "o\(i)"
            queue.storageChanged(StorageChange(project: "p", bucket: "b", kind: .finalized, object: o, previous: nil, caller: nil, time: t))
        }
        let events = try #require(await queue.next(timeout: 1))
        #expect(events.count == 2)
        for e in events {
            switch e {
            case .store(let d): #expect(d.paths.count == ProjectFeedQueue.maxNames + 1 && d.paths.prefix(2) == ["c/0", "c/1"])
            case .storage(let b): #expect(b.names.count == ProjectFeedQueue.maxNames + 1 && b.names.first == "o0")
            }
        }
        let text = String(decoding: ProjectEventsRoutes.format(events), as: UTF8.self)
        #expect(text.contains("\"more\":true"))
    }

    @Test func storageChangesAreMergedPerBucket() throws {
        let s = try EmulatorServices(config: EmulatorConfig(), logger: NullLogSink())
        let t = Timestamp(seconds: 1_800_000_000)
        func object(_ name: String) throws -> StorageObject {
            try s.storage.store(bytes: [1], as: .init(bucket: "demo-project.appspot.com", name: name), caller: .admin)
        }
        let x = try object("x"), y = try object("y")
        let events: [ProjectFeedEvent] = [
            .storage(StorageFeedEvent(StorageChange(project: "p", bucket: "b", kind: .finalized, object: x, previous: nil, caller: nil, time: t))),
            .storage(StorageFeedEvent(StorageChange(project: "p", bucket: "b", kind: .deleted, object: nil, previous: y, caller: nil, time: t))),
            .storage(StorageFeedEvent(StorageChange(project: "p", bucket: "b", kind: .finalized, object: x, previous: nil, caller: nil, time: t))),
            .store(StoreFeedEvent(project: "p", database: "(default)", time: t, paths: ["c/d"], replaced: false)),
        ]
        let text = String(decoding: ProjectEventsRoutes.format(events), as: UTF8.self)
        let blocks = text.split(separator: "\n\n").map(String.init)
        #expect(blocks.count == 2)
        #expect(blocks[0].hasPrefix("event: change\ndata: "))
        #expect(blocks[1].hasPrefix("event: storage\ndata: "))
        let data = try JSON.parse(Array(blocks[1].dropFirst("event: storage\ndata: ".count).utf8))
        #expect(data["bucket"] == "b" && data["names"] == ["x", "y"] && data["kinds"] == ["deleted", "finalized"] && data["more"] == false)
    }
}
