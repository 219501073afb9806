/// Turns rules source into tokens on demand. The parser can also read raw path text
/// (`match /a/{b}` and `/databases/$(db)/documents` literals) from the current position.
struct Lexer {
    let bytes: [UInt8]
    let file: String
    var pos = 0
    var line = 1
    var lineStart = 0

    init(_ text: String, file: String) {
        bytes = Array(text.utf8)
        self.file = file
    }

    var location: SourceLocation { SourceLocation(file: file, line: line, column: pos - lineStart + 1) }

    func peekByte(_ k: Int = 0) -> UInt8? { pos + k < bytes.count ? bytes[pos + k] : nil }

    mutating func advance() {
        if bytes[pos] == 10 {
            line += 1
            lineStart = pos + 1
        }
        pos += 1
    }

    /// Skips whitespace and `//` and `/* */` comments.
    mutating func skipTrivia() {
        while let c = peekByte() {
            if c == 32 || c == 9 || c == 10 || c == 13 {
                advance()
                continue
            }
            if c == 47, peekByte(1) == 47 {
                while let d = peekByte(), d != 10 {
                    _ = d
                    advance()
                }
                continue
            }
            if c == 47, peekByte(1) == 42 {
                advance()
                advance()
                while pos < bytes.count, !(bytes[pos] == 42 && peekByte(1) == 47) { advance() }
                if pos < bytes.count {
                    advance()
                    advance()
                }
                continue
            }
            return
        }
    }

