/// Turns the recorded results of an evaluation into a sentence a person can act on: the
/// sub-expression that was false or errored, with its location and the values involved.
struct Explainer {
    let ev: Evaluation

    func value(_ e: Expr) -> RulesValue? { ev.results[e.id] }

    func explain(_ e: Expr, depth: Int = 0) -> String {
        guard depth < 12, let v = value(e) else { return "\(e.text) was not evaluated" }
        if case .error(let m) = v { return explainError(e, m, depth) }
        switch e.kind {
        case .binary(.and, let l, let r):
            if case .bool(false)? = value(l) { return explain(l, depth: depth + 1) }
            return explain(r, depth: depth + 1)
        case .binary(.or, let l, let r):
            return "neither side of || holds: " + explain(l, depth: depth + 1) + "; and " + explain(r, depth: depth + 1)
        case .binary(let op, let l, let r) where [.eq, .ne, .lt, .le, .gt, .ge].contains(op):
            let neg: [Expr.BinaryOp: String] = [.eq: "!=", .ne: "==", .lt: ">=", .le: ">", .gt: "<=", .ge: "<"]
            return "\(l.text) (\(value(l)?.display ?? "?")) \(neg[op]!) \(r.text) (\(value(r)?.display ?? "?")) at \(e.location)"
        case .binary(.in, let l, let r):
            return "\(l.text) (\(value(l)?.display ?? "?")) is not in \(r.text) (\(value(r)?.display ?? "?")) at \(e.location)"
        case .not(let x):
            return "\(x.text) is true at \(e.location)"
        case .call(let callee, _):
            if case .identifier(let name) = callee.kind, let f = ev.ruleset.allFunctions[name], value(f.body) != nil {
                return "\(e.text) is \(v.display) at \(e.location), because " + explain(f.body, depth: depth + 1)
            }
            return "\(e.text) is \(v.display) at \(e.location)"
        case .ternary(let c, let a, let b):
            if case .bool(true)? = value(c) { return explain(a, depth: depth + 1) }
            return explain(b, depth: depth + 1)
        default:
            return "\(e.text) is \(v.display) at \(e.location)"
        }
    }

    /// Descends to the innermost sub-expression that produced the error.
    func explainError(_ e: Expr, _ message: String, _ depth: Int) -> String {
        var children = e.children
        if case .call(let callee, _) = e.kind, case .identifier(let name) = callee.kind, let f = ev.ruleset.allFunctions[name] {
            children.append(f.body)
        }
        if case .binary(let op, _, _) = e.kind, op == .and || op == .or {
            // Report the side that errored (the other did not decide).
            if let c = children.first(where: { if case .error? = value($0) { true } else { false } }), depth < 12 {
                return explain(c, depth: depth + 1)
            }
        }
        for c in children {
            if case .error(let m)? = value(c), m == message, depth < 12 { return explainError(c, m, depth + 1) }
        }
        return "error: \(message), in \(e.text) at \(e.location)"
    }

    /// The sub-expression `explain` ends its sentence on (the one whose line a viewer highlights):
    /// the false side of `&&`, the failing comparison, the body of a called function, the
    /// innermost erroring node. Follows `explain` step by step.
    func culprit(_ e: Expr, depth: Int = 0) -> Expr {
        guard depth < 12, let v = value(e) else { return e }
        if case .error(let m) = v { return culpritOfError(e, m, depth) }
        switch e.kind {
        case .binary(.and, let l, let r):
            if case .bool(false)? = value(l) { return culprit(l, depth: depth + 1) }
            return culprit(r, depth: depth + 1)
        case .call(let callee, _):
            if case .identifier(let name) = callee.kind, let f = ev.ruleset.allFunctions[name], value(f.body) != nil {
                return culprit(f.body, depth: depth + 1)
            }
            return e
        case .ternary(let c, let a, let b):
            if case .bool(true)? = value(c) { return culprit(a, depth: depth + 1) }
            return culprit(b, depth: depth + 1)
        default:
            return e
        }
    }

    func culpritOfError(_ e: Expr, _ message: String, _ depth: Int) -> Expr {
        var children = e.children
        if case .call(let callee, _) = e.kind, case .identifier(let name) = callee.kind, let f = ev.ruleset.allFunctions[name] {
            children.append(f.body)
        }
        if case .binary(let op, _, _) = e.kind, op == .and || op == .or {
            if let c = children.first(where: { if case .error? = value($0) { true } else { false } }), depth < 12 {
                return culprit(c, depth: depth + 1)
            }
        }
        for c in children {
            if case .error(let m)? = value(c), m == message, depth < 12 { return culpritOfError(c, m, depth + 1) }
        }
        return e
    }
}
