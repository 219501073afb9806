import EmulatorCore
import Foundation

/// A cheap fingerprint of a codebase's source folder (relative paths, sizes, modification
/// times), skipping what firebase.json's `ignore` names plus `venv`, `__pycache__`, `.git` and
/// `node_modules`, so editing a function reloads the codebase but installing a package does not.
/// Stateless apart from the file system read.
public enum SourceStamp {
    /// Folders never worth watching.
    static let alwaysIgnored: Set<String> = ["venv", "__pycache__", ".git", "node_modules", ".mypy_cache", ".pytest_cache"]

    /// Whether `relative` (a path under the source folder) matches an ignore pattern: a pattern
    /// without `/` matches any path segment, one with `/` matches from the start; `*` matches
    /// within a segment, `**` any number of segments.
    public static func isIgnored(_ relative: String, patterns: [String]) -> Bool {
        let segments = relative.split(separator: "/").map(String.init)
        if segments.contains(where: { alwaysIgnored.contains($0) }) { return true }
        for raw in patterns {
            let pattern = raw.hasPrefix("/") ? String(raw.dropFirst()) : raw
            if pattern.isEmpty { continue }
            let parts = pattern.split(separator: "/").map(String.init)
            if parts.count == 1 {
                if segments.contains(where: { glob(parts[0], $0) }) { return true }
            } else if matchPath(parts[...], segments[...], prefixOK: true) {
                return true
            }
        }
        return false
    }

    /// Segment-wise match; a match of a leading part of the path counts (the pattern names a folder).
    static func matchPath(_ p: ArraySlice<String>, _ s: ArraySlice<String>, prefixOK: Bool) -> Bool {
        guard let first = p.first else { return prefixOK || s.isEmpty }
        if first == "**" {
            for i in s.startIndex...s.endIndex where matchPath(p.dropFirst(), s[i...], prefixOK: prefixOK) { return true }
            return false
        }
        guard let seg = s.first, glob(first, seg) else { return false }
        return matchPath(p.dropFirst(), s.dropFirst(), prefixOK: prefixOK)
    }

    /// `*` and `?` wildcards within one segment.
    static func glob(_ pattern: String, _ text: String) -> Bool {
        let p = Array(pattern), t = Array(text)
        var pi = 0, ti = 0, star = -1, mark = 0
        while ti < t.count {
            if pi < p.count, p[pi] == "?" || p[pi] == t[ti] {
                pi += 1; ti += 1
            } else if pi < p.count, p[pi] == "*" {
                star = pi; mark = ti; pi += 1
            } else if star >= 0 {
                pi = star + 1; mark += 1; ti = mark
            } else {
                return false
            }
        }
        while pi < p.count, p[pi] == "*" { pi += 1 }
        return pi == p.count
    }

    /// The fingerprint of `dir`.
    public static func of(_ dir: String, ignore: [String]) -> String {
        guard let e = FileManager.default.enumerator(atPath: dir) else { return "" }
        var parts: [String] = []
        while let f = e.nextObject() as? String {
            if isIgnored(f, patterns: ignore) {
                if (e.fileAttributes?[.type] as? FileAttributeType) == .typeDirectory { e.skipDescendants() }
                continue
            }
            if let a = e.fileAttributes, let m = a[.modificationDate] as? Date {
                parts.append("\(f):\(a[.size] ?? 0):\(m.timeIntervalSince1970)")
            }
        }
        return parts.sorted().joined(separator: "|")
    }
}
