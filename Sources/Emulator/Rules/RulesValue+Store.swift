import EmulatorCore
import EmulatorRules
import EmulatorStore

extension RulesValue {
    /// A stored Firestore value as rules see it (references become paths, geo points latlngs).
    init(_ v: Value) {
        switch v {
        case .null: self = .null
        case .boolean(let b): self = .bool(b)
        case .integer(let i): self = .int(i)
        case .double(let d): self = .float(d)
        case .timestamp(let t): self = .timestamp(t)
        case .string(let s): self = .string(s)
        case .bytes(let b): self = .bytes(b)
        case .reference(let r):
            // projects/p/databases/d/documents/... → /databases/d/documents/...
            self = .path(Array(r.split(separator: "/").dropFirst(2).map(String.init)))
        case .geoPoint(let lat, let lng): self = .latlng(lat, lng)
        case .array(let a): self = .list(a.map(RulesValue.init))
        // Rules maps are Swift dictionaries: two keys that differ only in normalisation merge here.
        case .map(let m): self = .map(m.mapValues(RulesValue.init).dictionary)
        }
    }

    /// Document fields as a rules map.
    static func fields(_ d: Document?) -> [String: RulesValue]? { d.map { $0.fields.mapValues(RulesValue.init).dictionary } }
}

/// What a structured query promises about fields, in disjunctive normal form.
enum QueryConstraints {
    /// Disjuncts of `field → constraint` (at most 64; beyond that the query is judged as unconstrained).
    static func disjuncts(_ filter: QueryFilter?) -> [[String: QueryConstraint]] {
        guard let filter else { return [[:]] }
        let d = dnf(filter)
        return d.count > 64 ? [[:]] : d
    }

    static func dnf(_ f: QueryFilter) -> [[String: QueryConstraint]] {
        switch f {
        case .or(let fs): return fs.flatMap(dnf)
        case .and(let fs):
            var acc: [[String: QueryConstraint]] = [[:]]
            for child in fs {
                let parts = dnf(child)
                var next: [[String: QueryConstraint]] = []
                for a in acc { for p in parts { next.append(merge(a, p)) } }
                acc = Array(next.prefix(65))
            }
            return acc
        case .field(let path, let op, let value):
            let key = path.description
            switch op {
            case .equal: return [[key: .equal(RulesValue(value))]]
            case .in:
                guard case .array(let items) = value else { return [[:]] }
                return items.map { [key: .equal(RulesValue($0))] }
            case .lessThan: return [[key: .range(lower: nil, upper: (RulesValue(value), false))]]
            case .lessThanOrEqual: return [[key: .range(lower: nil, upper: (RulesValue(value), true))]]
            case .greaterThan: return [[key: .range(lower: (RulesValue(value), false), upper: nil)]]
            case .greaterThanOrEqual: return [[key: .range(lower: (RulesValue(value), true), upper: nil)]]
            default: return [[:]]
            }
        case .unary(let path, .isNull): return [[path.description: .equal(.null)]]
        case .unary: return [[:]]
        }
    }

    /// Combines two conjunctions; equality wins over ranges, ranges intersect.
    static func merge(_ a: [String: QueryConstraint], _ b: [String: QueryConstraint]) -> [String: QueryConstraint] {
        var out = a
        for (k, v) in b {
            guard let existing = out[k] else {
                out[k] = v
                continue
            }
            switch (existing, v) {
            case (.equal, _): continue
            case (_, .equal): out[k] = v
            case (.range(let l1, let u1), .range(let l2, let u2)): out[k] = .range(lower: l1 ?? l2, upper: u1 ?? u2)
            }
        }
        return out
    }
}
