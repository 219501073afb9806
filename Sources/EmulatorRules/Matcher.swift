/// Matches request paths against `match` blocks.
enum Matcher {
    /// A request path segment: a literal, the unknown document id of a list query, or the
    /// unknown prefix of a collection-group query.
    enum Segment: Equatable {
        case literal(String)
        case listDocument
        case anyPrefix
    }

    /// A complete match: the block, its variable bindings and the functions in scope.
    struct Match {
        var block: MatchBlock
        var vars: [String: RulesValue]
        var functions: [String: FunctionDecl]
    }

    static func requestSegments(_ r: RulesRequest) -> [Segment] {
        if let bucket = r.bucket {
            // `list` judges the listed prefix followed by the unknown name of what it lists.
            return [.literal("b"), .literal(bucket), .literal("o")] + r.path.map { .literal($0) } + (r.method == .list ? [.listDocument] : [])
        }
        var segs: [Segment] = [.literal("databases"), .literal(r.database), .literal("documents")]
        if r.method == .list {
            if r.query?.collectionGroup == true, let id = r.path.last {
                segs += [.anyPrefix, .literal(id)]
            } else {
                segs += r.path.map { .literal($0) }
            }
            segs.append(.listDocument)
        } else {
            segs += r.path.map { .literal($0) }
        }
        return segs
    }

    static func display(_ segs: [Segment]) -> String {
        "/"
            + segs.map { s in
                switch s {
                case .literal(let l): return l
                case .listDocument: return "{document}"
                case .anyPrefix: return "**"
                }
            }.joined(separator: "/")
    }

    static func match(_ ast: RulesAST, segments: [Segment]) -> [Match] {
        var out: [Match] = []
        let fns = Dictionary(ast.functions.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for b in ast.matches { visit(b, segments[...], [:], fns, version: ast.version, &out) }
        return out
    }

    static func visit(
        _ b: MatchBlock, _ segs: ArraySlice<Segment>, _ vars: [String: RulesValue], _ fns: [String: FunctionDecl],
        version: Int, _ out: inout [Match]
    ) {
        var scope = fns
        for f in b.functions { scope[f.name] = f }
        for (consumed, bound) in prefixMatches(b.path[...], segs, vars, version: version) {
            let rest = segs.dropFirst(consumed)
            if rest.isEmpty { out.append(Match(block: b, vars: bound, functions: scope)) }
            for c in b.children { visit(c, rest, bound, scope, version: version, &out) }
        }
    }

    /// Every way `path` can match a prefix of `segs`: (segments consumed, bindings).
    static func prefixMatches(
        _ path: ArraySlice<MatchSegment>, _ segs: ArraySlice<Segment>, _ vars: [String: RulesValue],
        version: Int
    ) -> [(Int, [String: RulesValue])] {
        guard let first = path.first else { return [(0, vars)] }
        switch first {
        case .literal(let l):
            guard case .literal(l)? = segs.first else { return [] }
            return prefixMatches(path.dropFirst(), segs.dropFirst(), vars, version: version).map { ($0.0 + 1, $0.1) }
        case .variable(let n):
            var v = vars
            switch segs.first {
            case .literal(let s)?: v[n] = .string(s)
            case .listDocument?: v[n] = .error("the document id '\(n)' is unknown for list queries")
            default: return []
            }
            return prefixMatches(path.dropFirst(), segs.dropFirst(), v, version: version).map { ($0.0 + 1, $0.1) }
        case .recursive(let n):
            // v1: one or more segments, to the end; v2: zero or more, anywhere.
            var results: [(Int, [String: RulesValue])] = []
            let minimum = version == 2 ? 0 : 1
            guard segs.count >= minimum else { return [] }
            for k in stride(from: segs.count, through: minimum, by: -1) {
                let taken = segs.prefix(k)
                var v = vars
                if taken.contains(.anyPrefix) || taken.contains(.listDocument) {
                    v[n] = .error("the path bound to '\(n)' is unknown for this query")
                } else {
                    v[n] = .path(taken.compactMap { if case .literal(let s) = $0 { s } else { nil } })
                }
                if path.count == 1 {
                    // A trailing recursive wildcard consumes the rest of the request path.
                    if k == segs.count { results.append((k, v)) }
                    continue
                }
                results += prefixMatches(path.dropFirst(), segs.dropFirst(k), v, version: version).map { ($0.0 + k, $0.1) }
            }
            return results
        }
    }
}
