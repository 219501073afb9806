import EmulatorCore

extension Value {
    /// Position of the value's type in Firestore's cross-type order:
    /// null < booleans < numbers (NaN first) < timestamps < strings < bytes < references <
    /// geo points < arrays < vectors < maps.
    var typeOrder: Int {
        switch self {
        case .null: return 0
        case .boolean: return 1
        case .integer, .double: return 2
        case .timestamp: return 3
        case .string: return 4
        case .bytes: return 5
        case .reference: return 6
        case .geoPoint: return 7
        case .array: return 8
        case .map: return isVector ? 9 : 10
        }
    }

    /// Firestore's total order: -1, 0 or 1. Numbers compare exactly across int and double
    /// (NaN below everything numeric, NaN equal to NaN); strings by UTF-8 bytes.
    public static func compare(_ a: Value, _ b: Value) -> Int { compare(a, b, indexed: false) }

    /// The order queries see: the total order, except that strings and bytes count only their
    /// first 1,500 bytes of index entry (1,499 of a string's, which has a terminator), as in
    /// production's indexes: two values equal on that prefix tie (their documents then follow by
    /// name), and a cut value sorts after the exact prefix (so `==` never matches it).
    public static func compareIndexed(_ a: Value, _ b: Value) -> Int { compare(a, b, indexed: true) }

    static func compare(_ a: Value, _ b: Value, indexed: Bool) -> Int {
        let ta = a.typeOrder, tb = b.typeOrder
        if ta != tb { return ta < tb ? -1 : 1 }
        switch (a, b) {
        case (.null, .null): return 0
        case (.boolean(let x), .boolean(let y)): return x == y ? 0 : (x ? 1 : -1)
        case (.timestamp(let x), .timestamp(let y)): return cmp(x, y)
        case (.string(let x), .string(let y)):
            if indexed, x.utf8.count >= maxIndexedBytes || y.utf8.count >= maxIndexedBytes {
                return compareCut(Array(x.utf8), Array(y.utf8), keep: maxIndexedBytes - 1)
            }
            return compareUTF8(x, y)
        case (.bytes(let x), .bytes(let y)):
            if indexed, x.count > maxIndexedBytes || y.count > maxIndexedBytes { return compareCut(x, y, keep: maxIndexedBytes) }
            return x.lexicographicallyPrecedes(y) ? -1 : (x == y ? 0 : 1)
        case (.reference(let x), .reference(let y)): return DocumentName.compareNames(x, y)
        case (.geoPoint(let la, let lo), .geoPoint(let lb, let lob)):
            let c = compareDoubles(la, lb)
            return c != 0 ? c : compareDoubles(lo, lob)
        case (.array(let x), .array(let y)): return compareArrays(x, y, indexed: indexed)
        case (.map(let x), .map(let y)):
            if a.isVector {
                let vx = vectorElements(x), vy = vectorElements(y)
                if vx.count != vy.count { return vx.count < vy.count ? -1 : 1 }
                return compareArrays(vx, vy, indexed: indexed)
            }
            return compareMaps(x, y, indexed: indexed)
        default:
            return compareNumbers(a, b)
        }
    }

    /// Compares the first `keep` bytes; on a tie, a value that was cut sorts after one that was
    /// not, and two cut values are equal.
    static func compareCut(_ x: [UInt8], _ y: [UInt8], keep: Int) -> Int {
        let px = x.prefix(keep), py = y.prefix(keep)
        if !px.elementsEqual(py) { return px.lexicographicallyPrecedes(py) ? -1 : 1 }
        let cx = x.count > keep, cy = y.count > keep
        return cx == cy ? 0 : (cx ? 1 : -1)
    }

    static func vectorElements(_ m: FieldMap) -> [Value] {
        if case .array(let v)? = m["value"] { return v }
        return []
    }

    static func cmp<T: Comparable>(_ x: T, _ y: T) -> Int { x < y ? -1 : (x == y ? 0 : 1) }

    /// Firestore's string order: UTF-8 bytes, no normalization. Not Swift's `==`, which calls
    /// precomposed and decomposed "é" equal and so made the order non-transitive.
    static func compareUTF8(_ x: String, _ y: String) -> Int { x.utf8Compare(y) }

    static func compareDoubles(_ x: Double, _ y: Double) -> Int {
        if x.isNaN { return y.isNaN ? 0 : -1 }
        if y.isNaN { return 1 }
        return cmp(x, y)
    }

    static func compareNumbers(_ a: Value, _ b: Value) -> Int {
        switch (a, b) {
        case (.integer(let x), .integer(let y)): return cmp(x, y)
        case (.double(let x), .double(let y)): return compareDoubles(x, y)
        case (.integer(let x), .double(let y)): return -compareDoubleToInt(y, x)
        case (.double(let x), .integer(let y)): return compareDoubleToInt(x, y)
        default: return 0
        }
    }

