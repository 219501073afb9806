/// A syntax error.
struct ParseError: Error {
    var message: String
    var location: SourceLocation
}

/// Hand-written recursive-descent parser for the Firestore rules language.
/// Precedence, high to low: postfix (`a.b a[i] a()`), unary (`! -`), `* / %`, `+ -`,
/// `< <= > >=`, `in`, `is`, `== !=`, `&&`, `||`, `?:`.
struct Parser {
    /// How deeply brackets, parentheses, calls, ternaries and unary operators may nest. Each level
    /// costs about twenty parser frames, so this bounds the parser's own stack use.
    static let maxNesting = 64
    /// How deep an expression tree may be, counting every operator of a chain (`a && b && c` is 3
    /// deep). The checker, evaluator and coverage walk recurse over the tree, so this bounds theirs.
    static let maxExpressionDepth = 256
    /// How deeply `match` blocks may nest (Firebase's limit; enforced while parsing, so that a
    /// hostile file cannot recurse the parser itself away).
    static let maxMatchNesting = 10

    var lexer: Lexer
    var current: Token
    var nextId: Int
    var version = 1
    /// Current recursion depth of expression parsing (see `maxNesting`).
    var nesting = 0
    /// Current depth of `match` blocks.
    var matchNesting = 0

    /// The source, shared by every node's `text`.
    let source: SourceBytes

    init(text: String, file: String, firstId: Int) throws {
        lexer = Lexer(text, file: file)
        source = SourceBytes(lexer.bytes)
        nextId = firstId
        current = Token(kind: .end, offset: 0, line: 1, column: 1)
        current = try lex()
    }

    mutating func lex() throws -> Token {
        do { return try lexer.next() } catch { throw ParseError(message: error.message, location: error.location) }
    }

    var location: SourceLocation { SourceLocation(file: lexer.file, line: current.line, column: current.column) }

    mutating func advance() throws { current = try lex() }

    mutating func expect(_ symbol: String) throws {
        guard current.isSymbol(symbol) else { throw ParseError(message: "expected '\(symbol)' but found '\(current.text)'", location: location) }
        try advance()
    }

    mutating func expectWord(_ w: String) throws {
        guard current.isWord(w) else { throw ParseError(message: "expected '\(w)' but found '\(current.text)'", location: location) }
        try advance()
    }

    mutating func identifier(_ what: String) throws -> String {
        guard case .identifier(let name) = current.kind else {
            throw ParseError(message: "expected \(what) but found '\(current.text)'", location: location)
        }
        try advance()
        return name
    }

    /// From `start` to the end of the last consumed token.
    func range(from start: Int) -> Range<Int> { start..<min(lexer.bytes.count, max(start, previousEnd)) }

    func text(from start: Int) -> String { source.text(range(from: start)) }

    /// End offset of the last consumed token (the start of the current one, minus trivia).
    var previousEnd: Int {
        var e = current.offset
        while e > 0, [32, 9, 10, 13].contains(lexer.bytes[e - 1]) { e -= 1 }
        return e
    }

    mutating func node(_ kind: Expr.Kind, _ loc: SourceLocation, _ start: Int) throws -> Expr {
        nextId += 1
        let e = Expr(id: nextId, location: loc, kind: kind, source: source, range: range(from: start))
        guard e.depth <= Self.maxExpressionDepth else {
            throw ParseError(
                message: "expression is more than \(Self.maxExpressionDepth) levels deep; split long chains of operators into functions",
                location: loc)
        }
        return e
    }

    /// Enters one level of expression nesting; the caller leaves with `nesting -= 1`.
    mutating func enterNesting() throws {
        nesting += 1
        guard nesting <= Self.maxNesting else {
            throw ParseError(message: "expression is nested more than \(Self.maxNesting) levels deep", location: location)
        }
    }

    // MARK: - File structure

