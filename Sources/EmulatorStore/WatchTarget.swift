import EmulatorCore

/// Identifies one target of one listener session.
struct WatchKey: Hashable, Sendable {
    /// The session (its sink's identity).
    var session: ObjectIdentifier
    /// The client's target id.
    var target: Int32
}

/// One listener target and what it currently holds. Owned by a database's `WatchRegistry` and
/// touched only under that database's lock (hence a class with plain mutable state, marked
/// `@unchecked Sendable` because the lock, not the type, guards it).
final class WatchTarget: @unchecked Sendable {
    /// The session and target id.
    let key: WatchKey
    /// Where the session's events go.
    let sink: any WatchSink
    /// What it watches.
    let spec: WatchSpec
    /// A limit or an offset: membership depends on other documents, so a relevant change
    /// re-runs the query and compares windows (a plain query decides per document).
    let windowed: Bool
    /// Paths in the target's result now (by bytes).
    var members: Set<UTF8Key> = []
    /// For a full window without an offset: the order keys of its last document. A document
    /// that is not a member and sorts after it cannot enter, so a change to it needs no re-run
    /// (100 limit listeners re-ran their query on every write to their collection, in the
    /// writer's lock: a bystander write took up to a second).
    private(set) var boundary: [Value]?

    /// Creates a target holding its initial result (`documents`, in the query's order).
    init(key: WatchKey, sink: any WatchSink, spec: WatchSpec, documents: [Document], root: String) {
        self.key = key
        self.sink = sink
        self.spec = spec
        if case .query(_, let q) = spec { windowed = q.limit != nil || q.offset > 0 } else { windowed = false }
        hold(documents, root: root)
    }

    /// Makes `documents` (in the query's order) the target's result.
    func hold(_ documents: [Document], root: String) {
        members = Set(documents.map { UTF8Key($0.path) })
        boundary = nil
        guard windowed, case .query(_, let q) = spec, q.offset == 0, let limit = q.limit, documents.count >= limit, let last = documents.last
        else { return }
        boundary = DatabaseState.orderKeys(q, last, fullName: root + last.path)
    }

    /// Whether the change to `doc` at `path` can alter this window: a member, or a document the
    /// query accepts that does not sort after a full window's last member.
    func mayAlterWindow(_ doc: Document?, path: String, root: String) -> Bool {
        if members.contains(UTF8Key(path)) { return true }
        guard let doc, accepts(doc, path: path, root: root) else { return false }
        guard let boundary, case .query(_, let q) = spec, let keys = DatabaseState.orderKeys(q, doc, fullName: root + path) else { return true }
        return DatabaseState.compareKeys(keys, boundary, q.order) < 0
    }

    /// The index keys the target is found under: a collection path, a collection id (groups), the
    /// kindless marker, or document paths.
    enum IndexKey: Hashable {
        case collection(UTF8Key)
        case group(UTF8Key)
        case kindless
        case document(UTF8Key)
    }

    /// Where the registry files the target.
    var indexKeys: [IndexKey] {
        switch spec {
        case .documents(let paths): return paths.map { .document(UTF8Key($0)) }
        case .query(let parent, let q):
            if !q.from.allDescendants { return [.collection(UTF8Key(parent.isEmpty ? q.from.id : parent + "/" + q.from.id))] }
            return q.from.id.isEmpty ? [.kindless] : [.group(UTF8Key(q.from.id))]
        }
    }

    /// Whether the document at `path` belongs to the target by itself (its scope, filter, order
    /// fields and cursors; a window's limit and offset are decided by re-running the query).
    func accepts(_ doc: Document?, path: String, root: String) -> Bool {
        guard let doc else { return false }
        switch spec {
        case .documents(let paths): return paths.contains { $0.utf8Equals(path) }
        case .query(let parent, let q):
            if q.from.allDescendants, !parent.isEmpty, !path.utf8HasPrefix(parent + "/") { return false }
            return DatabaseState.accepts(q, doc, fullName: root + path)
        }
    }
}

/// A database's listener targets, indexed so a commit looks only at the targets that could see
/// the documents it changed: by collection path, by collection id (collection groups), kindless,
/// and by document path. Lives in `StoreService.DatabaseData`, under the database lock.
struct WatchRegistry: Sendable {
    private(set) var targets: [WatchKey: WatchTarget] = [:]
    private var index: [WatchTarget.IndexKey: Set<WatchKey>] = [:]

    /// No targets at all (the common case: commits then skip the feed entirely).
    var isEmpty: Bool { targets.isEmpty }

    /// Registers `t` (replacing a target with the same key).
    mutating func add(_ t: WatchTarget) {
        remove(t.key)
        targets[t.key] = t
        for k in t.indexKeys { index[k, default: []].insert(t.key) }
    }

    /// Forgets a target; returns it when it existed.
    @discardableResult
    mutating func remove(_ key: WatchKey) -> WatchTarget? {
        guard let t = targets.removeValue(forKey: key) else { return nil }
        for k in t.indexKeys {
            index[k]?.remove(key)
            if index[k]?.isEmpty == true { index[k] = nil }
        }
        return t
    }

    /// Forgets every target of a session.
    mutating func removeSession(_ session: ObjectIdentifier) {
        for key in targets.keys where key.session == session { remove(key) }
    }

    /// The targets that could see a change to the document at `path`.
    func candidates(for path: String) -> [WatchTarget] {
        let coll = DocumentName.collection(of: path)
        var keys = index[.collection(UTF8Key(coll))] ?? []
        if let g = index[.group(UTF8Key(DocumentName.lastSegment(coll)))] { keys.formUnion(g) }
        if let k = index[.kindless] { keys.formUnion(k) }
        if let d = index[.document(UTF8Key(path))] { keys.formUnion(d) }
        return keys.compactMap { targets[$0] }
    }
}

extension DatabaseState {
    /// Whether `doc` passes `query`'s filter, has every field the query orders by (ordering implies
    /// existence) and lies within its cursors: everything but the window (limit and offset).
    static func accepts(_ query: StructuredQuery, _ doc: Document, fullName: String) -> Bool {
        if let f = query.filter, !f.matches(doc, fullName: fullName) { return false }
        guard let keys = orderKeys(query, doc, fullName: fullName) else { return false }
        if let s = query.startAt {
            let c = compareKeys(Array(keys.prefix(s.values.count)), s.values, query.order)
            if s.before ? c < 0 : c <= 0 { return false }
        }
        if let e = query.endAt {
            let c = compareKeys(Array(keys.prefix(e.values.count)), e.values, query.order)
            if e.before ? c >= 0 : c > 0 { return false }
        }
        return true
    }
}
