/// The named classes of RE2's syntax: Perl (`\d \s \w`, ASCII only, as in RE2), POSIX
/// (`[:alpha:]`, ASCII), Unicode general categories (`\pL`, `\p{Lu}`, from the standard
/// library's data) and scripts (`\p{Greek}`, from `UnicodeScripts`), and `\p{Any}`.
enum RegexUnicodeClasses {
    /// `\d`, `\s`, `\w` (RE2's Perl classes are ASCII; `\s` has no vertical tab).
    static let perl: [Character: [ClosedRange<UInt32>]] = [
        "d": [0x30...0x39],
        "s": [0x09...0x0A, 0x0C...0x0D, 0x20...0x20],
        "w": [0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A],
    ]

    /// `[:name:]` inside brackets.
    static let posix: [String: [ClosedRange<UInt32>]] = [
        "alnum": [0x30...0x39, 0x41...0x5A, 0x61...0x7A],
        "alpha": [0x41...0x5A, 0x61...0x7A],
        "ascii": [0x00...0x7F],
        "blank": [0x09...0x09, 0x20...0x20],
        "cntrl": [0x00...0x1F, 0x7F...0x7F],
        "digit": [0x30...0x39],
        "graph": [0x21...0x7E],
        "lower": [0x61...0x7A],
        "print": [0x20...0x7E],
        "punct": [0x21...0x2F, 0x3A...0x40, 0x5B...0x60, 0x7B...0x7E],
        "space": [0x09...0x0D, 0x20...0x20],
        "upper": [0x41...0x5A],
        "word": [0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A],
        "xdigit": [0x30...0x39, 0x41...0x46, 0x61...0x66],
    ]

    /// A bit per general category, for masks.
    static func bit(_ c: Unicode.GeneralCategory) -> UInt32 {
        switch c {
        case .uppercaseLetter: 1 << 0
        case .lowercaseLetter: 1 << 1
        case .titlecaseLetter: 1 << 2
        case .modifierLetter: 1 << 3
        case .otherLetter: 1 << 4
        case .nonspacingMark: 1 << 5
        case .spacingMark: 1 << 6
        case .enclosingMark: 1 << 7
        case .decimalNumber: 1 << 8
        case .letterNumber: 1 << 9
        case .otherNumber: 1 << 10
        case .connectorPunctuation: 1 << 11
        case .dashPunctuation: 1 << 12
        case .openPunctuation: 1 << 13
        case .closePunctuation: 1 << 14
        case .initialPunctuation: 1 << 15
        case .finalPunctuation: 1 << 16
        case .otherPunctuation: 1 << 17
        case .mathSymbol: 1 << 18
        case .currencySymbol: 1 << 19
        case .modifierSymbol: 1 << 20
        case .otherSymbol: 1 << 21
        case .spaceSeparator: 1 << 22
        case .lineSeparator: 1 << 23
        case .paragraphSeparator: 1 << 24
        case .control: 1 << 25
        case .format: 1 << 26
        case .surrogate: 1 << 27
        case .privateUse: 1 << 28
        case .unassigned: 1 << 29
        @unknown default: 1 << 30
        }
    }

    /// The categories RE2 knows by name, as masks. RE2 has no `Cn` (unassigned), `LC` or `L&`,
    /// and its `C` is `Cc Cf Co Cs`.
    static let categories: [String: UInt32] = {
        let two: [String: Unicode.GeneralCategory] = [
            "Lu": .uppercaseLetter, "Ll": .lowercaseLetter, "Lt": .titlecaseLetter, "Lm": .modifierLetter, "Lo": .otherLetter,
            "Mn": .nonspacingMark, "Mc": .spacingMark, "Me": .enclosingMark,
            "Nd": .decimalNumber, "Nl": .letterNumber, "No": .otherNumber,
            "Pc": .connectorPunctuation, "Pd": .dashPunctuation, "Ps": .openPunctuation, "Pe": .closePunctuation,
            "Pi": .initialPunctuation, "Pf": .finalPunctuation, "Po": .otherPunctuation,
            "Sm": .mathSymbol, "Sc": .currencySymbol, "Sk": .modifierSymbol, "So": .otherSymbol,
            "Zs": .spaceSeparator, "Zl": .lineSeparator, "Zp": .paragraphSeparator,
            "Cc": .control, "Cf": .format, "Cs": .surrogate, "Co": .privateUse,
        ]
        var out: [String: UInt32] = [:]
        for (name, c) in two {
            out[name] = bit(c)
            out[String(name.prefix(1)), default: 0] |= bit(c)
        }
        return out
    }()

    /// Script name → sorted code point ranges, parsed from `UnicodeScripts.table` on first use.
    static let scripts: [String: [ClosedRange<UInt32>]] = UnicodeScripts.table.mapValues { text in
        text.split(separator: " ").compactMap { item -> ClosedRange<UInt32>? in
            let ends = item.split(separator: "-").compactMap { UInt32($0, radix: 16) }
            guard let lo = ends.first, let hi = ends.last, lo <= hi else { return nil }
            return lo...hi
        }
    }

    /// The predicate for `\p{name}` (or `\pN` with a one-letter name), or nil for an unknown name.
    static func predicate(_ name: String, negated: Bool, fold: Bool) -> RegexCharClass.Predicate? {
        if name == "Any" { return .init(kind: .ranges([0...0x10FFFF]), negated: negated, fold: false) }
        if let mask = categories[name] { return .init(kind: .categories(mask), negated: negated, fold: fold) }
        if let ranges = scripts[name] { return .init(kind: .ranges(ranges), negated: negated, fold: fold) }
        return nil
    }
}
