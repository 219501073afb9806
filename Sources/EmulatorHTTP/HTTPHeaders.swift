import EmulatorCore

/// An ordered list of header fields with case-insensitive lookup.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    /// The fields in arrival (or insertion) order; names keep their original case.
    public private(set) var fields: [(name: String, value: String)] = []

    /// Creates an empty set of headers.
    public init() {}

    /// Creates an empty set with room for `capacity` fields (the parser counted the lines).
    init(reservingCapacity capacity: Int) { fields.reserveCapacity(capacity) }

    /// Creates headers from name/value pairs.
    public init(dictionaryLiteral elements: (String, String)...) {
        for (n, v) in elements { add(n, v) }
    }

    /// Appends a field (duplicates allowed).
    public mutating func add(_ name: String, _ value: String) { fields.append((name, value)) }

    /// Replaces every field called `name` with one field.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        fields.append((name, value))
    }

    /// Removes every field called `name`.
    public mutating func remove(_ name: String) {
        fields.removeAll { $0.name.caseInsensitiveEquals(name) }
    }

    /// The first value of `name`, case-insensitively.
    public subscript(_ name: String) -> String? {
        fields.first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    /// How many fields are called `name` (without collecting their values).
    public func count(of name: String) -> Int {
        var n = 0
        for f in fields where f.name.caseInsensitiveEquals(name) { n += 1 }
        return n
    }

    /// All values of `name`.
    public func values(_ name: String) -> [String] {
        fields.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
    }

    /// Iterates the fields in order.
    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    /// Field-by-field equality (names compared case-insensitively).
    public static func == (a: HTTPHeaders, b: HTTPHeaders) -> Bool {
        a.fields.count == b.fields.count
            && zip(a.fields, b.fields).allSatisfy { $0.name.caseInsensitiveEquals($1.name) && $0.value == $1.value }
    }
}

extension String {
    /// ASCII case-insensitive equality (header names are ASCII tokens).
    func caseInsensitiveEquals(_ other: String) -> Bool {
        // Over the bytes: a zip of the two `utf8` views cost about a hundred instructions a
        // comparison, and headers are looked up about ten times a request.
        withUTF8Bytes { x in
            other.withUTF8Bytes { y in
                guard x.count == y.count else { return false }
                for k in 0..<x.count where !Self.sameLetter(x[k], y[k]) { return false }
                return true
            }
        }
    }

    /// Whether two bytes are equal, or the same ASCII letter in two cases.
    @inline(__always) private static func sameLetter(_ x: UInt8, _ y: UInt8) -> Bool {
        guard x != y else { return true }
        let lx = x | 0x20, ly = y | 0x20
        return lx == ly && lx >= 0x61 && lx <= 0x7A
    }
}
