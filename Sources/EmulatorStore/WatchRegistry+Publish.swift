import EmulatorCore

/// Collects, per listener session, what one commit did to each document the session watches.
struct WatchDeltaCollector {
    private var sessions: [ObjectIdentifier: (sink: any WatchSink, deltas: UTF8Dictionary<WatchDelta>)] = [:]

    /// Records that `path` is (now) in target `t`, with its current document.
    mutating func entered(_ t: WatchTarget, _ path: String, _ doc: Document) {
        update(t, path) { d in
            d.document = doc
            d.targets.append(t.key.target)
        }
    }

    /// Records that `path` left target `t` (`doc` nil: it no longer exists).
    mutating func left(_ t: WatchTarget, _ path: String, _ doc: Document?) {
        update(t, path) { d in
            d.removedTargets.append(t.key.target)
            if d.document == nil { d.document = doc }
            d.deleted = doc == nil
        }
    }

    private mutating func update(_ t: WatchTarget, _ path: String, _ body: (inout WatchDelta) -> Void) {
        let id = t.key.session
        var session = sessions.removeValue(forKey: id) ?? (t.sink, UTF8Dictionary())
        var d = session.deltas[path] ?? WatchDelta(path: path, document: nil, targets: [], removedTargets: [], deleted: false)
        body(&d)
        session.deltas[path] = d
        sessions[id] = session
    }

    /// Delivers one `changed` event per session that saw anything (deltas in name order, target
    /// ids sorted, so the output is deterministic).
    func deliver(at time: Timestamp) {
        for (_, s) in sessions {
            let deltas = s.deltas.values.sorted { DocumentName.compareNames($0.path, $1.path) < 0 }.map { d -> WatchDelta in
                var d = d
                d.targets.sort()
                d.removedTargets.sort()
                return d
            }
            s.sink.deliver(.changed(readTime: time, deltas: deltas))
        }
    }
}

extension WatchRegistry {
    /// Tells the sessions whose targets see any of `changes` what changed, as of `time`. The cost is
    /// the changed documents times the targets indexed under their collections (plus a re-run of
    /// the query for limited targets whose window a change may alter: a member, or a document
    /// sorting before a full window's last), never the collection's size.
    func publish(_ changes: [AppliedWrite], state: DatabaseState, project: String, database: String, time: Timestamp) {
        guard !isEmpty else { return }
        let root = DocumentName.root(project: project, database: database) + "/"
        var out = WatchDeltaCollector()
        var windows: [WatchKey: (WatchTarget, Set<UTF8Key>)] = [:]
        for c in changes {
            for t in candidates(for: c.path) {
                if t.windowed {
                    if t.mayAlterWindow(c.after, path: c.path, root: root) { windows[t.key, default: (t, [])].1.insert(UTF8Key(c.path)) }
                    continue
                }
                let was = t.members.contains(UTF8Key(c.path))
                let now = t.accepts(c.after, path: c.path, root: root)
                if now, let doc = c.after {
                    t.members.insert(UTF8Key(c.path))
                    out.entered(t, c.path, doc)
                } else if was {
                    t.members.remove(UTF8Key(c.path))
                    out.left(t, c.path, state.docs[c.path])
                }
            }
        }
        for (_, (t, touched)) in windows { refresh(t, state: state, project: project, database: database, changed: touched, into: &out) }
        out.deliver(at: time)
    }

    /// After the state was replaced (reset, restore, import): re-runs every target and tells each
    /// session the differences, as ordinary changes.
    func reevaluateAll(state: DatabaseState, project: String, database: String, time: Timestamp) {
        guard !isEmpty else { return }
        var out = WatchDeltaCollector()
        for t in targets.values { refresh(t, state: state, project: project, database: database, changed: nil, into: &out) }
        out.deliver(at: time)
    }

    /// Re-runs `t` and records what entered or left it, plus the members in `changed` (documents a
    /// commit modified that stayed in); with nil `changed` (the state was replaced wholesale) every
    /// member is sent again, and clients keep only what has a new update time.
    private func refresh(
        _ t: WatchTarget, state: DatabaseState, project: String, database: String, changed: Set<UTF8Key>?,
        into out: inout WatchDeltaCollector
    ) {
        let previous = t.members
        let docs = Self.results(t.spec, state: state, project: project, database: database)
        var now = Set<UTF8Key>()
        for d in docs {
            let key = UTF8Key(d.path)
            now.insert(key)
            let isNew = !previous.contains(key)
            let modified = changed.map { $0.contains(key) } ?? true
            if isNew || modified { out.entered(t, d.path, d) }
        }
        for p in previous where !now.contains(p) { out.left(t, p.string, state.docs[p.string]) }
        t.hold(docs, root: DocumentName.root(project: project, database: database) + "/")
    }

    /// A target's full result in `state`.
    static func results(_ spec: WatchSpec, state: DatabaseState, project: String, database: String, at readTime: Timestamp? = nil) -> [Document] {
        switch spec {
        case .query(let parent, let q): return state.run(q, parent: parent, project: project, database: database, at: readTime)
        case .documents(let paths):
            var seen = Set<UTF8Key>()
            return paths.compactMap { p in seen.insert(UTF8Key(p)).inserted ? state.document(p, at: readTime) : nil }
        }
    }
}