    mutating func parseFile() throws -> RulesAST {
        if current.isWord("rules_version") {
            try advance()
            try expect("=")
            guard case .string(let v) = current.kind, v == "1" || v == "2" else {
                throw ParseError(message: "rules_version must be '1' or '2'", location: location)
            }
            version = v == "2" ? 2 : 1
            try advance()
            try expect(";")
        }
        try expectWord("service")
        var service = try identifier("a service name")
        while current.isSymbol(".") {
            try advance()
            service += "." + (try identifier("a service name"))
        }
        try expect("{")
        var functions: [FunctionDecl] = []
        var matches: [MatchBlock] = []
        while !current.isSymbol("}") {
            if current.isWord("function") {
                functions.append(try parseFunction())
            } else if current.isWord("match") {
                matches.append(try parseMatch())
            } else {
                throw ParseError(message: "expected 'match' or 'function' but found '\(current.text)'", location: location)
            }
        }
        try advance()
        guard case .end = current.kind else { throw ParseError(message: "unexpected '\(current.text)' after the service block", location: location) }
        return RulesAST(version: version, service: service, functions: functions, matches: matches)
    }

    mutating func parseMatch() throws -> MatchBlock {
        let loc = location
        matchNesting += 1
        defer { matchNesting -= 1 }
        guard matchNesting <= Self.maxMatchNesting else {
            throw ParseError(message: "match blocks are nested deeper than \(Self.maxMatchNesting) levels", location: loc)
        }
        // `current` is `match`; the lexer sits right after it, so the raw path can be read.
        var segments: [MatchSegment] = []
        lexer.skipTrivia()
        guard lexer.peekByte() == 47 else { throw ParseError(message: "a match path must start with '/'", location: lexer.location) }
        while lexer.peekByte() == 47 {
            lexer.advance()
            if lexer.peekByte() == 123 {
                lexer.advance()
                let start = lexer.pos
                while let c = lexer.peekByte(), c != 125, c != 10 {
                    _ = c
                    lexer.advance()
                }
                guard lexer.peekByte() == 125 else { throw ParseError(message: "unterminated '{' in match path", location: lexer.location) }
                let inner = String(decoding: lexer.bytes[start..<lexer.pos], as: UTF8.self)
                lexer.advance()
                if inner.hasSuffix("=**") {
                    let name = String(inner.dropLast(3))
                    guard isIdentifier(name) else { throw ParseError(message: "invalid wildcard name '\(name)'", location: lexer.location) }
                    if segments.contains(where: { if case .recursive = $0 { true } else { false } }) {
                        throw ParseError(message: "a match path may contain at most one {name=**} wildcard", location: lexer.location)
                    }
                    segments.append(.recursive(name))
                } else {
                    guard isIdentifier(inner) else { throw ParseError(message: "invalid wildcard '{\(inner)}'", location: lexer.location) }
                    segments.append(.variable(inner))
                }
            } else {
                let t = lexer.readPathText()
                guard !t.isEmpty else { throw ParseError(message: "empty segment in match path", location: lexer.location) }
                segments.append(.literal(t))
            }
        }
        if version == 1, let i = segments.firstIndex(where: { if case .recursive = $0 { true } else { false } }), i != segments.count - 1 {
            throw ParseError(message: "in rules_version 1 a {name=**} wildcard must be the last segment", location: loc)
        }
        current = try lex()
        try expect("{")
        var block = MatchBlock(path: segments, allows: [], functions: [], children: [], location: loc)
        while !current.isSymbol("}") {
            if current.isWord("match") {
                block.children.append(try parseMatch())
            } else if current.isWord("allow") {
                block.allows.append(try parseAllow())
            } else if current.isWord("function") {
                block.functions.append(try parseFunction())
            } else {
                throw ParseError(message: "expected 'match', 'allow' or 'function' but found '\(current.text)'", location: location)
            }
        }
        try advance()
        return block
    }

    func isIdentifier(_ s: String) -> Bool {
        guard let f = s.utf8.first, Lexer.isIdentStart(f) else { return false }
        return s.utf8.allSatisfy(Lexer.isIdentPart)
    }

    static let methods: Set<String> = ["read", "write", "get", "list", "create", "update", "delete"]

