import EmulatorCore

/// A dotted field path (`a.b`, `` `x.y`.z ``), as segments. `__name__` is the document name.
public struct FieldPath: Sendable, Hashable, CustomStringConvertible {
    /// The segments, unescaped.
    public var segments: [String]

    /// Creates a path from segments.
    public init(_ segments: [String]) { self.segments = segments }

    /// The document-name pseudo field.
    public static let name = FieldPath(["__name__"])

    /// True for `__name__`.
    public var isName: Bool { segments == ["__name__"] }

    /// Parses the canonical string form; backticks quote segments, `\` escapes inside them.
    public init(parsing text: String) throws {
        guard !text.isEmpty else { throw EmulatorError.invalidArgument("Field path must not be empty.") }
        var segs: [String] = []
        var cur = ""
        var quoted = false
        var wasQuoted = false
        var it = text.makeIterator()
        while let c = it.next() {
            if quoted {
                if c == "\\" {
                    guard let n = it.next() else { throw EmulatorError.invalidArgument("Invalid field path '\(text)': trailing escape.") }
                    cur.append(n)
                } else if c == "`" {
                    quoted = false
                } else {
                    cur.append(c)
                }
            } else if c == "`" {
                guard cur.isEmpty else { throw EmulatorError.invalidArgument("Invalid field path '\(text)': unexpected backtick.") }
                quoted = true
                wasQuoted = true
            } else if c == "." {
                guard !cur.isEmpty else { throw EmulatorError.invalidArgument("Invalid field path '\(text)': empty segment.") }
                segs.append(cur)
                cur = ""
                wasQuoted = false
            } else {
                guard !wasQuoted else { throw EmulatorError.invalidArgument("Invalid field path '\(text)': text after a quoted segment.") }
                cur.append(c)
            }
        }
        guard !quoted else { throw EmulatorError.invalidArgument("Invalid field path '\(text)': unterminated backtick.") }
        guard !cur.isEmpty else { throw EmulatorError.invalidArgument("Invalid field path '\(text)': empty segment.") }
        segs.append(cur)
        self.segments = segs
    }

    /// The canonical string (simple segments bare, others backtick-quoted).
    public var description: String {
        segments.map { s in
            let simple = !s.isEmpty && s.unicodeScalars.enumerated().allSatisfy { i, u in
                u == "_" || ("a"..."z").contains(u) || ("A"..."Z").contains(u) || (i > 0 && ("0"..."9").contains(u))
            }
            return simple ? s : "`" + s.replacingBackslashAndBacktick() + "`"
        }.joined(separator: ".")
    }

    /// Rejects names Firestore reserves (`__x__`) and empty names.
    static func validateName(_ name: String, allowVectorType: Bool = false) throws {
        guard !name.isEmpty else { throw EmulatorError.invalidArgument("Field names must not be empty.") }
        guard name.utf8.count <= 1500 else { throw EmulatorError.invalidArgument("Field name is longer than 1500 bytes.") }
        if name.hasPrefix("__") && name.hasSuffix("__") && name.count >= 4 && !(allowVectorType && name == "__type__") {
            throw EmulatorError.invalidArgument("field name \(name) is reserved")
        }
    }

    /// The value at this path in `fields`, if present.
    public func get(in fields: [String: Value]) -> Value? {
        var current: [String: Value] = fields
        for (i, s) in segments.enumerated() {
            guard let v = current[s] else { return nil }
            if i == segments.count - 1 { return v }
            guard case .map(let m) = v else { return nil }
            current = m
        }
        return nil
    }

    /// Sets (or, with nil, deletes) the value at this path, creating intermediate maps.
    public func set(_ value: Value?, in fields: inout [String: Value]) {
        Self.set(value, segments[...], in: &fields)
    }

    private static func set(_ value: Value?, _ segs: ArraySlice<String>, in fields: inout [String: Value]) {
        guard let first = segs.first else { return }
        if segs.count == 1 {
            fields[first] = value
            return
        }
        var child: [String: Value] = [:]
        if case .map(let m)? = fields[first] { child = m } else if value == nil { return }
        set(value, segs.dropFirst(), in: &child)
        fields[first] = .map(child)
    }

    /// True when `self` equals `other` or is a prefix of it.
    func isPrefix(of other: FieldPath) -> Bool {
        segments.count <= other.segments.count && Array(other.segments.prefix(segments.count)) == segments
    }
}

extension String {
    fileprivate func replacingBackslashAndBacktick() -> String {
        var out = ""
        for c in self {
            if c == "\\" || c == "`" { out.append("\\") }
            out.append(c)
        }
        return out
    }
}
