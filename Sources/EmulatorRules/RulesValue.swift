import EmulatorCore

/// A value in the rules language. Errors are values (`.error`): they propagate through
/// expressions and are absorbed by `&&`/`||` when the other side decides.
public indirect enum RulesValue: Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case float(Double)
    case string(String)
    case bytes([UInt8])
    case list([RulesValue])
    case map([String: RulesValue])
    case set([RulesValue])
    /// Path segments (`/databases/(default)/documents/c/d` → 5 segments).
    case path([String])
    case timestamp(Timestamp)
    case duration(seconds: Int64, nanos: Int32)
    case latlng(Double, Double)
    case mapDiff([String: RulesValue], [String: RulesValue])
    /// A field of a list query's `resource.data`, known only through the query's constraints.
    case queryField(path: [String], constraint: QueryConstraint?)
    case error(String)

    /// The type name used by `is` and messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "bool"
        case .int: "int"
        case .float: "float"
        case .string: "string"
        case .bytes: "bytes"
        case .list: "list"
        case .map: "map"
        case .set: "set"
        case .path: "path"
        case .timestamp: "timestamp"
        case .duration: "duration"
        case .latlng: "latlng"
        case .mapDiff: "map_diff"
        case .queryField: "query field"
        case .error: "error"
        }
    }

    var isError: Bool { if case .error = self { true } else { false } }

    /// `is` checks (`number` covers int and float).
    func isType(_ name: String) -> Bool? {
        switch name {
        case "number":
            if case .int = self { return true }
            if case .float = self { return true }
            return false
        case "bool", "int", "float", "string", "bytes", "list", "map", "set", "path", "timestamp", "duration", "latlng":
            return typeName == name
        case "rules.MapDiff", "map_diff": return typeName == "map_diff"
        default: return nil
        }
    }

    /// Rules equality: ints and floats compare numerically; lists, maps and sets deeply.
    static func equal(_ a: RulesValue, _ b: RulesValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.int(let x), .int(let y)): return x == y
        case (.float(let x), .float(let y)): return x == y
        case (.int(let x), .float(let y)), (.float(let y), .int(let x)): return Double(x) == y
        case (.string(let x), .string(let y)): return x == y
        case (.bytes(let x), .bytes(let y)): return x == y
        case (.list(let x), .list(let y)): return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1) }
        case (.set(let x), .set(let y)): return x.count == y.count && x.allSatisfy { i in y.contains { equal(i, $0) } }
        case (.map(let x), .map(let y)): return x.count == y.count && x.allSatisfy { k, v in y[k].map { equal(v, $0) } ?? false }
        case (.path(let x), .path(let y)): return x == y
        case (.timestamp(let x), .timestamp(let y)): return x == y
        case (.duration(let s1, let n1), .duration(let s2, let n2)): return s1 == s2 && n1 == n2
        case (.latlng(let a1, let o1), .latlng(let a2, let o2)): return a1 == a2 && o1 == o2
        default: return false
        }
    }

    /// Ordering for `< <= > >=`: numbers, strings, timestamps, durations, bytes, lists; nil when incomparable.
    static func compare(_ a: RulesValue, _ b: RulesValue) -> Int? {
        func c<T: Comparable>(_ x: T, _ y: T) -> Int { x < y ? -1 : (x == y ? 0 : 1) }
        switch (a, b) {
        case (.int(let x), .int(let y)): return c(x, y)
        case (.float(let x), .float(let y)): return x.isNaN || y.isNaN ? nil : c(x, y)
        case (.int(let x), .float(let y)): return y.isNaN ? nil : c(Double(x), y)
        case (.float(let x), .int(let y)): return x.isNaN ? nil : c(x, Double(y))
        case (.string(let x), .string(let y)): return x == y ? 0 : (x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : 1)
        case (.timestamp(let x), .timestamp(let y)): return c(x, y)
        case (.duration(let s1, let n1), .duration(let s2, let n2)): return s1 != s2 ? c(s1, s2) : c(n1, n2)
        case (.bytes(let x), .bytes(let y)): return x == y ? 0 : (x.lexicographicallyPrecedes(y) ? -1 : 1)
        case (.list(let x), .list(let y)):
            for (p, q) in zip(x, y) {
                guard let r = compare(p, q) else { return nil }
                if r != 0 { return r }
            }
            return c(x.count, y.count)
        default: return nil
        }
    }
}

/// What a list query's filters say about one field (rules judge queries by constraints).
public enum QueryConstraint: Sendable {
    /// `field == value`.
    case equal(RulesValue)
    /// A range with optional bounds `(value, inclusive)`.
    case range(lower: (RulesValue, Bool)?, upper: (RulesValue, Bool)?)
}
