import EmulatorCore

#if canImport(Glibc)
import Glibc
#endif

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
                pi += 1
                ti += 1
            } else if pi < p.count, p[pi] == "*" {
                star = pi
                mark = ti
                pi += 1
            } else if star >= 0 {
                pi = star + 1
                mark += 1
                ti = mark
            } else {
                return false
            }
        }
        while pi < p.count, p[pi] == "*" { pi += 1 }
        return pi == p.count
    }

    /// The fingerprint of `dir`: every entry not ignored (ignored folders are not entered;
    /// symbolic links are not followed), by `lstat`.
    public static func of(_ dir: String, ignore: [String]) -> String {
        var parts: [String] = []
        walk(dir, relative: "", ignore: ignore, into: &parts)
        return parts.sorted().joined(separator: "|")
    }

    /// Adds `relative:size:mtime` for each entry under `dir + "/" + relative`, depth first.
    private static func walk(_ root: String, relative: String, ignore: [String], into parts: inout [String]) {
        let folder = relative.isEmpty ? root : root + "/" + relative
        guard let d = opendir(folder) else { return }
        defer { closedir(d) }
        var names: [String] = []
        while let entry = readdir(d) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { p in
                p.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: entry.pointee.d_name)) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        for name in names {
            let path = relative.isEmpty ? name : relative + "/" + name
            if isIgnored(path, patterns: ignore) { continue }
            var st = stat()
            guard lstat(root + "/" + path, &st) == 0 else { continue }
            let isDirectory = st.st_mode & S_IFMT == S_IFDIR
            parts.append("\(path):\(st.st_size):\(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)")
            if isDirectory { walk(root, relative: path, ignore: ignore, into: &parts) }
        }
    }
}
