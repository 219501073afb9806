/// A dictionary keyed by strings compared as UTF-8 bytes (`UTF8Key`), with `String`'s ergonomics:
/// subscripts, iteration and `keys` speak `String`.
///
/// JSON objects and Firestore maps use it, so members whose names differ only in Unicode
/// normalisation ("é" precomposed and decomposed) stay two members, as they are on the wire and in
/// Firestore. A `[String: V]` would merge them (Swift's `String` equality is canonical
/// equivalence). Converting from a `[String: V]` (`init(_:)`) keeps whatever that dictionary kept.
public struct UTF8Dictionary<Value> {
    /// The members, keyed byte-wise.
    public var storage: [UTF8Key: Value]

    /// An empty dictionary.
    public init() { storage = [:] }

    /// An empty dictionary with room for `minimumCapacity` members.
    public init(minimumCapacity: Int) { storage = Dictionary(minimumCapacity: minimumCapacity) }

    /// Wraps byte-keyed members.
    public init(storage: [UTF8Key: Value]) { self.storage = storage }

    /// The members of a Swift dictionary (whose keys Swift has already made canonically distinct).
    public init(_ members: [String: Value]) {
        var s = [UTF8Key: Value](minimumCapacity: members.count)
        for (k, v) in members { s[UTF8Key(k)] = v }
        storage = s
    }

    /// Members from pairs; a later pair with the same bytes replaces an earlier one.
    public init<S: Sequence>(_ pairs: S) where S.Element == (String, Value) {
        var s: [UTF8Key: Value] = [:]
        for (k, v) in pairs { s[UTF8Key(k)] = v }
        storage = s
    }

    /// The member named `key` (byte-wise). Mutations go through `_modify`, so `d[k]?.edit()` and
    /// `d[a]?[b] = v` edit the member in place instead of copying it (and every dictionary nested in
    /// it) out and back.
    @inlinable public subscript(key: String) -> Value? {
        get { storage[UTF8Key(key)] }
        _modify { yield &storage[UTF8Key(key)] }
    }

    /// The member named `key`, or `defaultValue` (which a mutation then stores).
    @inlinable public subscript(key: String, default defaultValue: @autoclosure () -> Value) -> Value {
        get { storage[UTF8Key(key), default: defaultValue()] }
        _modify { yield &storage[UTF8Key(key), default: defaultValue()] }
    }

    /// The member names (in no particular order).
    public var keys: LazyMapCollection<Dictionary<UTF8Key, Value>.Keys, String> { storage.keys.lazy.map(\.string) }

    /// The member values (in no particular order).
    public var values: Dictionary<UTF8Key, Value>.Values { storage.values }

    /// Sets the member named `key`, returning the value it replaced.
    @discardableResult
    public mutating func updateValue(_ value: Value, forKey key: String) -> Value? { storage.updateValue(value, forKey: UTF8Key(key)) }

    /// Removes and returns the member named `key`.
    @discardableResult
    public mutating func removeValue(forKey key: String) -> Value? { storage.removeValue(forKey: UTF8Key(key)) }

    /// The same names with transformed values.
    public func mapValues<T>(_ transform: (Value) throws -> T) rethrows -> UTF8Dictionary<T> {
        UTF8Dictionary<T>(storage: try storage.mapValues(transform))
    }

    /// The same names with the non-nil transformed values.
    public func compactMapValues<T>(_ transform: (Value) throws -> T?) rethrows -> UTF8Dictionary<T> {
        UTF8Dictionary<T>(storage: try storage.compactMapValues(transform))
    }

    /// The members that pass `isIncluded` (a dictionary, like `Dictionary.filter`).
    public func filter(_ isIncluded: ((key: String, value: Value)) throws -> Bool) rethrows -> UTF8Dictionary<Value> {
        UTF8Dictionary(storage: try storage.filter { try isIncluded((key: $0.key.string, value: $0.value)) })
    }

    /// Adds `other`'s members; `combine` decides between two values with the same name.
    public mutating func merge(_ other: UTF8Dictionary<Value>, uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows {
        try storage.merge(other.storage, uniquingKeysWith: combine)
    }

    /// Reserves room for `n` members.
    public mutating func reserveCapacity(_ n: Int) { storage.reserveCapacity(n) }

    /// The members sorted by name bytes (deterministic output).
    public var sortedByKey: [(key: String, value: Value)] {
        storage.sorted { $0.key < $1.key }.map { (key: $0.key.string, value: $0.value) }
    }

    /// A Swift dictionary of the members, for code that only reads well-known ASCII names.
    /// Lossy where two names differ only in normalisation (Swift keeps one of them).
    public var dictionary: [String: Value] {
        var out: [String: Value] = [:]
        out.reserveCapacity(storage.count)
        for (k, v) in storage { out[k.string] = v }
        return out
    }
}

extension UTF8Dictionary: Collection {
    /// A position in the underlying dictionary.
    public typealias Index = Dictionary<UTF8Key, Value>.Index
    /// A member: its name and value.
    public typealias Element = (key: String, value: Value)

    /// The first position.
    public var startIndex: Index { storage.startIndex }
    /// Past the last position.
    public var endIndex: Index { storage.endIndex }
    /// The position after `i`.
    public func index(after i: Index) -> Index { storage.index(after: i) }
    /// The member at `position`.
    public subscript(position: Index) -> Element {
        let (k, v) = storage[position]
        return (key: k.string, value: v)
    }
    /// The number of members.
    public var count: Int { storage.count }
    /// True when there are no members.
    public var isEmpty: Bool { storage.isEmpty }
}

extension UTF8Dictionary: ExpressibleByDictionaryLiteral {
    /// A literal (a later duplicate name wins).
    @inlinable public init(dictionaryLiteral elements: (String, Value)...) {
        // Inlinable, and not through the generic `init(_:)`: across modules that ran unspecialised, about
        // a thousand instructions for a literal of one member (three per document GET). Storage of the
        // final size from the start: an empty dictionary grown by `reserveCapacity` costs a literal of
        // two members about 470 instructions more (callgrind, 2,397 against 1,924); `minimumCapacity: 0`
        // is the shared empty storage, no allocation.
        var s = [UTF8Key: Value](minimumCapacity: elements.count)
        for (k, v) in elements { s[UTF8Key(k)] = v }
        storage = s
    }
}

extension UTF8Dictionary: Equatable where Value: Equatable {
    /// Same names (byte-wise) with equal values.
    public static func == (a: UTF8Dictionary, b: UTF8Dictionary) -> Bool { a.storage == b.storage }
}

extension UTF8Dictionary: Hashable where Value: Hashable {
    /// Hashes the members, independent of their order.
    public func hash(into hasher: inout Hasher) { hasher.combine(storage) }
}

extension UTF8Dictionary: Sendable where Value: Sendable {}

extension UTF8Dictionary: CustomStringConvertible {
    /// The members as a Swift dictionary prints them, in name order.
    public var description: String {
        "[" + sortedByKey.map { "\(String(reflecting: $0.key)): \(String(reflecting: $0.value))" }.joined(separator: ", ") + "]"
    }
}
