import EmulatorCore

/// A set of field paths as a tree, for projecting documents: a query's `select`, a read's
/// `mask.fieldPaths`. Projecting walks only the fields both the document and the mask have, the
/// smaller side at each level, so a projection costs the document's size: applying each path
/// to each document cost documents × paths (4,000 paths over 2,000 documents took a second).
/// `__name__` selects no field. A path that ends where another continues keeps the whole value.
public struct FieldMask: Sendable, Equatable, ExpressibleByArrayLiteral {
    /// One level of the tree.
    struct Node: Sendable, Equatable {
        /// A path ends here: the whole value is kept.
        var whole = false
        /// Deeper paths by segment.
        var children: [UTF8Key: Node] = [:]

        mutating func insert(_ segments: ArraySlice<String>) {
            guard let first = segments.first else {
                whole = true
                return
            }
            children[UTF8Key(first), default: Node()].insert(segments.dropFirst())
        }
    }

    /// The top level (never `whole`).
    let root: Node

    /// The mask of `paths`.
    public init(_ paths: [FieldPath]) {
        var root = Node()
        for p in paths where !p.isName && !p.segments.isEmpty { root.insert(p.segments[...]) }
        self.root = root
    }

    /// The mask of `paths`.
    public init(arrayLiteral paths: FieldPath...) { self.init(paths) }

    /// The fields of `fields` the mask names (maps keep only their named members).
    public func apply(to fields: FieldMap) -> FieldMap { Self.apply(root, fields) }

    private static func apply(_ node: Node, _ fields: FieldMap) -> FieldMap {
        var out = FieldMap()
        func keep(_ key: UTF8Key, _ value: Value, _ child: Node) {
            if child.whole {
                out.storage[key] = value
            } else if case .map(let m) = value {
                let inner = apply(child, m)
                if !inner.isEmpty { out.storage[key] = .map(inner) }
            }
        }
        if node.children.count <= fields.count {
            for (key, child) in node.children { if let v = fields.storage[key] { keep(key, v, child) } }
        } else {
            for (key, v) in fields.storage { if let child = node.children[key] { keep(key, v, child) } }
        }
        return out
    }
}
