/// A character class of a rules regular expression (`[a-z]`, `\d`, `\pL`, `[^[:alpha:]]`, a
/// case-folded literal, `.`), matched against one Unicode scalar. Immutable once built.
///
/// Literal scalars, ranges and the ASCII Perl and POSIX classes become one sorted list of ranges;
/// Unicode general categories and scripts stay predicates (their ranges would take a scan of all
/// of Unicode to build). Answers for ASCII are precomputed into a bitmap.
public struct RegexCharClass: Sendable {
    /// A Unicode class (`\p{Lu}`, `\p{Greek}`, `\PL`), kept as a test rather than ranges.
    struct Predicate: Sendable {
        /// What the predicate tests.
        enum Kind: Sendable {
            /// Any of the general categories in the mask (see `RegexUnicodeClasses.bit`).
            case categories(UInt32)
            /// A script's code points, sorted ranges.
            case ranges([ClosedRange<UInt32>])
        }
        /// The test.
        var kind: Kind
        /// `\P{...}` or `\p{^...}`.
        var negated: Bool
        /// Under `(?i)`: a scalar is in the class when any scalar of its case orbit is.
        var fold: Bool

        /// Whether `c` passes (folding and negation applied).
        func contains(_ c: UInt32) -> Bool {
            var hit = base(c)
            if !hit, fold, let orbit = RegexCaseFolding.orbit(c) { hit = orbit.contains(where: base) }
            return hit != negated
        }

        /// The test alone.
        func base(_ c: UInt32) -> Bool {
            switch kind {
            case .categories(let mask):
                guard let s = Unicode.Scalar(c) else { return false }
                return mask & RegexUnicodeClasses.bit(s.properties.generalCategory) != 0
            case .ranges(let r): return RegexCharClass.contains(r, c)
            }
        }
    }

    /// Sorted, disjoint, non-adjacent ranges.
    let ranges: [ClosedRange<UInt32>]
    /// Unicode classes (any of them admits a scalar).
    let predicates: [Predicate]
    /// `[^...]`: the class matches what the rest does not.
    let negated: Bool
    /// The answer for each ASCII scalar (bit `c` of `ascii.0` for c < 64, of `ascii.1` below 128).
    let ascii: (UInt64, UInt64)

    /// A class of `ranges` (in any order) and `predicates`, negated or not.
    init(ranges: [ClosedRange<UInt32>], predicates: [Predicate] = [], negated: Bool = false) {
        self.ranges = Self.normalized(ranges)
        self.predicates = predicates
        self.negated = negated
        var bits: (UInt64, UInt64) = (0, 0)
        func set(_ c: UInt32) {
            if c < 64 { bits.0 |= 1 << UInt64(c) } else { bits.1 |= 1 << UInt64(c - 64) }
        }
        for r in self.ranges where r.lowerBound < 128 {
            for c in r.lowerBound...min(r.upperBound, 127) { set(c) }
        }
        if !predicates.isEmpty {
            for c in UInt32(0)..<128 where predicates.contains(where: { $0.contains(c) }) { set(c) }
        }
        ascii = negated ? (~bits.0, ~bits.1) : bits
    }

    /// True when scalar value `c` is in the class.
    public func contains(_ c: UInt32) -> Bool {
        if c < 64 { return ascii.0 & (1 << UInt64(c)) != 0 }
        if c < 128 { return ascii.1 & (1 << UInt64(c - 64)) != 0 }
        return Self.slowContains(ranges, predicates, negated, c)
    }

    /// `contains` without the ASCII bitmap.
    static func slowContains(_ ranges: [ClosedRange<UInt32>], _ predicates: [Predicate], _ negated: Bool, _ c: UInt32) -> Bool {
        var hit = contains(ranges, c)
        if !hit { hit = predicates.contains { $0.contains(c) } }
        return hit != negated
    }

    /// Binary search of sorted disjoint ranges.
    static func contains(_ ranges: [ClosedRange<UInt32>], _ c: UInt32) -> Bool {
        var lo = 0, hi = ranges.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if ranges[mid].upperBound < c { lo = mid + 1 } else if ranges[mid].lowerBound > c { hi = mid } else { return true }
        }
        return false
    }

    /// Sorted, merged (overlapping and adjacent ranges joined).
    static func normalized(_ ranges: [ClosedRange<UInt32>]) -> [ClosedRange<UInt32>] {
        let sorted = ranges.sorted { $0.lowerBound < $1.lowerBound }
        var out: [ClosedRange<UInt32>] = []
        for r in sorted {
            if let last = out.last, r.lowerBound <= last.upperBound &+ 1, last.upperBound != UInt32.max {
                out[out.count - 1] = last.lowerBound...max(last.upperBound, r.upperBound)
            } else {
                out.append(r)
            }
        }
        return out
    }

    /// Every scalar (0...0x10FFFF) not in `ranges` (normalized).
    static func complement(_ ranges: [ClosedRange<UInt32>]) -> [ClosedRange<UInt32>] {
        var out: [ClosedRange<UInt32>] = []
        var next: UInt32 = 0
        for r in normalized(ranges) {
            if r.lowerBound > next { out.append(next...(r.lowerBound - 1)) }
            next = r.upperBound + 1
        }
        if next <= 0x10FFFF { out.append(next...0x10FFFF) }
        return out
    }

    /// `ranges` plus the case orbit of every scalar in them (RE2 folds class contents under
    /// `(?i)`). `work` counts the folding scalars looked at, which the parser bounds.
    static func caseClosed(_ ranges: [ClosedRange<UInt32>], work: inout Int) -> [ClosedRange<UInt32>] {
        let base = normalized(ranges)
        var out = base
        let (folding, orbits) = RegexCaseFolding.table
        for r in base {
            var k = RegexCaseFolding.lowerBound(r.lowerBound)
            while k < folding.count, folding[k] <= r.upperBound {
                for m in orbits[k] where !r.contains(m) && !contains(base, m) { out.append(m...m) }
                k += 1
                work += 1
            }
        }
        return out.count == base.count ? base : normalized(out)
    }
}
