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
        /// The node after a literal segment, by its (decoded) text.
        var literals: [String: Int] = [:]
        /// The node after a `{name}` segment.
        var parameter: Int?
        /// Routes whose template ends here without a verb.
        var end: [Int] = []
        /// Routes whose template ends here with `:verb`, by verb.
        var endVerb: [String: [Int]] = [:]
        /// Routes whose template's last segment, next, is a `{name=**}` wildcard, without a verb.
        var wildcard: [Int] = []
        /// The same with a verb after the wildcard, by verb.
        var wildcardVerb: [String: [Int]] = [:]
    }

    private(set) var nodes = [Node()]

    /// Files route number `route` under `template`.
    mutating func insert(_ template: PathTemplate, route: Int) {
        var at = 0
        for segment in template.segments {
            switch segment {
            case .literal(let text):
                if let next = nodes[at].literals[text] {
                    at = next
                } else {
                    nodes.append(Node())
                    nodes[at].literals[text] = nodes.count - 1
                    at = nodes.count - 1
                }
            case .parameter:
                if let next = nodes[at].parameter {
                    at = next
                } else {
                    nodes.append(Node())
                    nodes[at].parameter = nodes.count - 1
                    at = nodes.count - 1
                }
            case .wildcard:
                // Always the last segment (`PathTemplate` refuses any other place).
                if let verb = template.verb { nodes[at].wildcardVerb[verb, default: []].append(route) } else { nodes[at].wildcard.append(route) }
                return
            }
        }
        if let verb = template.verb { nodes[at].endVerb[verb, default: []].append(route) } else { nodes[at].end.append(route) }
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

        /// Whether segments `from..<to` can fill a wildcard: each non-empty and decodable.
        private func fitsWildcard(from: Int, to: Int) -> Bool {
            guard from < to else { return false }
            for k in from..<to where path.raw[k].isEmpty || path.decoded[k] == nil { return false }
            return true
        }

        mutating func visit(_ trie: RouteTrie, node index: Int, segment i: Int) {
            let node = trie.nodes[index]
            if i == count {
                found += node.end
                return
            }
            if !node.wildcard.isEmpty, fitsWildcard(from: i, to: count) { found += node.wildcard }
            if let verb, !node.wildcardVerb.isEmpty, let routes = node.wildcardVerb[String(verb)],
                i == count - 1 || fitsWildcard(from: i, to: count - 1), baseDecoded != nil
            {
                found += routes
            }
            if i == count - 1 {
                // The last segment, whole (templates without a verb) or before `:verb`.
                if let d = path.decoded[i], let next = node.literals[d] { found += trie.nodes[next].end }
                if let next = node.parameter, fitsParameter(path.raw[i]), path.decoded[i] != nil { found += trie.nodes[next].end }
                if let verb, let base = baseDecoded {
                    let v = String(verb)
                    if let next = node.literals[base], let routes = trie.nodes[next].endVerb[v] { found += routes }
                    if let next = node.parameter, fitsParameter(baseRaw), let routes = trie.nodes[next].endVerb[v] { found += routes }
                }
                return
            }
            if let d = path.decoded[i], let next = node.literals[d] { visit(trie, node: next, segment: i + 1) }
            if let next = node.parameter, fitsParameter(path.raw[i]), path.decoded[i] != nil { visit(trie, node: next, segment: i + 1) }
        }
    }
}
