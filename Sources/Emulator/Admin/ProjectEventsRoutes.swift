import EmulatorCore
import EmulatorHTTP
import EmulatorStorage
import EmulatorStore

/// `GET /emulator/v1/projects/{p}/events`: the project's change feeds as Server-Sent Events, for
/// the web UI's live view. Each store commit is one `change` event (`{"database", "time", "paths",
/// "replaced"}`); each Storage change one `storage` event (`{"bucket", "time", "names", "kinds"}`,
/// from Storage's change observer, `StorageFeed`). Several changes that arrive together are
/// merged per database or bucket, at most 200 paths or names listed; a comment line every 15 s
/// keeps proxies and idle timers from closing the stream.
enum ProjectEventsRoutes {
    /// Seconds between keep-alive comments.
    static let keepAliveSeconds = 15.0

    /// Registers the event stream route.
    static func register(_ r: inout Router, _ s: EmulatorServices) {
        r.get("/emulator/v1/projects/{project}/events") { _, m in
            let p = m["project"]
            try s.projects.requireKnown(p)
            var response = HTTPResponse(status: 200)
            response.headers.add("Content-Type", "text/event-stream; charset=utf-8")
            response.headers.add("Cache-Control", "no-cache")
            response.stream = { writer in
                let queue = ProjectFeedQueue()
                s.store.subscribe(project: p, queue)
                s.storageFeed.subscribe(project: p, queue)
                defer {
                    s.store.unsubscribe(queue)
                    s.storageFeed.unsubscribe(queue)
                }
                do {
                    try await writer.write(Array("retry: 2000\n\n".utf8))
                    while true {
                        guard let events = await queue.next(timeout: keepAliveSeconds) else { return }
                        if events.isEmpty {
                            try await writer.write(Array(": keep-alive\n\n".utf8))
                        } else {
                            try await writer.write(Self.format(events))
                        }
                    }
                } catch {
                    return  // the browser went away
                }
            }
            return response
        }
    }

    /// Merges queued events: store commits per database into `change` events, Storage changes
    /// per bucket into `storage` events.
    static func format(_ events: [ProjectFeedEvent]) -> [UInt8] {
        var byDatabase: [String: (time: Timestamp, paths: [String], replaced: Bool)] = [:]
        var byBucket: [String: (time: Timestamp, names: [String], kinds: Set<String>)] = [:]
        for event in events {
            switch event {
            case .store(let e):
                var entry = byDatabase[e.database] ?? (e.time, [], false)
                entry.time = max(entry.time, e.time)
                entry.paths.append(contentsOf: e.paths)
                entry.replaced = entry.replaced || e.replaced
                byDatabase[e.database] = entry
            case .storage(let c):
                var entry = byBucket[c.bucket] ?? (c.time, [], [])
                entry.time = max(entry.time, c.time)
                entry.names.append(contentsOf: c.names)
                entry.kinds.formUnion(c.kinds)
                byBucket[c.bucket] = entry
            }
        }
        var out: [UInt8] = []
        for (db, e) in byDatabase.sorted(by: { $0.key < $1.key }) {
            let paths = unique(e.paths)
            let data: JSON = [
                "database": .string(db), "time": .string(e.time.rfc3339()), "replaced": .bool(e.replaced),
                "paths": .array(paths.prefix(200).map { .string($0) }), "more": .bool(paths.count > 200),
            ]
            append(&out, "change", data)
        }
        for (bucket, e) in byBucket.sorted(by: { $0.key < $1.key }) {
            let names = unique(e.names)
            let data: JSON = [
                "bucket": .string(bucket), "time": .string(e.time.rfc3339()), "kinds": .array(e.kinds.sorted().map { .string($0) }),
                "names": .array(names.prefix(200).map { .string($0) }), "more": .bool(names.count > 200),
            ]
            append(&out, "storage", data)
        }
        return out
    }

    private static func unique(_ items: [String]) -> [String] {
        var seen = Set<String>()
        return items.filter { seen.insert($0).inserted }
    }

    private static func append(_ out: inout [UInt8], _ event: String, _ data: JSON) {
        out.append(contentsOf: "event: \(event)\ndata: ".utf8)
        out.append(contentsOf: data.serializedBytes())
        out.append(contentsOf: "\n\n".utf8)
    }
}

/// One event of a project's feeds.
enum ProjectFeedEvent: Sendable {
    /// A store commit or replacement.
    case store(StoreFeedEvent)
    /// A committed Storage change, as the stream reports it.
    case storage(StorageFeedEvent)
}

/// What the event stream says of Storage changes in one bucket: the object names, kinds and the
/// latest time. Queues keep this, never the changes' objects: an object holds its `Blob`, and a
/// queue a browser does not read would keep a deleted object's file on disk and its metadata in
/// memory.
struct StorageFeedEvent: Sendable {
    /// The bucket.
    var bucket: String
    /// The objects' names, first seen first (none for a bucket-level change).
    var names: [String]
    /// The changes' kinds (`StorageChange.Kind` raw values).
    var kinds: Set<String>
    /// When the latest happened.
    var time: Timestamp

