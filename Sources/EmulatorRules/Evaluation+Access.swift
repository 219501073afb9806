extension Evaluation {
    /// `obj.name`: map fields (missing → error), and list-query fields.
    func member(_ obj: RulesValue, _ name: String) -> RulesValue {
        switch obj {
        case .map(let m):
            return m[name] ?? .error("property '\(name)' is undefined on object")
        case .queryField(let path, _):
            return queryField(path + [name])
        case .error: return obj
        case .null: return .error("null value error: cannot read '\(name)' of null")
        default: return .error("cannot read property '\(name)' of \(obj.typeName)")
        }
    }

    /// What a list query says about `resource.data.<path>`.
    func queryField(_ path: [String]) -> RulesValue {
        let key = path.joined(separator: ".")
        switch constraints[key] {
        case .equal(let v)?: return v
        case .range?: return .queryField(path: path, constraint: constraints[key])
        case nil:
            let prefix = key + "."
            if constraints.keys.contains(where: { $0.hasPrefix(prefix) }) { return .queryField(path: path, constraint: nil) }
            return .queryField(path: path, constraint: nil)
        }
    }

    /// `obj[i]`: lists and strings by int, maps by string, paths by int.
    func index(_ obj: RulesValue, _ idx: RulesValue) -> RulesValue {
        if case .error = obj { return obj }
        if case .error = idx { return idx }
        switch (obj, idx) {
        case (.list(let l), .int(let i)):
            guard i >= 0, i < l.count else { return .error("index \(i) out of range for a list of \(l.count)") }
            return l[Int(i)]
        case (.string(let s), .int(let i)):
            if let e = charge(s.utf8.count, "indexing a string of \(s.utf8.count) bytes") { return e }
            // Walks to the character (no array of a long string's characters).
            guard i >= 0, i <= Int64(s.utf8.count), let at = s.index(s.startIndex, offsetBy: Int(i), limitedBy: s.endIndex), at < s.endIndex else {
                return .error("index \(i) out of range for a string of \(s.count)")
            }
            return .string(String(s[at]))
        case (.map(let m), .string(let k)):
            return m[k] ?? .error("key '\(k)' is undefined on map")
        case (.path(let p), .int(let i)):
            guard i >= 0, i < p.count else { return .error("index \(i) out of range for a path of \(p.count)") }
            return .string(p[Int(i)])
        case (.queryField(let path, _), .string(let k)):
            return queryField(path + [k])
        case (.null, _):
            return .error("null value error: cannot index null")
        default:
            return .error("cannot index \(obj.typeName) with \(idx.typeName)")
        }
    }

    /// `obj[lo:hi]` on lists and strings (hi exclusive).
    func slice(_ obj: RulesValue, _ lo: RulesValue?, _ hi: RulesValue?) -> RulesValue {
        func bound(_ v: RulesValue?, _ dflt: Int, _ count: Int) -> Int? {
            guard let v else { return dflt }
            guard case .int(let i) = v, i >= 0, i <= count else { return nil }
            return Int(i)
        }
        switch obj {
        case .list(let l):
            if let e = charge(l.count, "a range of a list of \(l.count) elements") { return e }
            guard let a = bound(lo, 0, l.count), let b = bound(hi, l.count, l.count), a <= b else { return .error("invalid list range") }
            return .list(Array(l[a..<b]))
        case .string(let s):
            if let e = charge(s.utf8.count, "a range of a string of \(s.utf8.count) bytes") { return e }
            let count = s.count
            guard let a = bound(lo, 0, count), let b = bound(hi, count, count), a <= b else { return .error("invalid string range") }
            let from = s.index(s.startIndex, offsetBy: a)
            return .string(String(s[from..<s.index(from, offsetBy: b - a)]))
        case .error: return obj
        default: return .error("cannot take a range of \(obj.typeName)")
        }
    }
}