    mutating func parseAllow() throws -> AllowStatement {
        let loc = location, start = current.offset
        try advance()
        var methods: [String] = []
        repeat {
            if current.isSymbol(",") { try advance() }
            let m = try identifier("a method (read, write, get, list, create, update, delete)")
            guard Self.methods.contains(m) else {
                throw ParseError(message: "unknown method '\(m)' (expected read, write, get, list, create, update or delete)", location: loc)
            }
            methods.append(m)
        } while current.isSymbol(",")
        var condition: Expr?
        if current.isSymbol(":") {
            try advance()
            try expectWord("if")
            condition = try parseExpr()
        }
        let text = self.text(from: start)
        try expect(";")
        return AllowStatement(methods: methods, condition: condition, location: loc, text: text)
    }

    mutating func parseFunction() throws -> FunctionDecl {
        let loc = location
        try advance()
        let name = try identifier("a function name")
        try expect("(")
        var params: [String] = []
        while !current.isSymbol(")") {
            params.append(try identifier("a parameter name"))
            if current.isSymbol(",") { try advance() } else { break }
        }
        try expect(")")
        try expect("{")
        var lets: [(String, Expr)] = []
        while current.isWord("let") {
            let letLoc = location
            guard version == 2 else { throw ParseError(message: "'let' bindings need rules_version = '2'", location: letLoc) }
            try advance()
            let n = try identifier("a variable name")
            try expect("=")
            lets.append((n, try parseExpr()))
            try expect(";")
        }
        try expectWord("return")
        let body = try parseExpr()
        if current.isSymbol(";") { try advance() }
        try expect("}")
        return FunctionDecl(name: name, params: params, lets: lets, body: body, location: loc)
    }

    // MARK: - Expressions

    mutating func parseExpr() throws -> Expr {
        try enterNesting()
        defer { nesting -= 1 }
        let loc = location, start = current.offset
        let cond = try parseOr()
        guard current.isSymbol("?") else { return cond }
        try advance()
        let a = try parseExpr()
        try expect(":")
        let b = try parseExpr()
        return try node(.ternary(cond, a, b), loc, start)
    }

    mutating func binaryLevel(_ ops: [String], _ next: (inout Parser) throws -> Expr) throws -> Expr {
        let loc = location, start = current.offset
        var lhs = try next(&self)
        while case .symbol(let s) = current.kind, ops.contains(s) {
            try advance()
            let rhs = try next(&self)
            guard let op = Expr.BinaryOp(rawValue: s) else { throw ParseError(message: "unknown operator '\(s)'", location: loc) }
            lhs = try node(.binary(op, lhs, rhs), loc, start)
        }
        return lhs
    }

    mutating func parseOr() throws -> Expr { try binaryLevel(["||"]) { try $0.parseAnd() } }
    mutating func parseAnd() throws -> Expr { try binaryLevel(["&&"]) { try $0.parseEquality() } }
    mutating func parseEquality() throws -> Expr { try binaryLevel(["==", "!="]) { try $0.parseIs() } }

    mutating func parseIs() throws -> Expr {
        let loc = location, start = current.offset
        var e = try parseIn()
        while current.isWord("is") {
            try advance()
            var type = try identifier("a type name")
            while current.isSymbol(".") {
                try advance()
                type += "." + (try identifier("a type name"))
            }
            e = try node(.isType(e, type), loc, start)
        }
        return e
    }

    mutating func parseIn() throws -> Expr {
        let loc = location, start = current.offset
        var e = try parseRelational()
        while current.isWord("in") {
            try advance()
            let rhs = try parseRelational()
            e = try node(.binary(.in, e, rhs), loc, start)
        }
        return e
    }

    mutating func parseRelational() throws -> Expr { try binaryLevel(["<", "<=", ">", ">="]) { try $0.parseAdditive() } }
    mutating func parseAdditive() throws -> Expr { try binaryLevel(["+", "-"]) { try $0.parseMultiplicative() } }
    mutating func parseMultiplicative() throws -> Expr { try binaryLevel(["*", "/", "%"]) { try $0.parseUnary() } }

    mutating func parseUnary() throws -> Expr {
        let loc = location, start = current.offset
        if current.isSymbol("!") {
            try advance()
            try enterNesting()
            defer { nesting -= 1 }
            return try node(.not(try parseUnary()), loc, start)
        }
        if current.isSymbol("-") {
            try advance()
            if case .int(let i) = current.kind {
                try advance()
                return try node(.int(-i), loc, start)
            }
            if case .float(let d) = current.kind {
                try advance()
                return try node(.float(-d), loc, start)
            }
            try enterNesting()
            defer { nesting -= 1 }
            return try node(.negate(try parseUnary()), loc, start)
        }
        return try parsePostfix()
    }

