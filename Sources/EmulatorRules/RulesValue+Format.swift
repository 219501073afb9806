extension RulesValue {
    /// A short, readable rendering for explanations (`"alice"`, `3`, `null`, `{"a": 1}`).
    public var display: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .float(let d): return String(d)
        case .string(let s): return "\"" + (s.count > 60 ? String(s.prefix(60)) + "…" : s) + "\""
        case .bytes(let b): return "b'\(b.count) bytes'"
        case .list(let l): return "[" + l.prefix(5).map(\.display).joined(separator: ", ") + (l.count > 5 ? ", …" : "") + "]"
        case .set(let l): return "set(" + l.prefix(5).map(\.display).joined(separator: ", ") + (l.count > 5 ? ", …" : "") + ")"
        case .map(let m):
            let keys = m.keys.sorted()
            return "{" + keys.prefix(5).map { "\"\($0)\": \(m[$0]!.display)" }.joined(separator: ", ") + (keys.count > 5 ? ", …" : "") + "}"
        case .path(let p): return "/" + p.joined(separator: "/")
        case .timestamp(let t): return "timestamp(\(t.rfc3339()))"
        case .duration(let s, let n): return "duration(\(s)s \(n)ns)"
        case .latlng(let a, let o): return "latlng(\(a), \(o))"
        case .mapDiff: return "map_diff"
        case .queryField(let p, _): return "<query field \(p.joined(separator: "."))>"
        case .error(let m): return "error(\(m))"
        }
    }
}
