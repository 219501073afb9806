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
    public static func compare(_ a: Value, _ b: Value) -> Int {
        let ta = a.typeOrder, tb = b.typeOrder
        if ta != tb { return ta < tb ? -1 : 1 }
        switch (a, b) {
        case (.null, .null): return 0
        case (.boolean(let x), .boolean(let y)): return x == y ? 0 : (x ? 1 : -1)
        case (.timestamp(let x), .timestamp(let y)): return cmp(x, y)
        case (.string(let x), .string(let y)): return compareUTF8(x, y)
        case (.bytes(let x), .bytes(let y)): return x.lexicographicallyPrecedes(y) ? -1 : (x == y ? 0 : 1)
        case (.reference(let x), .reference(let y)): return DocumentName.compareNames(x, y)
        case (.geoPoint(let la, let lo), .geoPoint(let lb, let lob)):
            let c = compareDoubles(la, lb)
            return c != 0 ? c : compareDoubles(lo, lob)
        case (.array(let x), .array(let y)): return compareArrays(x, y)
        case (.map(let x), .map(let y)):
            if a.isVector {
                let vx = vectorElements(x), vy = vectorElements(y)
                if vx.count != vy.count { return vx.count < vy.count ? -1 : 1 }
                return compareArrays(vx, vy)
            }
            return compareMaps(x, y)
        default:
            return compareNumbers(a, b)
        }
    }

    static func vectorElements(_ m: [String: Value]) -> [Value] {
        if case .array(let v)? = m["value"] { return v }
        return []
    }

    static func cmp<T: Comparable>(_ x: T, _ y: T) -> Int { x < y ? -1 : (x == y ? 0 : 1) }

    /// Firestore's string order: UTF-8 bytes, no normalization. Not Swift's `==`, which calls
    /// precomposed and decomposed "é" equal and so made the order non-transitive.
    static func compareUTF8(_ x: String, _ y: String) -> Int {
        if x.utf8.elementsEqual(y.utf8) { return 0 }
        return x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : 1
    }

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

    static func compareArrays(_ x: [Value], _ y: [Value]) -> Int {
        for (p, q) in zip(x, y) {
            let c = compare(p, q)
            if c != 0 { return c }
        }
        return cmp(x.count, y.count)
    }

    static func compareMaps(_ x: [String: Value], _ y: [String: Value]) -> Int {
        let kx = x.sorted { compareUTF8($0.key, $1.key) < 0 }, ky = y.sorted { compareUTF8($0.key, $1.key) < 0 }
        for (a, b) in zip(kx, ky) {
            let c = compareUTF8(a.key, b.key)
            if c != 0 { return c }
            let v = compare(a.value, b.value)
            if v != 0 { return v }
        }
        return cmp(kx.count, ky.count)
    }

    /// Query equality (`==`, `in`, `array-contains`): the total order's equality, except that NaN
    /// never equals anything (use IS_NAN).
    static func queryEquals(_ a: Value, _ b: Value) -> Bool {
        if a.isNaN || b.isNaN { return false }
        return compare(a, b) == 0
    }

    /// Transform equality (`arrayUnion`/`arrayRemove`): 3 == 3.0 and NaN == NaN.
    static func transformEquals(_ a: Value, _ b: Value) -> Bool { compare(a, b) == 0 }
}

extension Value {
    /// A key shared by the values `==` considers equal (1 and 1.0 share one), nil for NaN (which
    /// equals nothing). Used by the equality indexes. Keys are Swift strings, so canonically
    /// equivalent strings share one too; that only widens the candidates, which the filter checks.
    var equalityKey: String? {
        switch self {
        case .double(let d):
            if d.isNaN { return nil }
            if d == d.rounded(), abs(d) < 9.2e18 { return "n" + String(Int64(d)) }
            return "d" + String(d.bitPattern == (-0.0).bitPattern ? 0 : d.bitPattern)
        case .integer(let i): return "n" + String(i)
        case .array(let a):
            var parts: [String] = []
            for x in a { guard let k = x.equalityKey else { return nil }; parts.append(k) }
            return "a[" + parts.joined(separator: ",") + "]"
        case .map(let m):
            var parts: [String] = []
            for (k, value) in m.sorted(by: { $0.key < $1.key }) { guard let v = value.equalityKey else { return nil }; parts.append(k.debugDescription + ":" + v) }
            return (isVector ? "v{" : "m{") + parts.joined(separator: ",") + "}"
        case .timestamp(let t): return "t\(t.seconds).\(t.nanos / 1000)"
        default: return "\(typeOrder):" + json.serialized()
        }
    }
}
