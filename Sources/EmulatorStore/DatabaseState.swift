import EmulatorCore

/// One database's documents and indexes. A value type, so a snapshot is an O(1)
/// copy-on-write copy; it is only ever mutated under its `DatabaseBox`'s lock.
///
/// Indexes: every collection keeps its document paths sorted (queries and listings cost what the
/// collection holds, never the whole database), and every collection id maps to the collection
/// paths that use it (collection-group queries). Recent versions of each document are kept
/// (bounded) to serve `readTime` reads and read-only transactions.
///
/// Memory: a document written once (the common case after seeding or an import) has no history
/// entry: its one version is the current document (`history[path] == nil` with `docs[path]` set
/// means exactly `[Version(time: updateTime, document: docs[path])]`); the list is made at its
/// second change. A value found in one document's field is indexed as that one path (`IndexedPaths`),
/// a set only from the second document with that value.
///
/// Every path, id and field name is keyed by its UTF-8 bytes (`UTF8Dictionary`, `UTF8Key`): ids
/// that differ only in Unicode normalisation are different documents and collections.
struct DatabaseState: Sendable {
    struct Version: Sendable {
        var time: Timestamp
        var document: Document?
    }

    static let historyDepth = 16

    var docs = UTF8Dictionary<Document>()
    var collections = UTF8Dictionary<SortedPaths>()
    var groups = UTF8Dictionary<Set<UTF8Key>>()
    var history = UTF8Dictionary<[Version]>()
    var lastCommit = Timestamp(seconds: 0)
    /// Counts changes to the documents (every put, remove and undo; wrapping, never trapping, and
    /// 2^64 changes away). A transaction's query recorded at one count has the same results while
    /// nothing it covers changed since (`unchanged(since:query:parent:)`), so its commit need not
    /// run it again. A replaced state counts afresh: replacing drops open transactions.
    var mutations: UInt64 = 0
    /// `mutations` at the last change in each collection that holds documents (keys as `collections`).
    var collectionChanged = UTF8Dictionary<UInt64>()
    /// Reads at or after this time are exact; before it, some document's history was cut (only
    /// `historyDepth` versions are kept) or the whole state was replaced (reset, restore, import).
    /// Listeners resume from a point at or after it; older points start over.
    var historyHorizon = Timestamp(seconds: 0)
    /// Equality indexes, as Firestore's automatic single-field indexes: collection path → top-level
    /// field → value key → document paths. Equality and `in` filters read candidates from here.
    ///
    /// Values are keyed by a hash of their equality key (`Value.equalityHash`), not the key itself:
    /// 8 bytes instead of a string per distinct value (a unique title cost a 16–64-byte key). Two
    /// values that collide share an entry; that is harmless because every candidate is checked
    /// against the filter again, so a collision only adds a candidate.
    var equalityIndex = UTF8Dictionary<UTF8Dictionary<[Int: IndexedPaths]>>()
    /// The fields whose equality index is kept, per collection path. A field is indexed from the
    /// first query that filters it with `==` or `in` (`prepareEqualityIndexes`), built then from
    /// the collection's documents and kept by every write after; a field no query filters costs no
    /// index memory (indexing every field of a small 3-field document cost 173 of its 631 bytes).
    var indexedFields = UTF8Dictionary<Set<UTF8Key>>()

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
        mutations &+= 1
        if let old { unindexFields(old) }
        indexFields(doc)
        docs[doc.path] = doc
        record(doc.path, replacing: old, Version(time: doc.updateTime, document: doc))
        if isNew { indexInsert(doc.path) }
        stampCollection(of: doc.path)
    }

    mutating func remove(_ path: String, at time: Timestamp) {
        guard let old = docs.removeValue(forKey: path) else { return }
        mutations &+= 1
        unindexFields(old)
        record(path, replacing: old, Version(time: time, document: nil))
        indexRemove(path)
        stampCollection(of: path)
    }

    /// Records a change in `path`'s collection at the current `mutations` (forgets the
    /// collection once it holds nothing, as `collections` does).
    private mutating func stampCollection(of path: String) {
        let coll = DocumentName.collection(of: path)
        collectionChanged[coll] = collections[coll] == nil ? nil : mutations
    }

    /// True when `query` under `parent` gives now what it gave when `mutations` was `count`.
    /// Exact for a query of one collection: only that collection's documents can be results, and
    /// any change to one stamps it later than `count`. A collection with no stamp holds nothing
    /// now, so running its query again costs nothing. Collection-group and kindless queries span
    /// collections that may have emptied and gone: unchanged only if nothing changed at all.
    func unchanged(since count: UInt64, query: StructuredQuery, parent: String) -> Bool {
        if mutations == count { return true }
        guard !query.from.allDescendants, !query.from.id.isEmpty else { return false }
        guard let stamp = collectionChanged[parent.isEmpty ? query.from.id : parent + "/" + query.from.id] else { return false }
        return stamp <= count
    }

    /// Adds `d`'s values of its collection's indexed fields to the equality index.
    mutating func indexFields(_ d: Document) {
        let coll = DocumentName.collection(of: d.path)
        guard let fields = indexedFields[coll] else { return }
        let path = UTF8Key(d.path)
        for field in fields {
            guard let key = d.fields.storage[field]?.equalityHash else { continue }
            equalityIndex[coll, default: [:]].storage[field, default: [:]].insertPath(path, forKey: key)
        }
    }

    /// Removes `d`'s values of its collection's indexed fields from the equality index.
    mutating func unindexFields(_ d: Document) {
        let coll = DocumentName.collection(of: d.path)
        guard let fields = indexedFields[coll] else { return }
        let path = UTF8Key(d.path)
        for field in fields {
            guard let key = d.fields.storage[field]?.equalityHash else { continue }
            equalityIndex[coll]?.storage[field]?.removePath(path, forKey: key)  // in place (`_modify`)
        }
    }

    /// Indexes `field` of the documents in collection `coll`, unless it already is; from then on
    /// writes keep that index.
    mutating func ensureEqualityIndex(_ coll: String, _ field: String) {
        let name = UTF8Key(field)
        if indexedFields[coll]?.contains(name) == true { return }
        var index = [Int: IndexedPaths]()
        for path in collections[coll] ?? SortedPaths() {
            guard let key = docs[path]?.fields.storage[name]?.equalityHash else { continue }
            index.insertPath(UTF8Key(path), forKey: key)
        }
        // A field no document holds is not remembered: queries naming ever new fields would
        // otherwise grow `indexedFields` without bound (such a query scans, as a range does).
        guard !index.isEmpty else { return }
        indexedFields[coll, default: []].insert(name)
        equalityIndex[coll, default: [:]].storage[name] = index
    }

    /// Makes the equality indexes that `query`'s top-level `==` and `in` filters can read
    /// candidates from (`candidates`): for its collection, or every collection of its group.
    mutating func prepareEqualityIndexes(for query: StructuredQuery, parent: String) {
        guard let filter = query.filter, !query.from.id.isEmpty else { return }
        let fields = Self.indexableFields(filter)
        guard !fields.isEmpty else { return }
        let colls: [String]
        if query.from.allDescendants {
            // Every collection with this id (a superset of those under `parent`).
            colls = (groups[query.from.id] ?? []).map(\.string)
        } else {
            colls = [parent.isEmpty ? query.from.id : parent + "/" + query.from.id]
        }
        for coll in colls { for field in fields { ensureEqualityIndex(coll, field) } }
    }

    mutating func indexInsert(_ path: String) {
        let coll = DocumentName.collection(of: path)
        if collections[coll] == nil { groups[DocumentName.lastSegment(coll), default: []].insert(UTF8Key(coll)) }
        collections[coll, default: SortedPaths()].insert(path)
    }

    mutating func indexRemove(_ path: String) {
        let coll = DocumentName.collection(of: path)
        guard collections[coll]?.remove(path) == true else { return }
        if collections[coll]?.isEmpty == true {
            collections[coll] = nil
            groups[DocumentName.lastSegment(coll)]?.remove(UTF8Key(coll))
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
        mutations &+= 1
        if let current = docs[path] { unindexFields(current) }
        if let back = e.document { indexFields(back) }
        docs[path] = e.document
        history[path] = e.history
        if exists && e.document == nil { indexRemove(path) }
        if !exists && e.document != nil { indexInsert(path) }
        stampCollection(of: path)
    }

    /// Adds `v` to `path`'s history; `old` is the document `v` replaces (whose history may be the
    /// implicit one-version list, see the type's summary).
    private mutating func record(_ path: String, replacing old: Document?, _ v: Version) {
        var h: [Version]
        if let kept = history.removeValue(forKey: path) {
            h = kept  // taken out, so the append below does not copy it
        } else if let old {
            h = [Version(time: old.updateTime, document: old)]
        } else {
            h = []
        }
        // A first version stays implicit: it is the current document.
        if h.isEmpty, v.document != nil { return }
        h.append(v)
        if h.count > Self.historyDepth {
            h.removeFirst(h.count - Self.historyDepth)
            // Reads before the oldest kept version would now miss this document's older state.
            if h[0].time > historyHorizon { historyHorizon = h[0].time }
        }
        history[path] = h
    }

    /// Document paths of one collection in name order (as of `readTime` when given).
    func documentPaths(inCollection coll: String, at readTime: Timestamp? = nil) -> [String] {
        let current = collections[coll]?.array ?? []
        guard readTime != nil else { return current }
        // Documents deleted since readTime are only in the history.
        var all = Set(current.map { UTF8Key($0) })
        for key in history.keys where DocumentName.collection(of: key).utf8Equals(coll) { all.insert(UTF8Key(key)) }
        return all.map(\.string).sorted { DocumentName.compareNames($0, $1) < 0 }
    }

    /// Collection paths named `id` under `parent` (any depth), for collection-group queries; every
    /// collection under `parent` when `id` is empty (kindless queries). In name order.
    func groupCollections(_ id: String, under parent: String) -> [String] {
        let prefix = parent.isEmpty ? "" : parent + "/"
        let all: [String] = id.isEmpty ? Array(collections.keys) : (groups[id] ?? []).map(\.string)
        return all.filter { prefix.isEmpty || $0.utf8HasPrefix(prefix) }.sorted { DocumentName.compareNames($0, $1) < 0 }
    }

    /// Ids of the collections directly under `parent` ("" = root) that hold documents now, or as of
    /// `readTime` (per the history). A collection whose documents are all "missing" (they only
    /// have subcollections) is listed too, as production lists it: any collection below `parent`
    /// names the one directly under it. Sorted by bytes.
    func collectionIds(under parent: String, at readTime: Timestamp? = nil) -> [String] {
        let prefix = parent.isEmpty ? "" : parent + "/"
        var ids = Set<UTF8Key>()
        func consider(_ collection: String) {
            if let id = DocumentName.child(collection, under: prefix) { ids.insert(UTF8Key(id)) }
        }
        if let readTime {
            var seen = Set<UTF8Key>()
            for path in Set(docs.storage.keys).union(history.storage.keys) {
                let coll = DocumentName.collection(of: path.string)
                guard !seen.contains(UTF8Key(coll)), document(path.string, at: readTime) != nil else { continue }
                seen.insert(UTF8Key(coll))
                consider(coll)
            }
        } else {
            for key in collections.keys { consider(key) }
        }
        return ids.sorted().map(\.string)
    }

    /// The documents at `prefix` and below it (every document for "").
    func subtree(_ prefix: String) -> [Document] {
        docs.values.filter { DocumentName.isWithin($0.path, prefix) }
    }
}
