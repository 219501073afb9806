import EmulatorCore

/// One index a query needs: a composite index, or a single-field index (in the collection-group
/// scope, or one an exemption disabled). Derived from the query shape alone; whether the project
/// has it is `IndexConfiguration.serves(_:)`. The rules and their sources: docs/indexes.md.
public struct IndexNeed: Sendable, Hashable {
    /// Composite, or served by one automatic single-field index.
    public enum Kind: Sendable, Hashable {
        /// A composite index with exactly `index.fields` (ending in `__name__`).
        case composite
        /// The single-field index `index.fields[0]` in `index.queryScope`.
        case singleField
    }

    /// Which kind.
    public var kind: Kind
    /// The index: for a composite need, production's field order (equality and array-contains
    /// fields in filter order, then the ordered fields, then `__name__`); for a single-field
    /// need, the one field.
    public var index: CompositeIndex
    /// Composite: how many leading fields come from equality or array-contains filters (their
    /// order in the index does not matter, and an equality field may be ascending or
    /// descending). Single-field: 1 when the field is filtered by equality or array-contains
    /// (for equality either direction serves), 0 when it is ordered.
    public var equalityPrefix: Int
    /// The query filters on ranges of more than one field (production's message then points to
    /// the multiple-range-fields guide).
    public var multipleInequalities: Bool
}

/// Which indexes production needs to serve a query (Firestore standard edition, docs/indexes.md):
/// - a query with only equality filters (`==`, `in`, `is null`, `is NaN`) is served by merging
///   single-field indexes, whatever their number;
/// - one ordered field (an `orderBy`, a range or `!=`/`not-in` filter, or the field a sum or
///   average reads) with no other filtered field is served by that field's single-field index,
///   when `__name__` is ordered the same way;
/// - one `array-contains`/`array-contains-any` alone is served by the field's array index;
/// - anything else (an ordered field with an equality or array filter, two ordered fields, an
///   array filter with another filter, `__name__` ordered against the field) needs a composite
///   index;
/// - a collection-group query needs every single-field index it uses enabled in the
///   collection-group scope (off by default); an exemption (`fieldOverrides`) can disable
///   single-field indexes in the collection scope too.
/// An `OR` query needs what each of its disjunctive-normal-form branches needs.
public enum IndexRequirement {
    /// At most this many branches of an `OR` are examined (queries allow 30 disjunctions).
    static let maxBranches = 64

    /// The indexes `query` needs; `aggregateFields` are the fields a sum or average reads.
    /// Kindless queries (no collection id) need none.
    public static func needs(for query: StructuredQuery, aggregateFields: [FieldPath] = []) -> [IndexNeed] {
        guard !query.from.id.isEmpty else { return [] }
        let scope: IndexQueryScope = query.from.allDescendants ? .collectionGroup : .collection
        let inequalities = Set((query.filter?.inequalityFields ?? []).filter { !$0.isName })
        var out: [IndexNeed] = []
        for branch in branches(of: query.filter) {
            for need in needs(
                branch: branch, query: query, scope: scope, aggregateFields: aggregateFields, multipleInequalities: inequalities.count > 1)
            where !out.contains(need) {
                out.append(need)
            }
        }
        return out
    }

    /// The atoms of each branch of the filter's disjunctive normal form (one empty branch when
    /// there is no filter).
    static func branches(of filter: QueryFilter?) -> [[QueryFilter]] {
        guard let filter else { return [[]] }
        switch filter {
        case .field, .unary: return [[filter]]
        case .or(let fs):
            var out: [[QueryFilter]] = []
            for f in fs {
                for b in branches(of: f) where out.count < maxBranches { out.append(b) }
            }
            return out
        case .and(let fs):
            var out: [[QueryFilter]] = [[]]
            for f in fs {
                let sub = branches(of: f)
                var next: [[QueryFilter]] = []
                for a in out {
                    for b in sub where next.count < maxBranches { next.append(a + b) }
                }
                out = next
            }
            return out
        }
    }

