extension Expr {
    /// A fully parenthesised, stable rendering (golden parser tests).
    public var printed: String {
        switch kind {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .float(let d): return String(d)
        case .string(let s): return "'\(s)'"
        case .bytes(let b): return "b[\(b.count)]"
        case .identifier(let n): return n
        case .list(let l): return "[" + l.map(\.printed).joined(separator: ", ") + "]"
        case .map(let m): return "{" + m.map { "\($0.0.printed): \($0.1.printed)" }.joined(separator: ", ") + "}"
        case .path(let parts):
            return "path("
                + parts.map { p in
                    switch p {
                    case .text(let t): return t
                    case .interpolation(let e): return "$(\(e.printed))"
                    }
                }.joined(separator: "/") + ")"
        case .member(let o, let n): return "\(o.printed).\(n)"
        case .index(let o, let i): return "\(o.printed)[\(i.printed)]"
        case .slice(let o, let a, let b): return "\(o.printed)[\(a?.printed ?? ""):\(b?.printed ?? "")]"
        case .call(let c, let args): return "\(c.printed)(" + args.map(\.printed).joined(separator: ", ") + ")"
        case .not(let x): return "!(\(x.printed))"
        case .negate(let x): return "-(\(x.printed))"
        case .binary(let op, let l, let r): return "(\(l.printed) \(op.rawValue) \(r.printed))"
        case .isType(let x, let t): return "(\(x.printed) is \(t))"
        case .ternary(let a, let b, let c): return "(\(a.printed) ? \(b.printed) : \(c.printed))"
        }
    }
}

extension RulesAST {
    /// An indented outline of the ruleset (golden parser tests).
    public var printed: String {
        var out = "rules_version \(version)\nservice \(service)\n"
        func fn(_ f: FunctionDecl, _ indent: String) {
            out += "\(indent)function \(f.name)(\(f.params.joined(separator: ", ")))\n"
            for (n, v) in f.lets { out += "\(indent)  let \(n) = \(v.printed)\n" }
            out += "\(indent)  return \(f.body.printed)\n"
        }
        func block(_ m: MatchBlock, _ indent: String) {
            let path = m.path.map { s -> String in
                switch s {
                case .literal(let l): return l
                case .variable(let v): return "{\(v)}"
                case .recursive(let v): return "{\(v)=**}"
                }
            }.joined(separator: "/")
            out += "\(indent)match /\(path)\n"
            for f in m.functions { fn(f, indent + "  ") }
            for a in m.allows {
                out += "\(indent)  allow \(a.methods.joined(separator: ", "))" + (a.condition.map { ": if \($0.printed)" } ?? "") + "\n"
            }
            for c in m.children { block(c, indent + "  ") }
        }
        for f in functions { fn(f, "") }
        for m in matches { block(m, "") }
        return out
    }
}

extension Evaluation {
    /// Parses and evaluates one expression with the given variables (conformance tests and the
    /// expression mode of `:evaluateRules`); `budget` is the cost limit (tests use small ones).
    static func evaluateExpression(
        _ text: String, vars: [String: RulesValue], hasher: (any RulesHasher)? = nil,
        budget: Int = Evaluation.maxWork
    ) -> Result<RulesValue, Diagnostic> {
        let wrapper = "service cloud.firestore { match /x { allow get: if \(text); } }"
        switch CompiledRuleset.compileUnchecked(source: wrapper, hasher: hasher) {
        case .failure(let d): return .failure(d)
        case .success(let rs):
            guard let cond = rs.ast.matches.first?.allows.first?.condition else {
                return .failure(Diagnostic(location: SourceLocation(file: "expr", line: 1, column: 1), message: "no expression", excerpt: ""))
            }
            let ev = Evaluation(
                ruleset: rs, request: RulesRequest(method: .get, path: ["x"], auth: nil, time: .init(seconds: 0)), data: EmptyDataSource())
            ev.budget = budget
            return .success(ev.eval(cond, Scope(vars: vars, functions: [:])))
        }
    }
}

extension CompiledRuleset {
    /// Parses without the checker (expression harness).
    static func compileUnchecked(source: String, hasher: (any RulesHasher)?) -> Result<CompiledRuleset, Diagnostic> {
        let text = SourceText(name: "expr", text: source)
        do {
            var p = try Parser(text: source, file: "expr", firstId: 0)
            return .success(CompiledRuleset(fileName: "expr", source: source, ast: try p.parseFile(), hasher: hasher))
        } catch let e as ParseError {
            return .failure(text.diagnostic(e.location, e.message))
        } catch {
            return .failure(text.diagnostic(SourceLocation(file: "expr", line: 1, column: 1), "\(error)"))
        }
    }
}