    mutating func parsePostfix() throws -> Expr {
        let loc = location, start = current.offset
        var e = try parsePrimary()
        while true {
            if current.isSymbol(".") {
                try advance()
                let name = try identifier("a field or method name")
                e = try node(.member(e, name), loc, start)
            } else if current.isSymbol("[") {
                try advance()
                if current.isSymbol(":") {
                    try advance()
                    let hi = current.isSymbol("]") ? nil : try parseExpr()
                    try expect("]")
                    e = try node(.slice(e, nil, hi), loc, start)
                    continue
                }
                let i = try parseExpr()
                if current.isSymbol(":") {
                    try advance()
                    let hi = current.isSymbol("]") ? nil : try parseExpr()
                    try expect("]")
                    e = try node(.slice(e, i, hi), loc, start)
                } else {
                    try expect("]")
                    e = try node(.index(e, i), loc, start)
                }
            } else if current.isSymbol("(") {
                try advance()
                var args: [Expr] = []
                while !current.isSymbol(")") {
                    args.append(try parseExpr())
                    if current.isSymbol(",") { try advance() } else { break }
                }
                try expect(")")
                e = try node(.call(e, args), loc, start)
            } else {
                return e
            }
        }
    }

    mutating func parsePrimary() throws -> Expr {
        let loc = location, start = current.offset
        switch current.kind {
        case .int(let i):
            try advance()
            return try node(.int(i), loc, start)
        case .float(let d):
            try advance()
            return try node(.float(d), loc, start)
        case .string(let s):
            try advance()
            return try node(.string(s), loc, start)
        case .bytes(let b):
            try advance()
            return try node(.bytes(b), loc, start)
        case .identifier(let name):
            try advance()
            switch name {
            case "true": return try node(.bool(true), loc, start)
            case "false": return try node(.bool(false), loc, start)
            case "null": return try node(.null, loc, start)
            default: return try node(.identifier(name), loc, start)
            }
        case .symbol("("):
            try advance()
            let e = try parseExpr()
            try expect(")")
            return e
        case .symbol("["):
            try advance()
            var items: [Expr] = []
            while !current.isSymbol("]") {
                items.append(try parseExpr())
                if current.isSymbol(",") { try advance() } else { break }
            }
            try expect("]")
            return try node(.list(items), loc, start)
        case .symbol("{"):
            try advance()
            var entries: [(Expr, Expr)] = []
            while !current.isSymbol("}") {
                let k = try parseExpr()
                try expect(":")
                entries.append((k, try parseExpr()))
                if current.isSymbol(",") { try advance() } else { break }
            }
            try expect("}")
            return try node(.map(entries), loc, start)
        case .symbol("/"):
            return try parsePathLiteral(loc, start)
        default:
            throw ParseError(message: "expected an expression but found '\(current.text)'", location: loc)
        }
    }

    /// `/databases/$(database)/documents/users/$(request.auth.uid)`; `current` is the leading `/`.
    mutating func parsePathLiteral(_ loc: SourceLocation, _ start: Int) throws -> Expr {
        var parts: [Expr.PathPart] = []
        while true {
            if lexer.peekByte() == 36, lexer.peekByte(1) == 40 {
                lexer.advance()
                lexer.advance()
                current = try lex()
                parts.append(.interpolation(try parseExpr()))
                guard current.isSymbol(")") else { throw ParseError(message: "expected ')' to close '$(' in path", location: location) }
            } else {
                let t = lexer.readPathText()
                guard !t.isEmpty else { throw ParseError(message: "empty segment in path literal", location: lexer.location) }
                parts.append(.text(t))
            }
            guard lexer.peekByte() == 47 else { break }
            lexer.advance()
        }
        let endOffset = lexer.pos
        current = try lex()
        nextId += 1
        return Expr(id: nextId, location: loc, kind: .path(parts), source: source, range: start..<endOffset)
    }
}