    /// The event for `change`.
    init(_ change: StorageChange) {
        bucket = change.bucket
        names = ((change.object ?? change.previous)?.name).map { [$0] } ?? []
        kinds = [change.kind.rawValue]
        time = change.time
    }
}

/// A feed subscriber's queue: the store and Storage append inside their locks, the event stream
/// takes batches. State behind a `Mutex`. Bounded whatever the writers do while the stream is not
/// read: events wait merged, one per database and one per bucket (what `format` sends anyway),
/// each keeping at most `maxNames` + 1 distinct paths or names (the stream lists 200 and says
/// `more`), and at most `maxKeys` of them (the oldest go first).
final class ProjectFeedQueue: StoreFeedSink, StorageFeedSink, Sendable {
    private struct State {
        var events: [ProjectFeedEvent] = []
        /// Where the waiting event of a database ("d" + name) or bucket ("b" + name) is in `events`.
        var index: [String: Int] = [:]
        var waiter: CheckedContinuation<Void, Never>?
    }

    /// Paths or names one waiting event lists at most, beyond the 200 the stream sends.
    static let maxNames = 200
    /// Databases and buckets with waiting events at most.
    static let maxKeys = 10_000

    private let state = Mutex(State())

    /// Queues one store change (called inside the store's lock).
    func storeChanged(_ event: StoreFeedEvent) { enqueue(.store(event)) }

    /// Queues one Storage change (called inside Storage's lock).
    func storageChanged(_ change: StorageChange) { enqueue(.storage(StorageFeedEvent(change))) }

    private func enqueue(_ event: ProjectFeedEvent) {
        let w = state.withLock { s -> CheckedContinuation<Void, Never>? in
            Self.merge(event, into: &s)
            defer { s.waiter = nil }
            return s.waiter
        }
        w?.resume()
    }

    /// Merges `event` into the waiting one of its database or bucket, or queues it.
    private static func merge(_ event: ProjectFeedEvent, into s: inout State) {
        let key = Self.key(event)
        guard let i = s.index[key] else {
            if s.events.count >= maxKeys {
                s.events.removeFirst()
                s.index = [:]
                for (n, e) in s.events.enumerated() { s.index[Self.key(e)] = n }
            }
            s.index[key] = s.events.count
            s.events.append(capped(event))
            return
        }
        switch (s.events[i], event) {
        case (.store(var old), .store(let new)):
            old.time = max(old.time, new.time)
            old.replaced = old.replaced || new.replaced
            if old.paths.count <= maxNames { old.paths = distinct(old.paths + new.paths) }
            s.events[i] = .store(old)
        case (.storage(var old), .storage(let new)):
            old.time = max(old.time, new.time)
            old.kinds.formUnion(new.kinds)
            if old.names.count <= maxNames { old.names = distinct(old.names + new.names) }
            s.events[i] = .storage(old)
        default:
            break  // keys differ by kind: cannot happen
        }
    }

    private static func key(_ e: ProjectFeedEvent) -> String {
        switch e {
        case .store(let s): "d" + s.database
        case .storage(let s): "b" + s.bucket
        }
    }

    private static func capped(_ e: ProjectFeedEvent) -> ProjectFeedEvent {
        switch e {
        case .store(var s):
            s.paths = distinct(s.paths)
            return .store(s)
        case .storage(var s):
            s.names = distinct(s.names)
            return .storage(s)
        }
    }

    /// The first `maxNames` + 1 distinct items, in order.
    private static func distinct(_ items: [String]) -> [String] {
        var seen = Set<String>()
        var out: [String] = []
        for x in items where seen.insert(x).inserted {
            out.append(x)
            if out.count > maxNames { break }
        }
        return out
    }

    /// Waits up to `timeout` seconds: the queued events (empty after a timeout), or nil when the
    /// task was cancelled.
    func next(timeout: Double) async -> [ProjectFeedEvent]? {
        let timer = Task { [weak self] in
            guard (try? await Task.sleep(nanoseconds: MonotonicClock.nanoseconds(inSeconds: timeout))) != nil else { return }
            self?.wake()
        }
        defer { timer.cancel() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    if !s.events.isEmpty || Task.isCancelled { return true }
                    s.waiter = c
                    return false
                }
                if now { c.resume() }
            }
        } onCancel: { [weak self] in
            self?.wake()
        }
        if Task.isCancelled { return nil }
        return state.withLock { s in
            defer {
                s.events = []
                s.index = [:]
            }
            return s.events
        }
    }

    private func wake() {
        let w = state.withLock { s -> CheckedContinuation<Void, Never>? in
            defer { s.waiter = nil }
            return s.waiter
        }
        w?.resume()
    }
}
