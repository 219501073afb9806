/// File-path arithmetic on strings, as `NSString`'s path methods do it (`NSString` needs the full
/// Foundation, which the static release binary leaves out). Pure functions; nothing touches the
/// file system.
public enum FilePathText {
    /// The last component: `a/b/c.json` → `c.json`, `/tmp/` → `tmp`, `/` → `/`, `` → ``.
    public static func lastComponent(_ path: String) -> String {
        let trimmed = dropTrailingSlashes(Substring(path))
        if trimmed == "/" || trimmed.isEmpty { return String(trimmed) }
        guard let slash = trimmed.lastIndex(of: "/") else { return String(trimmed) }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    /// The path without its last component: `/a/b` → `/a`, `/a` → `/`, `a` → ``, `a/b/` → `a`.
    public static func deletingLastComponent(_ path: String) -> String {
        let trimmed = dropTrailingSlashes(Substring(path))
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        if slash == trimmed.startIndex { return "/" }
        return String(dropTrailingSlashes(trimmed[..<slash]))
    }

    /// `component` under `directory` (`a` + `b` → `a/b`, `/` + `b` → `/b`, `` + `b` → `b`).
    public static func appending(_ directory: String, _ component: String) -> String {
        if directory.isEmpty { return component }
        return directory.hasSuffix("/") ? directory + component : directory + "/" + component
    }

    /// `path` made absolute against `directory` (itself absolute), with `.` and `..` segments
    /// resolved and duplicate slashes removed: `../x` in `/a/b` → `/a/x`. An absolute `path` is
    /// only cleaned. `..` at the root stays at the root.
    public static func absolute(_ path: String, from directory: String) -> String {
        let joined = path.hasPrefix("/") ? path : appending(directory, path)
        var parts: [Substring] = []
        for segment in joined.split(separator: "/", omittingEmptySubsequences: true) {
            switch segment {
            case ".": continue
            case "..": if !parts.isEmpty { parts.removeLast() }
            default: parts.append(segment)
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// `s` without trailing slashes, keeping a lone `/`.
    private static func dropTrailingSlashes(_ s: Substring) -> Substring {
        var s = s
        while s.count > 1, s.hasSuffix("/") { s = s.dropLast() }
        return s
    }
}