    static func isIdentStart(_ c: UInt8) -> Bool { (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 95 }
    static func isIdentPart(_ c: UInt8) -> Bool { isIdentStart(c) || (c >= 48 && c <= 57) }

    /// The next token.
    mutating func next() throws(LexError) -> Token {
        skipTrivia()
        let start = pos, l = line, col = pos - lineStart + 1
        func tok(_ k: Token.Kind) -> Token { Token(kind: k, offset: start, line: l, column: col) }
        guard let c = peekByte() else { return tok(.end) }
        if c == 98, let q = peekByte(1), q == 39 || q == 34 {  // b'...'
            advance()
            let s = try readString()
            return tok(.bytes(s))
        }
        if Self.isIdentStart(c) {
            while let d = peekByte(), Self.isIdentPart(d) { advance() }
            return tok(.identifier(String(decoding: bytes[start..<pos], as: UTF8.self)))
        }
        if c >= 48 && c <= 57 || (c == 46 && (peekByte(1).map { $0 >= 48 && $0 <= 57 } ?? false)) {
            return tok(try readNumber())
        }
        if c == 39 || c == 34 {
            let s = try readString()
            guard let str = String(validating: s, as: UTF8.self) else { throw LexError(message: "string is not valid UTF-8", location: location) }
            return tok(.string(str))
        }
        let two = pos + 1 < bytes.count ? String(decoding: bytes[pos...(pos + 1)], as: UTF8.self) : ""
        if ["&&", "||", "==", "!=", "<=", ">=", "$("].contains(two) {
            advance()
            advance()
            return tok(.symbol(two))
        }
        let one = String(UnicodeScalar(c))
        if "{}()[],;:.?=<>+-*/%!".contains(one) {
            advance()
            return tok(.symbol(one))
        }
        throw LexError(message: "unexpected character '\(one)'", location: location)
    }

    mutating func readNumber() throws(LexError) -> Token.Kind {
        let start = pos
        var isFloat = false
        while let d = peekByte(), d >= 48 && d <= 57 { advance() }
        if peekByte() == 46, let n = peekByte(1), n >= 48 && n <= 57 {
            isFloat = true
            advance()
            while let d = peekByte(), d >= 48 && d <= 57 { advance() }
        }
        if let e = peekByte(), e == 101 || e == 69 {
            isFloat = true
            advance()
            if let s = peekByte(), s == 43 || s == 45 { advance() }
            while let d = peekByte(), d >= 48 && d <= 57 { advance() }
        }
        let text = String(decoding: bytes[start..<pos], as: UTF8.self)
        if isFloat {
            guard let d = Double(text) else { throw LexError(message: "invalid number '\(text)'", location: location) }
            return .float(d)
        }
        guard let i = Int64(text) else { throw LexError(message: "integer '\(text)' does not fit in 64 bits", location: location) }
        return .int(i)
    }

    mutating func readString() throws(LexError) -> [UInt8] {
        let startLoc = location
        switch Self.decodeString(bytes, at: pos) {
        case .success(let d):
            pos = d.end  // a literal never spans lines
            return d.bytes
        case .failure(let f):
            guard let offset = f.offset else { throw LexError(message: f.message, location: startLoc) }
            throw LexError(message: f.message, location: SourceLocation(file: file, line: line, column: offset - lineStart + 1))
        }
    }

    /// A decoded string literal: its bytes, the offset after its closing quote, and for each
    /// decoded byte the source offset of the character or escape it comes from (so that a
    /// problem inside the literal, such as a bad regular expression, can be shown where it is).
    struct DecodedString {
        var bytes: [UInt8]
        var end: Int
        var origins: [Int]
    }

    /// Why a literal does not decode: the message, and where (nil: at the opening quote).
    struct StringFailure: Error {
        var message: String
        var offset: Int?
    }

    /// Decodes the string literal whose opening quote is at `start` in `bytes`. Escapes, as
    /// production's rules compiler takes them (checked against Google's emulator): `\b \f \n \r
    /// \t \\ \' \"`, octal `\ooo` (three digits), `\xHH`, `\uHHHH`; any other (`\d`, `\a`, `\0`,
    /// `\U...`) is refused with its position, so a regex written with one backslash fails at load
    /// here as it does when deployed.
    static func decodeString(_ bytes: [UInt8], at start: Int) -> Result<DecodedString, StringFailure> {
        let quote = bytes[start]
        var k = start + 1
        var out: [UInt8] = []
        var origins: [Int] = []
        func peek() -> UInt8? { k < bytes.count ? bytes[k] : nil }
        while let c = peek() {
            if c == quote { return .success(DecodedString(bytes: out, end: k + 1, origins: origins)) }
            if c == 10 { break }
            let from = k
            k += 1
            guard c == 92 else {
                out.append(c)
                origins.append(from)
                continue
            }
            guard let e = peek() else { break }
            k += 1
            var decoded: [UInt8]
            switch e {
            case 110: decoded = [10]
            case 116: decoded = [9]
            case 114: decoded = [13]
            case 98: decoded = [8]
            case 102: decoded = [12]
            case 92, 39, 34: decoded = [e]
            case 48...55:
                var v = Int(e - 48)
                for _ in 0..<2 {
                    guard let d = peek(), d >= 48 && d <= 55 else {
                        return .failure(StringFailure(message: "invalid octal escape: three digits 0-7 expected", offset: from))
                    }
                    v = v * 8 + Int(d - 48)
                    k += 1
                }
                decoded = [UInt8(truncatingIfNeeded: v)]
            case 120:
                var v = 0
                for _ in 0..<2 {
                    guard let d = peek(), let h = hex(d) else { return .failure(StringFailure(message: "invalid \\x escape", offset: k)) }
                    v = v * 16 + h
                    k += 1
                }
                decoded = [UInt8(v)]
            case 117:
                var v: UInt32 = 0
                for _ in 0..<4 {
                    guard let d = peek(), let h = hex(d) else { return .failure(StringFailure(message: "invalid \\u escape", offset: k)) }
                    v = v * 16 + UInt32(h)
                    k += 1
                }
                guard let u = Unicode.Scalar(v) else { return .failure(StringFailure(message: "invalid \\u escape", offset: k)) }
                decoded = Array(String(Character(u)).utf8)
            default:
                let shown = e < 0x80 && e >= 0x20 ? String(UnicodeScalar(e)) : "\\u{\(String(e, radix: 16))}"
                return .failure(
                    StringFailure(
                        message: "invalid escape sequence '\\\(shown)' (a regular expression needs its backslash doubled: '\\\\\(shown)')",
                        offset: from))
            }
            out += decoded
            origins += Array(repeating: from, count: decoded.count)
        }
        return .failure(StringFailure(message: "unterminated string", offset: nil))
    }

    static func hex(_ c: UInt8) -> Int? {
        switch c {
        case 48...57: return Int(c - 48)
        case 97...102: return Int(c - 87)
        case 65...70: return Int(c - 55)
        default: return nil
        }
    }

    /// Reads one raw path segment's text (letters, digits and `_-.~%@:()`). A `)` ends the
    /// segment unless the segment opened a `(` (as in `(default)`).
    mutating func readPathText() -> String {
        let start = pos
        var open = 0
        while let c = peekByte(), Self.isIdentPart(c) || "-.~%@:()".utf8.contains(c) {
            if c == 40 { open += 1 }
            if c == 41 {
                if open == 0 { break }
                open -= 1
            }
            advance()
        }
        return String(decoding: bytes[start..<pos], as: UTF8.self)
    }
}

/// A lexical error.
struct LexError: Error {
    var message: String
    var location: SourceLocation
}
