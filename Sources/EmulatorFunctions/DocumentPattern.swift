/// Path patterns of document triggers: `tasks/{taskId}`, `users/{uid}/notes/{noteId}`.
public enum DocumentPattern {
    /// The wildcard values when `path` matches `pattern`, else nil.
    public static func match(_ pattern: String, _ path: String) -> [String: String]? {
        let p = pattern.split(separator: "/"), s = path.split(separator: "/")
        guard p.count == s.count else { return nil }
        var params: [String: String] = [:]
        for (a, b) in zip(p, s) {
            if a.hasPrefix("{") && a.hasSuffix("}") {
                params[String(a.dropFirst().dropLast())] = String(b)
            } else if a != b {
                return nil
            }
        }
        return params
    }
}