    /// The needs of one disjunctive-normal-form branch (its atoms) under the query's order.
    static func needs(
        branch: [QueryFilter], query: StructuredQuery, scope: IndexQueryScope, aggregateFields: [FieldPath],
        multipleInequalities: Bool
    ) -> [IndexNeed] {
        // Equality-like fields in filter order (array filters as CONTAINS).
        var equalities: [(path: FieldPath, contains: Bool)] = []
        func addEquality(_ p: FieldPath, contains: Bool) {
            guard !p.isName, !equalities.contains(where: { $0.path == p && $0.contains == contains }) else { return }
            equalities.append((p, contains))
        }
        for atom in branch {
            switch atom {
            case .field(let p, let op, _):
                switch op {
                case .equal, .in: addEquality(p, contains: false)
                case .arrayContains, .arrayContainsAny: addEquality(p, contains: true)
                default: break
                }
            case .unary(let p, let op):
                if op == .isNull || op == .isNaN { addEquality(p, contains: false) }
            default: break
            }
        }
        let equalityPaths = Set(equalities.filter { !$0.contains }.map(\.path))
        // The effective order without `__name__`; an order on a field fixed by equality is moot.
        var ordered: [StructuredQuery.Order] = query.order.filter { !$0.field.isName && !equalityPaths.contains($0.field) }
        for f in aggregateFields where !f.isName && !equalityPaths.contains(f) && !ordered.contains(where: { $0.field == f }) {
            ordered.append(StructuredQuery.Order(field: f, descending: false))
        }
        let nameDescending = query.order.last(where: { $0.field.isName })?.descending ?? (query.order.last?.descending ?? false)
        let group = query.from.id

        func single(_ path: FieldPath, _ mode: IndexFieldMode) -> IndexNeed {
            IndexNeed(
                kind: .singleField, index: CompositeIndex(collectionGroup: group, queryScope: scope, fields: [IndexField(path.description, mode)]),
                equalityPrefix: mode == .contains || mode == .ascending ? 1 : 0, multipleInequalities: multipleInequalities)
        }
        let containsCount = equalities.filter(\.contains).count
        if ordered.isEmpty && (containsCount == 0 || equalities.count == 1) {
            // Index merging of single-field indexes (or one array index).
            return equalities.map { single($0.path, $0.contains ? .contains : .ascending) }
        }
        if equalities.isEmpty, ordered.count == 1, ordered[0].descending == nameDescending {
            var need = single(ordered[0].field, ordered[0].descending ? .descending : .ascending)
            need.equalityPrefix = 0
            return [need]
        }
        var fields = equalities.map { IndexField($0.path.description, $0.contains ? .contains : .ascending) }
        fields += ordered.map { IndexField($0.field.description, $0.descending ? .descending : .ascending) }
        fields.append(IndexField(FieldPath.name.description, nameDescending ? .descending : .ascending))
        return [
            IndexNeed(
                kind: .composite, index: CompositeIndex(collectionGroup: group, queryScope: scope, fields: fields),
                equalityPrefix: equalities.count, multipleInequalities: multipleInequalities)
        ]
    }
}

extension IndexConfiguration {
    /// Whether the configured indexes serve `need`: an enabled single-field index (an equality
    /// is served by the ascending or the descending one), or a composite index of the same
    /// collection group and scope with the same equality fields in any order, then the same
    /// ordered fields in the same directions, then `__name__` in the needed direction (written
    /// or implied by the last field's direction).
    public func serves(_ need: IndexNeed) -> Bool {
        switch need.kind {
        case .singleField:
            guard let f = need.index.fields.first, let path = try? FieldPath(parsing: f.fieldPath) else { return false }
            let g = need.index.collectionGroup, s = need.index.queryScope
            if f.mode == .ascending && need.equalityPrefix == 1 {
                return singleFieldIndexEnabled(group: g, field: path, scope: s, mode: .ascending)
                    || singleFieldIndexEnabled(group: g, field: path, scope: s, mode: .descending)
            }
            return singleFieldIndexEnabled(group: g, field: path, scope: s, mode: f.mode)
        case .composite:
            return indexes.contains { Self.composite($0, serves: need) }
        }
    }

    /// `f` with its path in canonical form (so `` `a` `` and `a` compare equal).
    static func canonical(_ f: IndexField) -> IndexField {
        IndexField((try? FieldPath(parsing: f.fieldPath))?.description ?? f.fieldPath, f.mode)
    }

    /// Whether one declared composite index serves a composite need (rules in `serves`).
    static func composite(_ index: CompositeIndex, serves need: IndexNeed) -> Bool {
        guard index.collectionGroup == need.index.collectionGroup, index.queryScope == need.index.queryScope else { return false }
        var have = index.fields.map(canonical)
        var want = need.index.fields
        guard let wantName = want.popLast() else { return false }
        let name = FieldPath.name.description
        let haveName: IndexFieldMode
        if let last = have.last, last.fieldPath == name {
            haveName = last.mode
            have.removeLast()
        } else {
            haveName = have.last.map { $0.mode == .descending ? .descending : .ascending } ?? .ascending
        }
        guard haveName == wantName.mode, have.count == want.count else { return false }
        let k = min(need.equalityPrefix, want.count)
        var prefix = Array(have[..<k])
        for w in want[..<k] {
            let options: [IndexFieldMode] = w.mode == .contains ? [.contains] : [.ascending, .descending]
            guard let i = prefix.firstIndex(where: { $0.fieldPath == w.fieldPath && options.contains($0.mode) }) else { return false }
            prefix.remove(at: i)
        }
        return Array(have[k...]) == Array(want[k...])
    }
}
