import EmulatorCore

/// A dotted field path (`a.b`, `` `x.y`.z ``), as segments. `__name__` is the document name.
/// Segments are byte strings: equality and hashing compare their UTF-8 bytes (a field named with a
/// precomposed "é" is not the one named with a decomposed "é").
public struct FieldPath: Sendable, Hashable, CustomStringConvertible {
    /// The segments, unescaped.
    public var segments: [String]

    /// Creates a path from segments.
    public init(_ segments: [String]) { self.segments = segments }

    /// The document-name pseudo field.
    public static let name = FieldPath(["__name__"])

    /// True for `__name__`.
    public var isName: Bool { segments.count == 1 && segments[0].utf8Equals("__name__") }

    /// Byte-wise equality of the segments.
    public static func == (a: FieldPath, b: FieldPath) -> Bool {
        a.segments.count == b.segments.count && zip(a.segments, b.segments).allSatisfy { $0.utf8Equals($1) }
    }

    /// Hashes the segments' bytes.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(segments.count)
        for s in segments { s.utf8Hash(into: &hasher) }
    }

    /// Parses the canonical string form: unquoted segments match `[A-Za-z_][A-Za-z_0-9]*`,
    /// backticks quote any other segment and `\` escapes inside them. Production refuses anything
    /// else (`a b`, `é`, `1x` unquoted) with the message used here. Works on Unicode scalars, not
    /// characters, so a backtick or dot followed by a combining mark still counts.
    public init(parsing text: String) throws {
        guard !text.isEmpty else { throw EmulatorError.invalidArgument("Invalid empty property path string.") }
        func invalid() -> EmulatorError {
            .invalidArgument(
                "Invalid property path \"\(text)\". Unquoted property paths must match regex ([a-zA-Z_][a-zA-Z_0-9]*), and quoted property paths must match regex (`(?:[^`\\\\]|(?:\\\\.))+`)"
            )
        }
        var segs: [String] = []
        var cur = String.UnicodeScalarView()
        var quoted = false
        var wasQuoted = false
        var it = text.unicodeScalars.makeIterator()
        func finishSegment() throws {
            guard !cur.isEmpty else { throw invalid() }
            if !wasQuoted && !Self.isSimple(cur) { throw invalid() }
            segs.append(String(cur))
            cur = String.UnicodeScalarView()
            wasQuoted = false
        }
        while let c = it.next() {
            if quoted {
                if c == "\\" {
                    guard let n = it.next() else { throw invalid() }
                    cur.append(n)
                } else if c == "`" {
                    quoted = false
                } else {
                    cur.append(c)
                }
            } else if c == "`" {
                guard cur.isEmpty, !wasQuoted else { throw invalid() }
                quoted = true
                wasQuoted = true
            } else if c == "." {
                try finishSegment()
            } else {
                guard !wasQuoted else { throw invalid() }
                cur.append(c)
            }
        }
        guard !quoted else { throw invalid() }
        try finishSegment()
        self.segments = segs
    }

    /// True for a segment that needs no quoting: `[A-Za-z_][A-Za-z_0-9]*`.
    static func isSimple(_ s: String.UnicodeScalarView) -> Bool {
        guard !s.isEmpty else { return false }
        for (i, u) in s.enumerated() {
            let ok = u == "_" || ("a"..."z").contains(u) || ("A"..."Z").contains(u) || (i > 0 && ("0"..."9").contains(u))
            if !ok { return false }
        }
        return true
    }

    /// The canonical string (simple segments bare, others backtick-quoted).
    public var description: String {
        segments.map { s in Self.isSimple(s.unicodeScalars) ? s : "`" + s.replacingBackslashAndBacktick() + "`" }.joined(separator: ".")
    }

    /// Rejects names Firestore reserves (`__x__`) and empty names.
    static func validateName(_ name: String, allowVectorType: Bool = false) throws {
        guard !name.isEmpty else { throw EmulatorError.invalidArgument("Field names must not be empty.") }
        guard name.utf8.count <= 1500 else { throw EmulatorError.invalidArgument("Field name is longer than 1500 bytes.") }
        if isReserved(name) && !(allowVectorType && name.utf8Equals("__type__")) {
            throw EmulatorError.invalidArgument("field name \(name) is reserved")
        }
    }

    /// True for `__.*__` names (by bytes: at least four, two underscores at each end).
    static func isReserved(_ name: String) -> Bool {
        let u = name.utf8
        guard u.count >= 4 else { return false }
        return u.prefix(2).elementsEqual("__".utf8) && u.suffix(2).elementsEqual("__".utf8)
    }

    /// The value at this path in `fields`, if present.
    public func get(in fields: FieldMap) -> Value? {
        var current: FieldMap = fields
        for (i, s) in segments.enumerated() {
            guard let v = current[s] else { return nil }
            if i == segments.count - 1 { return v }
            guard case .map(let m) = v else { return nil }
            current = m
        }
        return nil
    }

    /// Sets (or, with nil, deletes) the value at this path, creating intermediate maps.
    public func set(_ value: Value?, in fields: inout FieldMap) {
        Self.set(value, segments[...], in: &fields)
    }

    private static func set(_ value: Value?, _ segs: ArraySlice<String>, in fields: inout FieldMap) {
        guard let first = segs.first else { return }
        if segs.count == 1 {
            fields[first] = value
            return
        }
        var child = FieldMap()
        if case .map(let m)? = fields[first] { child = m } else if value == nil { return }
        set(value, segs.dropFirst(), in: &child)
        fields[first] = .map(child)
    }

    /// True when `self` equals `other` or is a prefix of it.
    func isPrefix(of other: FieldPath) -> Bool {
        segments.count <= other.segments.count && zip(segments, other.segments).allSatisfy { $0.utf8Equals($1) }
    }
}

extension String {
    fileprivate func replacingBackslashAndBacktick() -> String {
        var out = ""
        for c in unicodeScalars {
            if c == "\\" || c == "`" { out.unicodeScalars.append("\\") }
            out.unicodeScalars.append(c)
        }
        return out
    }
}