    /// Exact comparison of a double with an int64 (no rounding through Double).
    static func compareDoubleToInt(_ d: Double, _ i: Int64) -> Int {
        if d.isNaN { return -1 }
        if d >= 9_223_372_036_854_775_808.0 { return 1 }
        if d < -9_223_372_036_854_775_808.0 { return -1 }
        let t = d.rounded(.towardZero)
        let ti = Int64(t)
        if ti != i { return ti < i ? -1 : 1 }
        let frac = d - t
        return frac > 0 ? 1 : (frac < 0 ? -1 : 0)
    }

    static func compareArrays(_ x: [Value], _ y: [Value], indexed: Bool = false) -> Int {
        for (p, q) in zip(x, y) {
            let c = compare(p, q, indexed: indexed)
            if c != 0 { return c }
        }
        return cmp(x.count, y.count)
    }

    /// Maps compare key by key in byte order of the keys, then value, then size.
    static func compareMaps(_ x: FieldMap, _ y: FieldMap, indexed: Bool = false) -> Int {
        let kx = x.storage.sorted { $0.key < $1.key }, ky = y.storage.sorted { $0.key < $1.key }
        for (a, b) in zip(kx, ky) {
            let c = compareUTF8(a.key.string, b.key.string)
            if c != 0 { return c }
            let v = compare(a.value, b.value, indexed: indexed)
            if v != 0 { return v }
        }
        return cmp(kx.count, ky.count)
    }

    /// Query equality (`==`, `in`, `array-contains`): the total order's equality, except that NaN
    /// never equals anything (use IS_NAN).
    static func queryEquals(_ a: Value, _ b: Value) -> Bool {
        if a.isNaN || b.isNaN { return false }
        return compare(a, b, indexed: true) == 0
    }

    /// Transform equality (`arrayUnion`/`arrayRemove`): 3 == 3.0 and NaN == NaN.
    static func transformEquals(_ a: Value, _ b: Value) -> Bool { compare(a, b) == 0 }
}

extension Value {
    /// A hash of `equalityKey` (nil for NaN): what the equality indexes store. Equal values share
    /// it; unequal values may too, rarely, so a lookup gives candidates, not answers.
    ///
    /// Numbers, booleans, null and strings (most indexed values) are hashed directly, without
    /// building the key string: 1 and 1.0 hash as the same integer, as their keys are the same;
    /// a string hashes its bytes, as its key is its bytes. Other kinds hash their key string.
    var equalityHash: Int? {
        var h = Hasher()
        switch self {
        case .integer(let i):
            h.combine(UInt8(1))
            h.combine(i)
        case .double(let d):
            if d.isNaN { return nil }
            if d == d.rounded(), abs(d) < 9.2e18 {
                h.combine(UInt8(1))  // as `.integer`, like `equalityKey`'s "n"
                h.combine(Int64(d))
            } else {
                h.combine(UInt8(2))
                h.combine(d.bitPattern)
            }
        case .null: h.combine(UInt8(3))
        case .boolean(let b):
            h.combine(UInt8(4))
            h.combine(b)
        case .string(let s):
            h.combine(UInt8(5))
            s.utf8Hash(into: &h)
        default:
            guard let key = equalityKey else { return nil }
            h.combine(UInt8(6))
            key.utf8Hash(into: &h)
        }
        return h.finalize()
    }

    /// A key shared by the values `==` considers equal (1 and 1.0 share one), nil for NaN (which
    /// equals nothing). Used by the equality indexes, which compare keys by bytes (`UTF8Key`), so
    /// canonically equivalent strings get different keys, as they are different values.
    var equalityKey: String? {
        switch self {
        case .double(let d):
            if d.isNaN { return nil }
            if d == d.rounded(), abs(d) < 9.2e18 { return "n" + String(Int64(d)) }
            return "d" + String(d.bitPattern == (-0.0).bitPattern ? 0 : d.bitPattern)
        case .integer(let i): return "n" + String(i)
        case .array(let a):
            var parts: [String] = []
            for x in a {
                guard let k = x.equalityKey else { return nil }
                parts.append(k)
            }
            return "a[" + parts.joined(separator: ",") + "]"
        case .map(let m):
            var parts: [String] = []
            for (k, value) in m.sortedByKey {
                guard let v = value.equalityKey else { return nil }
                parts.append(JSON.string(k).serialized() + ":" + v)
            }
            return (isVector ? "v{" : "m{") + parts.joined(separator: ",") + "}"
        case .timestamp(let t): return "t\(t.seconds).\(t.nanos / 1000)"
        default: return "\(typeOrder):" + json.serialized()
        }
    }
}
