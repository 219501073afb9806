import EmulatorCore
import EmulatorHTTP
import EmulatorStore

/// `GET /emulator/v1/projects/{p}/events`: the store's change feed as Server-Sent Events, for the
/// web UI's live view. Each commit is one `change` event (`{"database", "time", "paths",
/// "replaced"}`; several commits that arrive together are merged, at most 200 paths listed); a
/// comment line every 15 s keeps proxies and idle timers from closing the stream.
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
                let queue = StoreFeedQueue()
                s.store.subscribe(project: p, queue)
                defer { s.store.unsubscribe(queue) }
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

    /// Merges queued events per database into `change` events.
    static func format(_ events: [StoreFeedEvent]) -> [UInt8] {
        var byDatabase: [String: (time: Timestamp, paths: [String], replaced: Bool)] = [:]
        for e in events {
            var entry = byDatabase[e.database] ?? (e.time, [], false)
            entry.time = max(entry.time, e.time)
            entry.paths.append(contentsOf: e.paths)
            entry.replaced = entry.replaced || e.replaced
            byDatabase[e.database] = entry
        }
        var out: [UInt8] = []
        for (db, e) in byDatabase.sorted(by: { $0.key < $1.key }) {
            var seen = Set<String>()
            let paths = e.paths.filter { seen.insert($0).inserted }
            let data: JSON = [
                "database": .string(db), "time": .string(e.time.rfc3339()), "replaced": .bool(e.replaced),
                "paths": .array(paths.prefix(200).map { .string($0) }), "more": .bool(paths.count > 200),
            ]
            out.append(contentsOf: "event: change\ndata: ".utf8)
            out.append(contentsOf: data.serializedBytes())
            out.append(contentsOf: "\n\n".utf8)
        }
        return out
    }
}

/// A feed subscriber's queue: the store appends inside its lock, the event stream takes batches.
/// State behind a `Mutex`; a bounded queue (a browser that stops reading only loses detail: the
/// queue keeps the newest events).
final class StoreFeedQueue: StoreFeedSink, @unchecked Sendable {
    private let state = Mutex<(events: [StoreFeedEvent], waiter: CheckedContinuation<Void, Never>?)>(([], nil))

    /// Queues one change (called inside the store's lock).
    func storeChanged(_ event: StoreFeedEvent) {
        let w = state.withLock { s -> CheckedContinuation<Void, Never>? in
            s.events.append(event)
            if s.events.count > 10_000 { s.events.removeFirst(s.events.count - 10_000) }
            defer { s.waiter = nil }
            return s.waiter
        }
        w?.resume()
    }

    /// Waits up to `timeout` seconds: the queued events (empty after a timeout), or nil when the
    /// task was cancelled.
    func next(timeout: Double) async -> [StoreFeedEvent]? {
        let timer = Task { [weak self] in
            guard (try? await Task.sleep(nanoseconds: UInt64(timeout * 1e9))) != nil else { return }
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
            defer { s.events = [] }
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
