import EmulatorCore

extension DatabaseState {
    /// Runs `query` under `parent` (database-relative document path, "" = root), as of
    /// `readTime` when given. Cost grows with the scanned collection(s), not the database.
    func run(_ query: StructuredQuery, parent: String, project: String, database: String, at readTime: Timestamp? = nil) -> [Document] {
        if let fast = runInNameOrder(query, parent: parent, project: project, database: database, at: readTime) { return fast }
        var collectionPaths: [String]
        if query.from.allDescendants {
            collectionPaths = groupCollections(query.from.id, under: parent)
            if readTime != nil {
                let prefix = parent.isEmpty ? "" : parent + "/"
                for key in history.keys {
                    let c = DocumentName.collection(of: key)
                    if query.from.id.isEmpty || DocumentName.lastSegment(c).utf8Equals(query.from.id), prefix.isEmpty || c.utf8HasPrefix(prefix),
                        !collectionPaths.contains(where: { $0.utf8Equals(c) })
                    {
                        collectionPaths.append(c)
                    }
                }
            }
        } else if query.from.id.isEmpty {
            // ListDocuments without a collection id: every collection directly under the parent.
            collectionPaths = collectionIds(under: parent, at: readTime).map { parent.isEmpty ? $0 : parent + "/" + $0 }
        } else {
            collectionPaths = [parent.isEmpty ? query.from.id : parent + "/" + query.from.id]
        }
        let root = DocumentName.root(project: project, database: database) + "/"
        var rows: [(doc: Document, keys: [Value])] = []
        for coll in collectionPaths {
            let paths =
                readTime == nil
                ? (candidates(query.filter, coll) ?? documentPaths(inCollection: coll)) : documentPaths(inCollection: coll, at: readTime)
            for path in paths {
                guard let doc = document(path, at: readTime) else { continue }
                let full = root + path
                if let f = query.filter, !f.matches(doc, fullName: full) { continue }
                if let keys = Self.orderKeys(query, doc, fullName: full) { rows.append((doc, keys)) }
            }
        }
        let order = query.order
        rows.sort { a, b in Self.compareKeys(a.keys, b.keys, order) < 0 }
        if let s = query.startAt {
            rows.removeAll { r in
                let c = Self.compareKeys(Array(r.keys.prefix(s.values.count)), s.values, order)
                return s.before ? c < 0 : c <= 0
            }
        }
        if let e = query.endAt {
            rows.removeAll { r in
                let c = Self.compareKeys(Array(r.keys.prefix(e.values.count)), e.values, order)
                return e.before ? c >= 0 : c > 0
            }
        }
        var docs = rows.dropFirst(query.offset).map(\.doc)
        if let limit = query.limit, docs.count > limit { docs = Array(docs.prefix(limit)) }
        return docs
    }

    /// Candidate documents from the equality indexes when the filter is an AND of top-level
    /// `==`/`in` conditions (the smallest candidate set wins); nil when the filter gives no such
    /// handle (then the collection is scanned). Candidates are still checked against the filter.
    func candidates(_ filter: QueryFilter?, _ coll: String) -> [String]? {
        guard let filter else { return nil }
        let conjuncts: [QueryFilter]
        if case .and(let fs) = filter { conjuncts = fs } else { conjuncts = [filter] }
        var best: Set<UTF8Key>?
        for c in conjuncts {
            guard case .field(let path, let op, let value) = c, path.segments.count == 1, !path.isName else { continue }
            // A field not indexed yet (no `prepareEqualityIndexes` for it) gives no handle.
            guard indexedFields[coll]?.contains(UTF8Key(path.segments[0])) == true else { continue }
            let index = equalityIndex[coll]?[path.segments[0]] ?? [:]
            var set: Set<UTF8Key>
            switch op {
            case .equal:
                guard let k = value.equalityHash else { return [] }
                set = index[k]?.paths ?? []
            case .in:
                guard case .array(let options) = value else { continue }
                set = []
                for o in options { if let k = o.equalityHash, let hit = index[k] { set.formUnion(hit.paths) } }
            default: continue
            }
            if set.count < best?.count ?? Int.max { best = set }
        }
        return best.map { $0.map(\.string) }
    }

    /// The top-level fields of `filter`'s `==` and `in` conjuncts: those `candidates` can use.
    static func indexableFields(_ filter: QueryFilter) -> [String] {
        let conjuncts: [QueryFilter]
        if case .and(let fs) = filter { conjuncts = fs } else { conjuncts = [filter] }
        return conjuncts.compactMap { c in
            guard case .field(let path, let op, _) = c, path.segments.count == 1, !path.isName, op == .equal || op == .in else { return nil }
            return path.segments[0]
        }
    }

    /// The common case, fast: one collection, ordered by name only, no cursors, current data, a
    /// limit. The collection's index is already in name order, so the scan stops as soon as
    /// `offset + limit` documents matched instead of sorting the whole collection.
    func runInNameOrder(_ query: StructuredQuery, parent: String, project: String, database: String, at readTime: Timestamp?) -> [Document]? {
        guard !query.from.allDescendants, !query.from.id.isEmpty, readTime == nil, query.startAt == nil, query.endAt == nil, let limit = query.limit,
            query.order.count == 1, query.order[0].field.isName, !query.order[0].descending
        else { return nil }
        let coll = parent.isEmpty ? query.from.id : parent + "/" + query.from.id
        let root = DocumentName.root(project: project, database: database) + "/"
        var out: [Document] = []
        var skipped = 0
        guard limit > 0 else { return [] }
        func scan<S: Sequence<String>>(_ paths: S) {
            for path in paths {
                guard let doc = docs[path] else { continue }
                if let f = query.filter, !f.matches(doc, fullName: root + path) { continue }
                if skipped < query.offset {
                    skipped += 1
                    continue
                }
                out.append(doc)
                if out.count == limit { break }
            }
        }
        if let found = candidates(query.filter, coll) {
            scan(found.sorted { DocumentName.compareNames($0, $1) < 0 })
        } else {
            scan(collections[coll] ?? SortedPaths())
        }
        return out
    }

    /// The document's values for the query's orders (`__name__` as a reference to `fullName`);
    /// nil when it lacks an ordered field (ordering by a field implies the field exists).
    static func orderKeys(_ query: StructuredQuery, _ doc: Document, fullName: String) -> [Value]? {
        var keys: [Value] = []
        keys.reserveCapacity(query.order.count)
        for o in query.order {
            if o.field.isName {
                keys.append(.reference(fullName))
                continue
            }
            guard let v = o.field.get(in: doc.fields) else { return nil }
            keys.append(v)
        }
        return keys
    }

    /// Compares order-by key tuples, honouring each field's direction.
    static func compareKeys(_ a: [Value], _ b: [Value], _ order: [StructuredQuery.Order]) -> Int {
        for i in 0..<min(a.count, b.count) {
            var c = Value.compareIndexed(a[i], b[i])
            if i < order.count, order[i].descending { c = -c }
            if c != 0 { return c }
        }
        return 0
    }
}
