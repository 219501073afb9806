/// Simple case folding for `(?i)`, as RE2 applies it: two scalars match case-insensitively when
/// they are in the same orbit of Unicode's simple (one-to-one) case mappings, so `k`, `K` and
/// KELVIN SIGN (U+212A) match each other, as do `ſ`, `s` and `S`, and `ǅ`, `ǆ` and `Ǆ`.
///
/// The orbits come from the standard library's Unicode data (no ICU): every scalar whose case
/// mappings are single scalars is joined with them. RE2 takes its orbits from CaseFolding.txt's
/// common and simple foldings, which agree with this except for the Turkic dotted and dotless i:
/// U+0130 has no simple folding and U+0131 none at all, so both stay out (`(?i)i` matches `I`
/// only), as RE2 (and the Firestore emulator) have it. Built once, on first use; immutable.
enum RegexCaseFolding {
    /// Every scalar that has other cases, sorted, and at the same index its orbit (every member,
    /// itself included, sorted): flat arrays, as closing a class under folding walks them.
    static let table: (folding: [UInt32], orbits: [[UInt32]]) = {
        let map = build()
        let keys = map.keys.sorted()
        return (keys, keys.map { map[$0] ?? [] })
    }()

    /// The scalars that have an orbit, sorted (to close a character class under folding).
    static var folding: [UInt32] { table.folding }

    /// The index of the first folding scalar not below `c`.
    static func lowerBound(_ c: UInt32) -> Int {
        let keys = table.folding
        var lo = 0, hi = keys.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if keys[mid] < c { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The orbit of `c`, or nil when it has no other case.
    static func orbit(_ c: UInt32) -> [UInt32]? {
        let k = lowerBound(c)
        return k < table.folding.count && table.folding[k] == c ? table.orbits[k] : nil
    }

    /// Joins every scalar with its single-scalar lower, upper and title case mappings.
    static func build() -> [UInt32: [UInt32]] {
        var parent: [UInt32: UInt32] = [:]
        func find(_ x: UInt32) -> UInt32 {
            var r = x
            while let p = parent[r], p != r { r = p }
            return r
        }
        func union(_ a: UInt32, _ b: UInt32) {
            if parent[a] == nil { parent[a] = a }
            if parent[b] == nil { parent[b] = b }
            let ra = find(a), rb = find(b)
            if ra != rb { parent[max(ra, rb)] = min(ra, rb) }
        }
        let excluded: Set<UInt32> = [0x130, 0x131]
        // Cased letters live in the first two planes (Latin to Adlam); surrogates are not scalars.
        for v in UInt32(0)...0x1FFFF {
            guard !excluded.contains(v), let s = Unicode.Scalar(v), s.properties.changesWhenCaseMapped else { continue }
            let p = s.properties
            for mapped in [p.lowercaseMapping, p.uppercaseMapping, p.titlecaseMapping] {
                let scalars = mapped.unicodeScalars
                guard scalars.count == 1, let m = scalars.first?.value, m != v, !excluded.contains(m) else { continue }
                union(v, m)
            }
        }
        var groups: [UInt32: [UInt32]] = [:]
        for v in parent.keys { groups[find(v), default: []].append(v) }
        var out: [UInt32: [UInt32]] = [:]
        for members in groups.values where members.count > 1 {
            let sorted = members.sorted()
            for m in sorted { out[m] = sorted }
        }
        return out
    }
}
