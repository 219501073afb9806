/// Values bucketed by a hash that equal values share, for the membership tests of `arrayUnion`
/// and `arrayRemove`: a scan of the array per item made a 30,000-item `arrayUnion` take 7.6 s
/// inside the database's lock. Equality is `Value.transformEquals` (Firestore's ordering: 1 and
/// 1.0 are equal, NaN equals NaN). A value type; not shared.
struct ValueSet {
    private var buckets: [Int: [Value]] = [:]
    /// NaN has no equality hash; all NaNs are equal, so this holds at most one.
    private var nans: [Value] = []

    /// A set of `values`.
    init(_ values: [Value] = []) { for v in values { insert(v) } }

    /// Whether a value equal to `v` is in the set.
    func contains(_ v: Value) -> Bool {
        let bucket = Self.key(v).map { buckets[$0] ?? [] } ?? nans
        return bucket.contains { Value.transformEquals($0, v) }
    }

    /// Adds `v`.
    mutating func insert(_ v: Value) {
        if let k = Self.key(v) { buckets[k, default: []].append(v) } else { nans.append(v) }
    }

    /// Numbers hash as doubles: an integer equals a double exactly when the double is its value,
    /// which then converts to the same double (`equalityHash` keeps integers apart from doubles
    /// past 9.2e18, which compare equal to them). Other kinds use `equalityHash`.
    private static func key(_ v: Value) -> Int? {
        switch v {
        case .integer(let i): return Double(i).hashValue
        case .double(let d): return d.isNaN ? nil : d.hashValue
        default: return v.equalityHash
        }
    }
}
