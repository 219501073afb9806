/// Load-time checks: unknown variables and functions, arity, recursion, production limits, and
/// regular expressions written as string literals (compiled here, refused as RE2 refuses them).
struct Checker {
    let source: SourceText
    var diagnostics: [Diagnostic] = []
    /// Literal patterns of `matches`, `replace` and `split`, compiled.
    var regexes: [String: RulesRegex] = [:]
    var declared: [String: FunctionDecl] = [:]
    var callGraph: [String: Set<String>] = [:]

    static let globals: Set<String> = ["request", "resource"]
    static let namespaceFunctions: [String: Set<String>] = [
        "math": ["abs", "ceil", "floor", "round", "sqrt", "pow", "isInfinite", "isNaN"],
        "hashing": ["crc32", "crc32c", "md5", "sha256"],
        "timestamp": ["date", "value"],
        "duration": ["value", "time", "abs"],
        "latlng": ["value"],
    ]

    /// The service the ruleset must declare (`cloud.firestore` or `firebase.storage`).
    let service: String
    /// The namespaces callable here: Storage rules add `firestore.get/exists`.
    let namespaces: [String: Set<String>]

    init(source: SourceText, service: String = RulesService.firestore) {
        self.source = source
        self.service = service
        var ns = Self.namespaceFunctions
        if service == RulesService.storage { ns["firestore"] = ["get", "exists"] }
        namespaces = ns
    }

    mutating func error(_ loc: SourceLocation, _ message: String) { diagnostics.append(source.diagnostic(loc, message)) }

    mutating func check(_ ast: RulesAST) {
        if ast.service != service {
            error(SourceLocation(file: source.name, line: 1, column: 1), "unsupported service '\(ast.service)' (expected \(service))")
        }
        var scope: [String: FunctionDecl] = [:]
        checkFunctions(ast.functions, vars: Self.globals, scope: &scope)
        for m in ast.matches { checkMatch(m, vars: Self.globals, functions: scope) }
        checkRecursion()
    }

    mutating func checkFunctions(_ fns: [FunctionDecl], vars: Set<String>, scope: inout [String: FunctionDecl]) {
        var here: Set<String> = []
        for f in fns {
            if !here.insert(f.name).inserted { error(f.location, "function '\(f.name)' is declared twice in the same scope") }
            scope[f.name] = f
            declared[f.name] = f
        }
        for f in fns {
            if f.params.count > 7 { error(f.location, "function '\(f.name)' has \(f.params.count) parameters; the limit is 7") }
            if f.lets.count > 10 { error(f.location, "function '\(f.name)' has \(f.lets.count) let bindings; the limit is 10") }
            var local = vars.union(f.params)
            for (name, value) in f.lets {
                checkExpr(value, vars: local, functions: scope, caller: f.name)
                local.insert(name)
            }
            checkExpr(f.body, vars: local, functions: scope, caller: f.name)
        }
    }

    /// Checks a match block and its children (their nesting depth is bounded by the parser).
    mutating func checkMatch(_ m: MatchBlock, vars: Set<String>, functions: [String: FunctionDecl]) {
        var v = vars
        for seg in m.path {
            switch seg {
            case .variable(let n), .recursive(let n): v.insert(n)
            case .literal: break
            }
        }
        var scope = functions
        checkFunctions(m.functions, vars: v, scope: &scope)
        for a in m.allows { if let c = a.condition { checkExpr(c, vars: v, functions: scope, caller: nil) } }
        for c in m.children { checkMatch(c, vars: v, functions: scope) }
    }

    mutating func checkExpr(_ e: Expr, vars: Set<String>, functions: [String: FunctionDecl], caller: String?) {
        switch e.kind {
        case .identifier(let n):
            if !vars.contains(n) {
                if namespaces[n] != nil || n == "debug" {
                    error(e.location, "'\(n)' is a namespace; call one of its functions")
                } else {
                    error(e.location, "unknown variable '\(n)'")
                }
            }
        case .call(let callee, let args):
            for a in args { checkExpr(a, vars: vars, functions: functions, caller: caller) }
            switch callee.kind {
            case .identifier(let n):
                if let f = functions[n] {
                    if f.params.count != args.count {
                        error(e.location, "function '\(n)' takes \(f.params.count) argument(s), called with \(args.count)")
                    }
                    if let caller { callGraph[caller, default: []].insert(n) }
                } else if let arity = Evaluation.globalFunctions[n] {
                    if arity != args.count { error(e.location, "\(n)() takes \(arity) argument(s), called with \(args.count)") }
                } else {
                    error(e.location, "unknown function '\(n)'")
                }
            case .member(let obj, let fn):
                if Self.regexMethods.contains(fn), let first = args.first, case .string(let pattern) = first.kind {
                    checkRegex(pattern, first)
                }
                if case .identifier(let ns) = obj.kind, !vars.contains(ns), let known = namespaces[ns] {
                    if !known.contains(fn) { error(e.location, "unknown function '\(ns).\(fn)'") }
                } else {
                    checkExpr(obj, vars: vars, functions: functions, caller: caller)
                }
            default:
                checkExpr(callee, vars: vars, functions: functions, caller: caller)
            }
        default:
            for c in e.children { checkExpr(c, vars: vars, functions: functions, caller: caller) }
        }
    }

    /// The string methods whose first argument is a regular expression.
    static let regexMethods: Set<String> = ["matches", "replace", "split"]

    /// Compiles a literal pattern; a pattern RE2 refuses is a diagnostic at the offending
    /// character inside the literal (production reports the literal's position and "Invalid
    /// regular expression pattern").
    mutating func checkRegex(_ pattern: String, _ literal: Expr) {
        guard regexes[pattern] == nil else { return }
        do {
            regexes[pattern] = try RulesRegex.compile(pattern)
        } catch {
            diagnostics.append(source.diagnostic(Self.location(in: literal, pattern: pattern, offset: error.offset), error.message(pattern: pattern)))
        }
    }

    /// Where scalar `offset` of a string literal's value is in the source (columns count bytes,
    /// as the lexer's do; escapes are followed back to their backslash).
    static func location(in literal: Expr, pattern: String, offset: Int) -> SourceLocation {
        let bytes = literal.source.bytes, start = literal.range.lowerBound
        guard start < bytes.count, bytes[start] == 39 || bytes[start] == 34,
            case .success(let decoded) = Lexer.decodeString(bytes, at: start)
        else { return literal.location }
        let byte = pattern.unicodeScalars.prefix(offset).reduce(0) { $0 + UTF8.width($1) }
        let source = byte < decoded.origins.count ? decoded.origins[byte] : decoded.end - 1
        var loc = literal.location
        loc.column += source - start
        return loc
    }

    mutating func checkRecursion() {
        for start in callGraph.keys.sorted() {
            var stack: [(String, [String])] = [(start, [start])]
            var seen: Set<String> = []
            while let (node, trail) = stack.popLast() {
                for next in callGraph[node] ?? [] {
                    if next == start {
                        if let f = declared[start] { error(f.location, "recursion is not allowed: \((trail + [start]).joined(separator: " → "))") }
                        return
                    }
                    if seen.insert(next).inserted { stack.append((next, trail + [next])) }
                }
            }
        }
    }
}
