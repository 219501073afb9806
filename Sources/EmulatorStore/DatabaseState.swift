import EmulatorCore

/// One database's documents and indexes. A value type, so a snapshot is an O(1)
/// copy-on-write copy; it is only ever mutated under its `DatabaseBox`'s lock.
///
/// Indexes: every collection keeps its document paths sorted (queries and listings cost what the
/// collection holds, never the whole database), and every collection id maps to the collection
/// paths that use it (collection-group queries). Recent versions of each document are kept
/// (bounded) to serve `readTime` reads and read-only transactions.
struct DatabaseState: Sendable {
    struct Version: Sendable {
        var time: Timestamp
        var document: Document?
    }

    static let historyDepth = 16

    var docs: [String: Document] = [:]
    var collections: [String: [String]] = [:]
    var groups: [String: Set<String>] = [:]
    var history: [String: [Version]] = [:]
    var lastCommit = Timestamp(seconds: 0)
    /// Reads at or after this time are exact; before it, some document's history was cut (only
    /// `historyDepth` versions are kept) or the whole state was replaced (reset, restore, import).
    /// Listeners resume from a point at or after it; older points start over.
    var historyHorizon = Timestamp(seconds: 0)
    /// Equality indexes, as Firestore's automatic single-field indexes: collection path → top-level
    /// field → value key → document paths. Equality and `in` filters read candidates from here.
    var equalityIndex: [String: [String: [String: Set<String>]]] = [:]

    /// The next commit time: the clock, truncated to microseconds, strictly after the last commit.
    mutating func nextCommitTime(_ now: Timestamp) -> Timestamp {
        let t = now.truncatedToMicroseconds
        lastCommit = t > lastCommit ? t : lastCommit.adding(nanoseconds: 1000)
        return lastCommit
    }

    /// A read time for a consistent snapshot now: the clock, but never before the last commit or
    /// the last read time handed out, and later commits come strictly after it. So read times seen
    /// by listeners never go backwards, even when the project's clock is frozen or moved back.
    mutating func reserveReadTime(_ now: Timestamp) -> Timestamp {
        let t = max(now.truncatedToMicroseconds, lastCommit)
        lastCommit = t
        return t
    }

    /// An empty database that keeps the time line: after a reset, commit times still only grow.
    func emptied(at time: Timestamp) -> DatabaseState {
        var fresh = DatabaseState()
        fresh.lastCommit = max(lastCommit, time)
        fresh.historyHorizon = time
        return fresh
    }

    /// The document at `path`, now or as of `readTime`.
    func document(_ path: String, at readTime: Timestamp? = nil) -> Document? {
        guard let t = readTime else { return docs[path] }
        if let d = docs[path], d.updateTime <= t { return d }
        guard let versions = history[path] else { return nil }
        return versions.last { $0.time <= t }?.document
    }

    mutating func put(_ doc: Document) {
        let old = docs[doc.path]
        let isNew = old == nil
        if let old { unindexFields(old) }
        indexFields(doc)
        docs[doc.path] = doc
        record(doc.path, Version(time: doc.updateTime, document: doc))
        if isNew { indexInsert(doc.path) }
    }

    mutating func remove(_ path: String, at time: Timestamp) {
        guard let old = docs.removeValue(forKey: path) else { return }
        unindexFields(old)
        record(path, Version(time: time, document: nil))
        indexRemove(path)
    }

    mutating func indexFields(_ d: Document) {
        let coll = DocumentName.collection(of: d.path)
        for (field, value) in d.fields {
            guard let key = value.equalityKey else { continue }
            equalityIndex[coll, default: [:]][field, default: [:]][key, default: []].insert(d.path)
        }
    }

    mutating func unindexFields(_ d: Document) {
        let coll = DocumentName.collection(of: d.path)
        for (field, value) in d.fields {
            guard let key = value.equalityKey else { continue }
            equalityIndex[coll]?[field]?[key]?.remove(d.path)
            if equalityIndex[coll]?[field]?[key]?.isEmpty == true { equalityIndex[coll]?[field]?[key] = nil }
        }
    }

