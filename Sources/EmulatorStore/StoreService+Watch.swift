import EmulatorCore

/// Real-time listeners: targets are added, removed and told about commits through their session's
/// `WatchSink`. Everything runs under the database lock, so a target's initial result and the
/// commits after it form one consistent, ordered history.
extension StoreService {
    /// Adds target `target` of the session `sink` and delivers its `added` event (or throws, adding
    /// nothing: rules denial, bad query). A query target is judged once, like a query (rules are not
    /// filters); a documents target per document, like a get. With `resume` the session is told only
    /// what changed since that point when it can be reconstructed exactly (same store instance, not
    /// older than the kept history), else the full result with `reset`. A `once` target is removed
    /// again right after its first result.
    public func addWatch(
        project: String, database: String, sink: any WatchSink, target: Int32, spec: WatchSpec,
        resume: WatchResumePoint?, once: Bool, caller: Caller
    ) throws {
        if case .query(let parent, _) = spec, !parent.isEmpty { try DocumentName.validateDocumentPath(parent) }
        if case .documents(let paths) = spec {
            guard paths.count <= 1000 else { throw EmulatorError.invalidArgument("A documents target may name at most 1000 documents.") }
            for p in paths { try DocumentName.validateDocumentPath(p) }
        }
        try withDatabase(project, database) { data, env, hooks in
            let now = env.clock.now()
            let reader = StateReader(before: data.state, after: data.state, readTime: nil)
            switch spec {
            case .query(let parent, let q):
                let group = q.from.id.isEmpty ? "**" : "**/\(q.from.id)"
                let listPath =
                    q.from.allDescendants ? (parent.isEmpty ? group : "\(parent)/\(group)") : (parent.isEmpty ? q.from.id : "\(parent)/\(q.from.id)")
                try authorize(
                    hooks,
                    StoreAccess(
                        caller: caller, project: project, database: database, method: .list, path: listPath,
                        resource: nil, requestResource: nil, query: q, time: now, reader: reader))
            case .documents(let paths):
                for p in paths {
                    try authorize(
                        hooks,
                        StoreAccess(
                            caller: caller, project: project, database: database, method: .get, path: p,
                            resource: data.state.docs[p], requestResource: nil, query: nil, time: now, reader: reader))
                }
            }
            // A listener's query builds the equality indexes it can use, as a runQuery does: later
            // snapshots of this target (and other queries) then read candidates, not the collection.
            if case .query(let parent, let q) = spec { data.state.prepareEqualityIndexes(for: q, parent: parent) }
            let current = WatchRegistry.results(spec, state: data.state, project: project, database: database)
            let readTime = data.state.reserveReadTime(now)
            var documents = current, removed: [String] = [], reset = false, resumed = false
            if let r = resume {
                if r.epoch == epoch, r.readTime >= data.state.historyHorizon, r.readTime <= readTime {
                    let past = WatchRegistry.results(spec, state: data.state, project: project, database: database, at: r.readTime)
                    let pastTimes = UTF8Dictionary(past.reversed().map { ($0.path, $0.updateTime) })
                    documents = current.filter { pastTimes[$0.path] != $0.updateTime }
                    let now = Set(current.map { UTF8Key($0.path) })
                    removed = past.map(\.path).filter { !now.contains(UTF8Key($0)) }
                    resumed = true
                } else {
                    reset = true
                }
            }
            let key = WatchKey(session: ObjectIdentifier(sink), target: target)
            if !once {
                let root = DocumentName.root(project: project, database: database) + "/"
                data.watch.add(WatchTarget(key: key, sink: sink, spec: spec, documents: current, root: root))
            }
            sink.deliver(
                .added(
                    target: target, reset: reset, resumed: resumed, documents: documents, removed: removed,
                    count: current.count, readTime: readTime))
            if once { sink.deliver(.removed(target: target)) }
        }
    }

    /// Removes one target of a session and delivers `removed`; false when it did not exist.
    @discardableResult
    public func removeWatch(project: String, database: String, sink: any WatchSink, target: Int32) -> Bool {
        (try? withDatabase(project, database, keep: false) { data, _, _ -> Bool in
            guard data.watch.remove(WatchKey(session: ObjectIdentifier(sink), target: target)) != nil else { return false }
            sink.deliver(.removed(target: target))
            return true
        }) ?? false
    }

    /// Forgets every target of a session (it ended), without events.
    public func removeWatches(project: String, database: String, sink: any WatchSink) {
        _ = try? withDatabase(project, database, keep: false) { data, _, _ in data.watch.removeSession(ObjectIdentifier(sink)) }
    }

    /// Whether the session has target `target` (for tests and duplicate-id checks).
    public func hasWatch(project: String, database: String, sink: any WatchSink, target: Int32) -> Bool {
        (try? withDatabase(project, database, keep: false) { data, _, _ in
            data.watch.targets[WatchKey(session: ObjectIdentifier(sink), target: target)] != nil
        })
            ?? false
    }

    /// How many listener targets the database has (for the status endpoint and benchmarks).
    public func watchCount(project: String, database: String) -> Int {
        (try? withDatabase(project, database, keep: false) { data, _, _ in data.watch.targets.count }) ?? 0
    }
}

extension StoreService {
    /// A fresh read time for the database that later commits come strictly after (listeners'
    /// heartbeats: a NO_CHANGE at this time is consistent for every target).
    public func reserveReadTime(project: String, database: String) -> Timestamp {
        (try? withDatabase(project, database, keep: false) { data, env, _ in data.state.reserveReadTime(env.clock.now()) }) ?? Timestamp(seconds: 0)
    }
}
