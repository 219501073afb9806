import EmulatorCore

/// Document and collection names: `projects/{p}/databases/{d}/documents/{path}` and the
/// database-relative paths (`tasks/t1`) the store keys by.
public enum DocumentName {
    /// `projects/{p}/databases/{d}/documents`.
    public static func root(project: String, database: String) -> String { "projects/\(project)/databases/\(database)/documents" }

    /// The full name of a database-relative path.
    public static func full(project: String, database: String, path: String) -> String {
        path.isEmpty ? root(project: project, database: database) : root(project: project, database: database) + "/" + path
    }

    /// Splits a full name into (project, database, relative path); nil when it is not one.
    public static func parse(_ name: String) -> (project: String, database: String, path: String)? {
        let s = name.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard s.count >= 5, s[0] == "projects", s[2] == "databases", s[4] == "documents", !s[1].isEmpty, !s[3].isEmpty else { return nil }
        let rest = s.dropFirst(5)
        guard !rest.contains(where: \.isEmpty) else { return nil }
        return (s[1], s[3], rest.joined(separator: "/"))
    }

    /// True for a well-formed reference to a document (even number of path segments).
    static func isValidReference(_ name: String) -> Bool {
        guard let p = parse(name), !p.path.isEmpty else { return false }
        return p.path.split(separator: "/").count % 2 == 0
    }

    /// Validates a relative document path (even segments) and its ids; names the problem.
    public static func validateDocumentPath(_ path: String) throws {
        let segs = path.split(separator: "/", omittingEmptySubsequences: false)
        guard !path.isEmpty, segs.count % 2 == 0 else {
            throw EmulatorError.invalidArgument("Document path '\(path)' must have an even number of segments (collection/document pairs).")
        }
        try validateSegments(segs, path)
    }

    /// Validates a relative collection path (odd segments).
    public static func validateCollectionPath(_ path: String) throws {
        let segs = path.split(separator: "/", omittingEmptySubsequences: false)
        guard !path.isEmpty, segs.count % 2 == 1 else {
            throw EmulatorError.invalidArgument("Collection path '\(path)' must have an odd number of segments.")
        }
        try validateSegments(segs, path)
    }

    static func validateSegments(_ segs: [Substring], _ path: String) throws {
        guard path.utf8.count <= 6 * 1024 else { throw EmulatorError.invalidArgument("Document name is longer than 6 KiB.") }
        for s in segs {
            guard !s.isEmpty else { throw EmulatorError.invalidArgument("Path '\(path)' has an empty segment.") }
            guard s != ".", s != ".." else { throw EmulatorError.invalidArgument("Path '\(path)': '.' and '..' are not valid ids.") }
            guard s.utf8.count <= 1500 else { throw EmulatorError.invalidArgument("Path '\(path)': ids are limited to 1500 bytes.") }
            if s.hasPrefix("__") && s.hasSuffix("__") && s.count >= 4 && !isNumericId(s) {
                throw EmulatorError.invalidArgument("Path '\(path)': id '\(s)' is reserved.")
            }
        }
    }

    static func isNumericId(_ s: Substring) -> Bool { numericId(s) != nil }

    /// The number of a numeric `__id<n>__` id.
    static func numericId(_ s: Substring) -> Int64? {
        guard s.hasPrefix("__id"), s.hasSuffix("__"), s.count > 6 else { return nil }
        return Int64(s.dropFirst(4).dropLast(2))
    }

    /// Orders full or relative names segment by segment (numeric `__id<n>__` ids first, by number).
    static func compareNames(_ a: String, _ b: String) -> Int {
        let x = a.split(separator: "/"), y = b.split(separator: "/")
        for (p, q) in zip(x, y) where p != q {
            let np = numericId(p), nq = numericId(q)
            if let np, let nq { return np < nq ? -1 : 1 }
            if (np == nil) != (nq == nil) { return np != nil ? -1 : 1 }
            return p.utf8.lexicographicallyPrecedes(q.utf8) ? -1 : 1
        }
        return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
    }

    /// The collection path of a document path (`a/b/c/d` → `a/b/c`).
    public static func collection(of path: String) -> String {
        guard let i = path.lastIndex(of: "/") else { return "" }
        return String(path[..<i])
    }

    /// The last segment.
    public static func lastSegment(_ path: String) -> String {
        guard let i = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: i)...])
    }
}
