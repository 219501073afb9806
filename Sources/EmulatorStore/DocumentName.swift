import EmulatorCore

/// Document and collection names: `projects/{p}/databases/{d}/documents/{path}` and the
/// database-relative paths (`tasks/t1`) the store keys by.
///
/// Names are byte strings. Everything here splits, compares and checks prefixes on UTF-8 bytes,
/// never on `Character`s: an id may start with a combining mark ("a/\u{301}x"), which Swift's
/// grapheme-based `split`, `lastIndex(of:)` and `hasPrefix` would glue to the slash, and ids that
/// differ only in Unicode normalisation are different documents.
public enum DocumentName {
    static let slash = UInt8(ascii: "/")

    /// `projects/{p}/databases/{d}/documents`.
    public static func root(project: String, database: String) -> String { "projects/\(project)/databases/\(database)/documents" }

    /// The full name of a database-relative path. Copied into one string of the exact size:
    /// every REST read and write names its document this way; interpolation and `+` grew the
    /// string several times, and six `append`s still cost about 2,600 instructions a GET.
    public static func full(project: String, database: String, path: String) -> String {
        let count = 9 + project.utf8.count + 11 + database.utf8.count + 10 + (path.isEmpty ? 0 : 1 + path.utf8.count)
        return String(unsafeUninitializedCapacity: count) { out in
            var at = 0
            func put(_ literal: StaticString) {
                UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: out[at...])).copyMemory(
                    from: UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
                at += literal.utf8CodeUnitCount
            }
            func put(_ text: String) {
                text.withUTF8Bytes { bytes in
                    UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: out[at...])).copyMemory(from: UnsafeRawBufferPointer(bytes))
                    at += bytes.count
                }
            }
            put("projects/")
            put(project)
            put("/databases/")
            put(database)
            put("/documents")
            if !path.isEmpty {
                put("/")
                put(path)
            }
            return at
        }
    }

    /// The `/`-separated segments of a path, split on the byte (empty segments kept).
    public static func segments(_ path: String) -> [String] {
        path.utf8.split(separator: slash, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Splits a full name into (project, database, relative path); nil when it is not one.
    /// Every write's name comes through here, so it is scanned in place: only the three parts
    /// become strings. The same answers as splitting on `/`: five leading segments `projects`,
    /// a non-empty project, `databases`, a non-empty database, `documents`, then a path without
    /// empty segments (or none).
    public static func parse(_ name: String) -> (project: String, database: String, path: String)? {
        name.withUTF8Bytes { u -> (String, String, String)? in
            let n = u.count
            func end(_ i: Int) -> Int { segmentEnd(u, from: i) }
            func string(_ a: Int, _ b: Int) -> String { String(decoding: UnsafeBufferPointer(rebasing: u[a..<b]), as: UTF8.self) }
            let e0 = end(0)
            guard ASCIIBytes.equals(u, 0, e0, "projects"), e0 < n else { return nil }
            let e1 = end(e0 + 1)
            guard e1 > e0 + 1, e1 < n else { return nil }
            let e2 = end(e1 + 1)
            guard ASCIIBytes.equals(u, e1 + 1, e2, "databases"), e2 < n else { return nil }
            let e3 = end(e2 + 1)
            guard e3 > e2 + 1, e3 < n else { return nil }
            let e4 = end(e3 + 1)
            guard ASCIIBytes.equals(u, e3 + 1, e4, "documents") else { return nil }
            var path = ""
            if e4 < n {
                let first = e4 + 1
                // No empty segment: not empty, no leading or trailing slash, no two slashes together.
                guard first < n, u[first] != slash, u[n - 1] != slash else { return nil }
                for i in first..<(n - 1) where u[i] == slash && u[i + 1] == slash { return nil }
                path = string(first, n)
            }
            return (string(e0 + 1, e1), string(e2 + 1, e3), path)
        }
    }

    /// True for a well-formed reference to a document (even number of path segments).
    static func isValidReference(_ name: String) -> Bool {
        guard let p = parse(name), !p.path.isEmpty else { return false }
        return segments(p.path).count % 2 == 0
    }

    /// Validates a relative document path (even segments) and its ids; names the problem.
    public static func validateDocumentPath(_ path: String) throws {
        // Every read and write names a document: the common case is checked without splitting.
        if let n = plainSegmentCount(path), n % 2 == 0 { return }
        let segs = segments(path)
        guard !path.isEmpty, segs.count % 2 == 0 else {
            throw EmulatorError.invalidArgument("Document path '\(path)' must have an even number of segments (collection/document pairs).")
        }
        try validateSegments(segs, path)
    }

    /// Validates a relative collection path (odd segments).
    public static func validateCollectionPath(_ path: String) throws {
        let segs = segments(path)
        guard !path.isEmpty, segs.count % 2 == 1 else {
            throw EmulatorError.invalidArgument("Collection path '\(path)' must have an odd number of segments.")
        }
        try validateSegments(segs, path)
    }

    /// The number of segments when the path is at most 6 KiB and every segment is an ordinary id
    /// (not empty, not `.` or `..`, at most 1500 bytes, not `__…__`); nil otherwise, and then
    /// `validateSegments` names the problem (or allows a numeric `__id<n>__`).
    static func plainSegmentCount(_ path: String) -> Int? {
        path.withUTF8Bytes { p -> Int? in
            guard !p.isEmpty, p.count <= 6 * 1024 else { return nil }
            let dot = UInt8(ascii: "."), underscore = UInt8(ascii: "_")
            var count = 0, start = 0
            for i in 0...p.count where i == p.count || p[i] == slash {
                let length = i - start
                guard length > 0, length <= 1500 else { return nil }
                if p[start] == dot && (length == 1 || (length == 2 && p[start + 1] == dot)) { return nil }
                if length >= 4 && p[start] == underscore && p[start + 1] == underscore && p[i - 1] == underscore && p[i - 2] == underscore {
                    return nil
                }
                count += 1
                start = i + 1
            }
            return count
        }
    }

    static func validateSegments(_ segs: [String], _ path: String) throws {
        guard path.utf8.count <= 6 * 1024 else { throw EmulatorError.invalidArgument("Document name is longer than 6 KiB.") }
        for s in segs {
            guard !s.isEmpty else { throw EmulatorError.invalidArgument("Path '\(path)' has an empty segment.") }
            guard !s.utf8Equals("."), !s.utf8Equals("..") else {
                throw EmulatorError.invalidArgument("Path '\(path)': '.' and '..' are not valid ids.")
            }
            guard s.utf8.count <= 1500 else { throw EmulatorError.invalidArgument("Path '\(path)': ids are limited to 1500 bytes.") }
            if FieldPath.isReserved(s) && !isNumericId(s) {
                throw EmulatorError.invalidArgument("Path '\(path)': id '\(s)' is reserved.")
            }
        }
    }

    /// True for a numeric `__id<n>__` id (Datastore's numeric ids as Firestore shows them).
    static func isNumericId(_ s: String) -> Bool {
        s.withUTF8Bytes { numericId($0) != nil }
    }

    /// Orders full or relative names segment by segment (numeric `__id<n>__` ids first, by
    /// number; other ids by their bytes; a name before its descendants).
    static func compareNames(_ a: String, _ b: String) -> Int {
        a.withUTF8Bytes { p in b.withUTF8Bytes { q in compareNameBytes(p, q) } }
    }

    /// Byte order, with the end of a name below `/` and `/` below every other byte, is segment
    /// order (a name before its descendants, an id before its extensions) wherever the segment
    /// holding the first difference is an ordinary id in both names. Where it is a numeric id in
    /// either (`__id<n>__`, ordered by number), the segment-by-segment walk decides. Sorting a
    /// query's candidates by the walk alone cost about 430 instructions a comparison.
    static func compareNameBytes(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Int {
        let k = ASCIIBytes.commonPrefixCount(x, y)
        if k == x.count && k == y.count { return 0 }
        var s = k  // the start of the segment holding the difference (the same in both)
        while s > 0 && x[s - 1] != slash { s -= 1 }
        // Only a segment starting with `_` can be a numeric id: the test of that first byte is
        // inline, and most comparisons stop there.
        let underscore = UInt8(ascii: "_")
        if (s < x.count && x[s] == underscore) || (s < y.count && y[s] == underscore),
            isNumericSegment(x, at: s) || isNumericSegment(y, at: s)
        {
            return compareSegments(x, y)
        }
        func rank(_ b: UnsafeBufferPointer<UInt8>) -> Int { k == b.count ? -2 : (b[k] == slash ? -1 : Int(b[k])) }
        return rank(x) < rank(y) ? -1 : 1
    }

    /// The end of the segment of `b` starting at `i`: the index of the next `/`, or `b.count`.
    @inline(__always)
    static func segmentEnd(_ b: UnsafeBufferPointer<UInt8>, from i: Int) -> Int {
        var e = i
        while e < b.count && b[e] != slash { e += 1 }
        return e
    }

    /// Whether the segment of `b` starting at `start` is a numeric id.
    private static func isNumericSegment(_ b: UnsafeBufferPointer<UInt8>, at start: Int) -> Bool {
        guard start < b.count else { return false }
        return numericId(UnsafeBufferPointer(rebasing: b[start..<segmentEnd(b, from: start)])) != nil
    }

    /// The segment-by-segment walk: numeric `__id<n>__` ids first, by number; other ids by bytes.
    static func compareSegments(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Int {
        var i = 0, j = 0
        while true {
            let xEnd = i >= x.count, yEnd = j >= y.count
            if xEnd || yEnd { return xEnd && yEnd ? 0 : (xEnd ? -1 : 1) }
            let ie = segmentEnd(x, from: i), je = segmentEnd(y, from: j)
            let p = UnsafeBufferPointer(rebasing: x[i..<ie]), q = UnsafeBufferPointer(rebasing: y[j..<je])
            if !p.elementsEqual(q) {
                let np = numericId(p), nq = numericId(q)
                if let np, let nq, np != nq { return np < nq ? -1 : 1 }
                if (np == nil) != (nq == nil) { return np != nil ? -1 : 1 }
                return p.lexicographicallyPrecedes(q) ? -1 : 1
            }
            i = ie + 1
            j = je + 1
            // A trailing slash-free end on one side only: that name is the ancestor.
            if ie >= x.count || je >= y.count {
                let xDone = ie >= x.count, yDone = je >= y.count
                return xDone && yDone ? 0 : (xDone ? -1 : 1)
            }
        }
    }

    /// The number of a numeric `__id<n>__` id, from its bytes.
    static func numericId(_ s: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard s.count > 6, s.starts(with: "__id".utf8), s.suffix(2).elementsEqual("__".utf8) else { return nil }
        var n: Int64 = 0
        for b in s.dropFirst(4).dropLast(2) {
            guard (0x30...0x39).contains(b) else { return nil }
            let (m, o1) = n.multipliedReportingOverflow(by: 10)
            let (r, o2) = m.addingReportingOverflow(Int64(b - 0x30))
            if o1 || o2 { return nil }
            n = r
        }
        return n
    }

    /// The collection path of a document path (`a/b/c/d` → `a/b/c`); "" for a top-level name.
    public static func collection(of path: String) -> String {
        guard let i = path.utf8.lastIndex(of: slash) else { return "" }
        return String(decoding: path.utf8[..<i], as: UTF8.self)
    }

    /// The last segment.
    public static func lastSegment(_ path: String) -> String {
        guard let i = path.utf8.lastIndex(of: slash) else { return path }
        return String(decoding: path.utf8[path.utf8.index(after: i)...], as: UTF8.self)
    }

    /// The first segment of `path` below `prefix` (which ends with "/"), or nil when `path` is not
    /// under it: `child("a/b/c/d", under: "a/")` is "b".
    static func child(_ path: String, under prefix: String) -> String? {
        guard path.utf8HasPrefix(prefix) else { return nil }
        let rest = path.utf8.dropFirst(prefix.utf8.count)
        let segment = rest.prefix { $0 != slash }
        return segment.isEmpty ? nil : String(decoding: segment, as: UTF8.self)
    }

    /// True when `path` is `ancestor` or below it ("" is everything's ancestor).
    static func isWithin(_ path: String, _ ancestor: String) -> Bool {
        if ancestor.isEmpty { return true }
        guard path.utf8HasPrefix(ancestor) else { return false }
        let n = ancestor.utf8.count
        return path.utf8.count == n || path.utf8.dropFirst(n).first == slash
    }
}
