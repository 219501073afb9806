import EmulatorCore

/// A subscription filter in Pub/Sub's attribute filter language, parsed once when the
/// subscription is created:
///
///     attributes.KEY = "value"     attributes.KEY != "value"     attributes:KEY
///     hasPrefix(attributes.KEY, "prefix")     NOT x     -x     (x)     x AND y     x OR y
///
/// Keys are identifiers (`[A-Za-z_][A-Za-z0-9_-]*`) or quoted strings; AND and OR may not be mixed
/// without parentheses, and a filter is at most 256 bytes, as production requires. Messages that
/// do not match are acknowledged on the subscription's behalf and never delivered. Immutable.
public indirect enum PubSubFilter: Sendable, Equatable {
    /// `attributes.k = "v"`.
    case equals(String, String)
    /// `attributes:k`.
    case has(String)
    /// `hasPrefix(attributes.k, "p")`.
    case hasPrefix(String, String)
    /// `NOT x`, `-x`, and `attributes.k != "v"` (as `NOT attributes.k = "v"`).
    case not(PubSubFilter)
    /// `x AND y AND ...`.
    case and([PubSubFilter])
    /// `x OR y OR ...`.
    case or([PubSubFilter])

    /// The longest filter production accepts, in bytes.
    public static let maxLength = 256
    /// Nesting limit (parentheses and NOTs), far beyond what 256 bytes allow in practice.
    static let maxDepth = 64

    /// Whether a message with these attributes passes.
    public func matches(_ attributes: [String: String]) -> Bool {
        switch self {
        case .equals(let k, let v): return attributes[k] == v
        case .has(let k): return attributes[k] != nil
        case .hasPrefix(let k, let p): return attributes[k]?.hasPrefix(p) ?? false
        case .not(let f): return !f.matches(attributes)
        case .and(let fs): return fs.allSatisfy { $0.matches(attributes) }
        case .or(let fs): return fs.contains { $0.matches(attributes) }
        }
    }

    /// Parses `text`; an empty filter is nil (everything matches). Errors name the position.
    public static func parse(_ text: String) throws(EmulatorError) -> PubSubFilter? {
        if text.utf8.count > maxLength {
            throw EmulatorError.invalidArgument("Invalid filter: the filter is \(text.utf8.count) bytes long; the limit is \(maxLength).")
        }
        var p = Parser(bytes: Array(text.utf8))
        p.skipSpace()
        if p.atEnd { return nil }
        let f = try p.expression(depth: 0)
        p.skipSpace()
        guard p.atEnd else { throw p.error("unexpected '\(p.rest)'") }
        return f
    }

    /// A recursive-descent parser over the filter's bytes.
    struct Parser {
        let bytes: [UInt8]
        var i = 0

        var atEnd: Bool { i >= bytes.count }
        var rest: String { String(decoding: bytes[min(i, bytes.count)...].prefix(20), as: UTF8.self) }

        func error(_ what: String) -> EmulatorError {
            EmulatorError.invalidArgument("Invalid filter: \(what) at offset \(i).")
        }

        mutating func skipSpace() {
            while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D { i += 1 }
        }

        /// Consumes `word` when it stands here as a whole word.
        mutating func keyword(_ word: String) -> Bool {
            let w = Array(word.utf8)
            guard i + w.count <= bytes.count, Array(bytes[i..<i + w.count]) == w else { return false }
            let after = i + w.count
            if after < bytes.count, Self.isIdent(bytes[after]) { return false }
            i = after
            return true
        }

        mutating func literal(_ s: String) -> Bool {
            let w = Array(s.utf8)
            guard i + w.count <= bytes.count, Array(bytes[i..<i + w.count]) == w else { return false }
            i += w.count
            return true
        }

        static func isIdent(_ c: UInt8) -> Bool {
            (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) || c == 0x5F || c == 0x2D
        }

        mutating func expression(depth: Int) throws(EmulatorError) -> PubSubFilter {
            guard depth < PubSubFilter.maxDepth else { throw error("nesting deeper than \(PubSubFilter.maxDepth)") }
            var terms = [try term(depth: depth)]
            var op: String?
            while true {
                skipSpace()
                let save = i
                let this: String
                if keyword("AND") { this = "AND" } else if keyword("OR") { this = "OR" } else { break }
                if let op, op != this {
                    i = save
                    throw error("AND and OR cannot be mixed without parentheses")
                }
                op = this
                terms.append(try term(depth: depth))
            }
            if terms.count == 1 { return terms[0] }
            return op == "OR" ? .or(terms) : .and(terms)
        }

        mutating func term(depth: Int) throws(EmulatorError) -> PubSubFilter {
            skipSpace()
            if keyword("NOT") { return .not(try term(depth: depth + 1)) }
            if literal("-") { return .not(try term(depth: depth + 1)) }
            if literal("(") {
                let f = try expression(depth: depth + 1)
                skipSpace()
                guard literal(")") else { throw error("expected ')'") }
                return f
            }
            if keyword("hasPrefix") {
                skipSpace()
                guard literal("(") else { throw error("expected '(' after hasPrefix") }
                skipSpace()
                guard literal("attributes.") else { throw error("expected attributes.KEY in hasPrefix") }
                let key = try attributeKey()
                skipSpace()
                guard literal(",") else { throw error("expected ','") }
                skipSpace()
                let prefix = try string()
                skipSpace()
                guard literal(")") else { throw error("expected ')'") }
                return .hasPrefix(key, prefix)
            }
            guard keyword("attributes") else {
                throw error(atEnd ? "unexpected end of filter" : "expected attributes.KEY, attributes:KEY, hasPrefix, NOT or '(' but found '\(rest)'")
            }
            if literal(":") {
                return .has(try attributeKey())
            }
            guard literal(".") else { throw error("expected '.' or ':' after attributes") }
            let key = try attributeKey()
            skipSpace()
            if literal("!=") {
                skipSpace()
                return .not(.equals(key, try string()))
            }
            guard literal("=") else { throw error("expected '=' or '!='") }
            skipSpace()
            return .equals(key, try string())
        }

        mutating func attributeKey() throws(EmulatorError) -> String {
            if i < bytes.count, bytes[i] == 0x22 { return try string() }
            let start = i
            guard i < bytes.count, Self.isIdent(bytes[i]), bytes[i] != 0x2D, !(bytes[i] >= 0x30 && bytes[i] <= 0x39) else {
                throw error("expected an attribute key")
            }
            while i < bytes.count, Self.isIdent(bytes[i]) { i += 1 }
            return String(decoding: bytes[start..<i], as: UTF8.self)
        }

        /// A double-quoted string with backslash escapes.
        mutating func string() throws(EmulatorError) -> String {
            guard i < bytes.count, bytes[i] == 0x22 else { throw error("expected a double-quoted string") }
            i += 1
            var out: [UInt8] = []
            while i < bytes.count {
                let c = bytes[i]
                if c == 0x22 {
                    i += 1
                    return String(decoding: out, as: UTF8.self)
                }
                if c == 0x5C {
                    guard i + 1 < bytes.count else { break }
                    out.append(bytes[i + 1])
                    i += 2
                    continue
                }
                out.append(c)
                i += 1
            }
            throw error("unterminated string")
        }
    }
}
