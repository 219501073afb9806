/// Every route's template filed by segment, so that the routes a path matches are found in one
/// walk down the path instead of by testing each route's template in turn (a document GET tested
/// about fifty templates, some 32,000 instructions a request).
///
/// It finds exactly the routes whose `PathTemplate.matches` is true for the path (pinned against
/// that scan by `RouteTrieTests`); which of them wins stays the `Router`'s decision. Built once
/// with the router, then only read: a value type.
struct RouteTrie: Sendable {
    /// One position in the templates: what may follow the segments that led here.
    struct Node: Sendable {
        /// The nodes after a literal segment, with its (decoded) text: a short list, searched in
        /// order (cheaper than hashing the segment for a table of a few entries).
        var literals: [(text: String, node: Int)] = []
        /// The node after a `{name}` segment (-1: none).
        var parameter = -1
        /// Routes whose template ends here without a verb.
        var end: [Int] = []
        /// Routes whose template ends here with `:verb`, with the verb.
        var endVerb: [(verb: String, routes: [Int])] = []
        /// Routes whose template's last segment, next, is a `{name=**}` wildcard, without a verb.
        var wildcard: [Int] = []
        /// The same with a verb after the wildcard.
        var wildcardVerb: [(verb: String, routes: [Int])] = []
        /// The fewest and most segments of a path any route at or below this node matches
        /// (`Int.max` below a wildcard): a walk does not enter a node its path cannot end in.
        var minSegments = Int.max
        var maxSegments = 0

        /// The node after literal `text`, or -1.
        func literal(_ text: String) -> Int {
            let n = text.utf8.count
            for entry in literals where entry.text.utf8.count == n && entry.text == text { return entry.node }
            return -1
        }
    }

    private(set) var nodes = [Node()]

    /// Files route number `route` under `template`.
    mutating func insert(_ template: PathTemplate, route: Int) {
        let isWildcard: Bool
        if case .wildcard = template.segments.last { isWildcard = true } else { isWildcard = false }
        let least = template.segments.count
        let most = isWildcard ? Int.max : least
        var at = 0
        func widen(_ i: Int) {
            nodes[i].minSegments = min(nodes[i].minSegments, least)
            nodes[i].maxSegments = max(nodes[i].maxSegments, most)
        }
        widen(at)
        for segment in template.segments {
            switch segment {
            case .literal(let text):
                var next = nodes[at].literal(text)
                if next < 0 {
                    nodes.append(Node())
                    next = nodes.count - 1
                    nodes[at].literals.append((text, next))
                }
                at = next
            case .parameter:
                if nodes[at].parameter < 0 {
                    nodes.append(Node())
                    nodes[at].parameter = nodes.count - 1
                }
                at = nodes[at].parameter
            case .wildcard:
                // Always the last segment (`PathTemplate` refuses any other place).
                if let verb = template.verb { Self.file(route, verb, in: &nodes[at].wildcardVerb) } else { nodes[at].wildcard.append(route) }
                return
            }
            widen(at)
        }
        if let verb = template.verb { Self.file(route, verb, in: &nodes[at].endVerb) } else { nodes[at].end.append(route) }
    }

    private static func file(_ route: Int, _ verb: String, in list: inout [(verb: String, routes: [Int])]) {
        if let i = list.firstIndex(where: { $0.verb == verb }) { list[i].routes.append(route) } else { list.append((verb, [route])) }
    }

    /// The numbers of the routes whose template matches `path` (a normalized request path), in
    /// no particular order.
    func matching(_ path: RequestPath) -> [Int] {
        var walk = Walk(path: path)
        walk.visit(self, node: 0, segment: 0)
        return walk.found
    }

    /// One walk: the path, its last segment split at its last `:` (a verb's only possible
    /// place), and what was found so far.
    private struct Walk {
        let path: RequestPath
        let count: Int
        /// The text after the last segment's last `:`, when there is a non-empty base before it.
        let verb: Substring?
        /// The last segment before `:verb`, raw and decoded.
        let baseRaw: Substring
        let baseDecoded: String?
        var found: [Int] = []

        init(path: RequestPath) {
            self.path = path
            count = path.count
            if let last = path.raw.last, let colon = last.utf8.lastIndex(of: UInt8(ascii: ":")), colon > last.startIndex {
                verb = last[last.utf8.index(after: colon)...]
                baseRaw = last[..<colon]
                baseDecoded = PercentEncoding.decode(String(baseRaw))
            } else {
                verb = nil
                baseRaw = ""
                baseDecoded = nil
            }
        }

        /// Whether segment `i` (raw) can fill a `{name}`: not empty, no `:`.
        private func fitsParameter(_ raw: Substring) -> Bool { !raw.isEmpty && !raw.utf8.contains(UInt8(ascii: ":")) }

        /// Whether whole segment `i` can fill a `{name}` (its `:` noted when the path was split).
        private func fitsParameter(at i: Int) -> Bool { !path.raw[i].isEmpty && !path.hasColon(i) }

        /// Whether segments `from..<to` can fill a wildcard: each non-empty and decodable.
        private func fitsWildcard(from: Int, to: Int) -> Bool {
            guard from < to else { return false }
            for k in from..<to where path.raw[k].isEmpty || path.decoded[k] == nil { return false }
            return true
        }

        /// The routes filed under `verb` in `list`.
        private func routes(_ list: [(verb: String, routes: [Int])], _ verb: Substring) -> [Int]? {
            for entry in list where entry.verb.utf8.elementsEqual(verb.utf8) { return entry.routes }
            return nil
        }

        mutating func visit(_ trie: RouteTrie, node index: Int, segment i: Int) {
            // Read in place: copying a node would retain each of its lists.
            guard count >= trie.nodes[index].minSegments, count <= trie.nodes[index].maxSegments else { return }
            if i == count {
                found += trie.nodes[index].end
                return
            }
            if !trie.nodes[index].wildcard.isEmpty, fitsWildcard(from: i, to: count) { found += trie.nodes[index].wildcard }
            if let verb, !trie.nodes[index].wildcardVerb.isEmpty, let routes = routes(trie.nodes[index].wildcardVerb, verb),
                i == count - 1 || fitsWildcard(from: i, to: count - 1), baseDecoded != nil
            {
                found += routes
            }
            let parameter = trie.nodes[index].parameter
            if i == count - 1 {
                // The last segment, whole (templates without a verb) or before `:verb`.
                if let d = path.decoded[i] {
                    let next = trie.nodes[index].literal(d)
                    if next >= 0 { found += trie.nodes[next].end }
                }
                if parameter >= 0, fitsParameter(at: i), path.decoded[i] != nil { found += trie.nodes[parameter].end }
                if let verb, let base = baseDecoded {
                    let next = trie.nodes[index].literal(base)
                    if next >= 0, let routes = routes(trie.nodes[next].endVerb, verb) { found += routes }
                    if parameter >= 0, fitsParameter(baseRaw), let routes = routes(trie.nodes[parameter].endVerb, verb) { found += routes }
                }
                return
            }
            if let d = path.decoded[i] {
                let next = trie.nodes[index].literal(d)
                if next >= 0 { visit(trie, node: next, segment: i + 1) }
            }
            if parameter >= 0, fitsParameter(at: i), path.decoded[i] != nil { visit(trie, node: parameter, segment: i + 1) }
        }
    }
}