    mutating func indexInsert(_ path: String) {
        let coll = DocumentName.collection(of: path)
        if collections[coll] == nil { groups[DocumentName.lastSegment(coll), default: []].insert(coll) }
        collections[coll, default: []].insert(path, at: insertionIndex(collections[coll] ?? [], path))
    }

    mutating func indexRemove(_ path: String) {
        let coll = DocumentName.collection(of: path)
        guard var list = collections[coll] else { return }
        let i = insertionIndex(list, path)
        guard i < list.count, list[i] == path else { return }
        collections[coll] = nil  // keeps `list` uniquely referenced while it is edited
        list.remove(at: i)
        collections[coll] = list
        if list.isEmpty {
            collections[coll] = nil
            groups[DocumentName.lastSegment(coll)]?.remove(coll)
        }
    }

    /// What a path looked like before a commit touched it (for undo and the "before" view).
    struct UndoEntry: Sendable {
        var document: Document?
        var history: [Version]?
    }

    /// The undo entry for `path` as it is now.
    func undoEntry(_ path: String) -> UndoEntry { UndoEntry(document: docs[path], history: history[path]) }

    /// Puts `path` back as recorded (index included).
    mutating func restore(_ path: String, _ e: UndoEntry) {
        let exists = docs[path] != nil
        if let current = docs[path] { unindexFields(current) }
        if let back = e.document { indexFields(back) }
        docs[path] = e.document
        history[path] = e.history
        if exists && e.document == nil { indexRemove(path) }
        if !exists && e.document != nil { indexInsert(path) }
    }

    private mutating func record(_ path: String, _ v: Version) {
        var h = history[path] ?? []
        h.append(v)
        if h.count > Self.historyDepth {
            h.removeFirst(h.count - Self.historyDepth)
            // Reads before the oldest kept version would now miss this document's older state.
            if h[0].time > historyHorizon { historyHorizon = h[0].time }
        }
        history[path] = h
    }

    func insertionIndex(_ list: [String], _ path: String) -> Int {
        var lo = 0, hi = list.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if DocumentName.compareNames(list[mid], path) < 0 { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Document paths of one collection in name order (as of `readTime` when given).
    func documentPaths(inCollection coll: String, at readTime: Timestamp? = nil) -> [String] {
        let current = collections[coll] ?? []
        guard readTime != nil else { return current }
        // Documents deleted since readTime are only in the history.
        var all = Set(current)
        for key in history.keys where DocumentName.collection(of: key) == coll { all.insert(key) }
        return all.sorted { DocumentName.compareNames($0, $1) < 0 }
    }

    /// Collection paths named `id` under `parent` (any depth), for collection-group queries; every
    /// collection under `parent` when `id` is empty (kindless queries).
    func groupCollections(_ id: String, under parent: String) -> [String] {
        let prefix = parent.isEmpty ? "" : parent + "/"
        if id.isEmpty { return collections.keys.filter { prefix.isEmpty || $0.hasPrefix(prefix) }.sorted() }
        return (groups[id] ?? []).filter { prefix.isEmpty || $0.hasPrefix(prefix) }.sorted()
    }

    /// Ids of the collections directly under `parent` ("" = root) that hold documents now, or as of
    /// `readTime` (a collection counts when one of its documents existed then, per the history).
    func collectionIds(under parent: String, at readTime: Timestamp? = nil) -> [String] {
        var ids = Set<String>()
        func consider(_ collection: String) {
            let p = DocumentName.collection(of: collection)
            if p == parent || (parent.isEmpty && !collection.contains("/")) { ids.insert(DocumentName.lastSegment(collection)) }
        }
        guard let readTime else {
            for key in collections.keys { consider(key) }
            return ids.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        }
        var seen = Set<String>()
        for path in Set(docs.keys).union(history.keys) {
            let coll = DocumentName.collection(of: path)
            guard !seen.contains(coll), document(path, at: readTime) != nil else { continue }
            seen.insert(coll)
            consider(coll)
        }
        return ids.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// The documents at `prefix` and below it (every document for "").
    func subtree(_ prefix: String) -> [Document] {
        docs.values.filter { prefix.isEmpty || $0.path == prefix || $0.path.hasPrefix(prefix + "/") }
    }
}
