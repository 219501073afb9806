extension RegexParser {
    /// `\...` outside brackets: assertions, `\Q...\E`, Perl and Unicode classes, escaped scalars.
    mutating func parseEscapeAtom(_ flags: Flags, into items: inout [RegexNode]) throws(RegexError) {
        guard let c = peek(1) else { throw RegexError(kind: .trailingBackslash, text: "", offset: i) }
        switch c {
        case "A", "z", "b", "B":
            i += 2
            let a: RegexAssertion = c == "A" ? .beginText : c == "z" ? .endText : c == "b" ? .wordBoundary : .notWordBoundary
            items.append(.assertion(a))
        case "Q":
            // Literal text up to `\E` or the end of the pattern.
            i += 2
            while let q = peek() {
                if q == "\\", peek(1) == "E" {
                    i += 2
                    return
                }
                items.append(literal(q.value, flags))
                i += 1
            }
        case "d", "D", "s", "S", "w", "W":
            i += 2
            let r = try perlClass(c, fold: flags.fold)
            items.append(.charClass(makeClass(ranges: r)))
        case "p", "P":
            let predicate = try parseUnicodeClass(flags)
            items.append(.charClass(makeClass(ranges: [], predicates: [predicate])))
        default:
            items.append(literal(try parseEscapeChar(), flags))
        }
    }

    /// The ranges of `\d \D \s \S \w \W`, folded under `(?i)` before a negation (as RE2 does:
    /// `(?i)\W` excludes KELVIN SIGN, which folds to `k`).
    mutating func perlClass(_ c: Unicode.Scalar, fold: Bool) throws(RegexError) -> [ClosedRange<UInt32>] {
        let lower = Character(c).lowercased().first ?? "d"
        var r = RegexUnicodeClasses.perl[lower] ?? []
        if fold { r = try folded(r) }
        return Character(c).isUppercase ? RegexCharClass.complement(r) : r
    }

    /// One escaped scalar at `\`: `\n \t \r \f \v \a`, octal `\0`, `\012`, `\123`, hex `\x41`,
    /// `\x{1F600}`, and escaped punctuation. Other letters and digits are invalid escapes, notably
    /// back-references `\1`-`\9` and `\C` (one byte), which RE2 refuses.
    mutating func parseEscapeChar() throws(RegexError) -> UInt32 {
        let start = i
        i += 1
        guard let c = peek() else { throw RegexError(kind: .trailingBackslash, text: "", offset: start) }
        i += 1
        func bad(_ hint: String? = nil) -> RegexError { RegexError(kind: .badEscape, text: slice(start, i), offset: start, hint: hint) }
        switch c {
        case "1"..."7", "0":
            // RE2: a lone `\1`-`\7` is a back-reference; followed by an octal digit, an octal escape.
            var v = c.value - 0x30
            if c != "0", !(peek().map(Self.isOctal) ?? false) { throw bad("back-references are not supported") }
            for _ in 0..<2 {
                guard let d = peek(), Self.isOctal(d) else { break }
                v = v * 8 + (d.value - 0x30)
                i += 1
            }
            return v
        case "8", "9": throw bad("back-references are not supported")
        case "x":
            var v: UInt32 = 0
            if peek() == "{" {
                i += 1
                var digits = 0
                while let d = peek(), let h = Self.hex(d) {
                    v = min(v * 16 + h, 0x11_0000)
                    digits += 1
                    i += 1
                }
                guard peek() == "}" else { throw bad() }
                i += 1
                // Surrogates are accepted (by RE2 too) and never match.
                guard digits > 0, v <= 0x10FFFF else { throw bad() }
                return v
            }
            for _ in 0..<2 {
                guard let d = peek(), let h = Self.hex(d) else {
                    if peek() != nil { i += 1 }
                    throw bad()
                }
                v = v * 16 + h
                i += 1
            }
            return v
        case "a": return 7
        case "f": return 12
        case "n": return 10
        case "r": return 13
        case "t": return 9
        case "v": return 11
        default:
            // ASCII punctuation, and (as RE2/J has it) any non-ASCII character, stand for themselves.
            if !c.isASCII || (!c.properties.isAlphabetic && Self.digit(c) == nil) { return c.value }
            switch c {
            case "C": throw bad("\\C, one byte of UTF-8, is not supported")
            case "Z": throw bad("use \\z for the end of the text")
            case "k", "g": throw bad("back-references are not supported")
            default: throw bad()
            }
        }
    }

    /// `0`-`7`.
    static func isOctal(_ c: Unicode.Scalar) -> Bool { c.value >= 0x30 && c.value <= 0x37 }

    /// The value of a hexadecimal digit.
    static func hex(_ c: Unicode.Scalar) -> UInt32? {
        switch c.value {
        case 0x30...0x39: return c.value - 0x30
        case 0x41...0x46: return c.value - 0x37
        case 0x61...0x66: return c.value - 0x57
        default: return nil
        }
    }

    /// `\pL`, `\p{Greek}`, `\PL`, `\p{^Lu}` at `\`.
    mutating func parseUnicodeClass(_ flags: Flags) throws(RegexError) -> RegexCharClass.Predicate {
        let start = i
        var negated = p[i + 1] == "P"
        i += 2
        guard let c = peek() else { throw RegexError(kind: .badCharRange, text: slice(start, i), offset: start) }
        var name: String
        if c == "{" {
            guard let close = p[i...].firstIndex(of: "}") else {
                throw RegexError(kind: .badCharRange, text: slice(start, p.count), offset: start)
            }
            name = slice(i + 1, close)
            i = close + 1
        } else {
            name = String(c)
            i += 1
        }
        if name.hasPrefix("^") {
            negated.toggle()
            name.removeFirst()
        }
        guard let predicate = RegexUnicodeClasses.predicate(name, negated: negated, fold: flags.fold) else {
            throw RegexError(
                kind: .badCharRange, text: slice(start, i), offset: start,
                hint: "not a Unicode class this emulator knows: general categories but Cn, scripts of Unicode 13, Any")
        }
        return predicate
    }

    /// `[...]` and `[^...]`: scalars, ranges, escapes, `\d`-style and `\p` classes, `[:alpha:]`.
    /// `]` first is a literal, as is `-` where it cannot make a range.
    mutating func parseClass(_ flags: Flags) throws(RegexError) -> RegexCharClass {
        let start = i
        i += 1
        var negated = false
        if peek() == "^" {
            negated = true
            i += 1
        }
        var positive: [ClosedRange<UInt32>] = []  // folded under (?i) at the end
        var complemented: [ClosedRange<UInt32>] = []  // negated classes, already folded
        var predicates: [RegexCharClass.Predicate] = []
        var first = true
        while true {
            guard let c = peek() else { throw RegexError(kind: .missingBracket, text: slice(start, p.count), offset: start) }
            if c == "]", !first {
                i += 1
                break
            }
            first = false
            if c == "[", peek(1) == ":", let posix = try parsePosixClass(flags) {
                if posix.negated { complemented += posix.ranges } else { positive += posix.ranges }
                continue
            }
            if c == "\\", let e = peek(1) {
                if "dDsSwW".unicodeScalars.contains(e) {
                    i += 2
                    let r = try perlClass(e, fold: flags.fold)
                    if Character(e).isUppercase { complemented += r } else { positive += r }
                    continue
                }
                if e == "p" || e == "P" {
                    predicates.append(try parseUnicodeClass(flags))
                    continue
                }
            }
            let loStart = i
            let lo = try parseClassChar()
            if peek() == "-", let n = peek(1), n != "]" {
                i += 1
                if n == "\\", let e = peek(1), "dDsSwWpP".unicodeScalars.contains(e) {
                    throw RegexError(kind: .badCharRange, text: slice(loStart, i + 2), offset: loStart)
                }
                let hi = try parseClassChar()
                guard lo <= hi else { throw RegexError(kind: .badCharRange, text: slice(loStart, i), offset: loStart) }
                positive.append(lo...hi)
            } else {
                positive.append(lo...lo)
            }
        }
        if flags.fold { positive = try folded(positive) }
        return makeClass(ranges: positive + complemented, predicates: predicates, negated: negated)
    }

    /// One scalar inside brackets, escaped or not.
    mutating func parseClassChar() throws(RegexError) -> UInt32 {
        guard let c = peek() else { throw RegexError(kind: .missingBracket, text: text, offset: i) }
        if c == "\\" { return try parseEscapeChar() }
        i += 1
        return c.value
    }

    /// `[:name:]` or `[:^name:]` at `[`; nil (nothing consumed) when there is no `:]` to close it,
    /// and the `[` is a literal.
    mutating func parsePosixClass(_ flags: Flags) throws(RegexError) -> (ranges: [ClosedRange<UInt32>], negated: Bool)? {
        var k = i + 2
        while k + 1 < p.count, !(p[k] == ":" && p[k + 1] == "]") { k += 1 }
        guard k + 1 < p.count else { return nil }
        var name = slice(i + 2, k)
        let start = i
        i = k + 2
        let negated = name.hasPrefix("^")
        if negated { name.removeFirst() }
        guard var ranges = RegexUnicodeClasses.posix[name] else {
            throw RegexError(kind: .badCharRange, text: slice(start, i), offset: start)
        }
        if flags.fold { ranges = try folded(ranges) }
        return (negated ? RegexCharClass.complement(ranges) : ranges, negated)
    }
}
