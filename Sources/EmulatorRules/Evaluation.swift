import EmulatorCore

/// The state of evaluating one request against a ruleset. Confined to one thread; results of
/// every expression are recorded for explanations and coverage.
final class Evaluation {
    let ruleset: CompiledRuleset
    let request: RulesRequest
    let data: any RulesDataSource
    /// The constraints of the query disjunct being judged (list requests).
    var constraints: [String: QueryConstraint] = [:]
    var isQuery = false
    var results: [Int: RulesValue] = [:]
    var accessed: Set<String> = []
    var expressions = 0
    var depth = 0
    var debugLines: [String] = []
    /// Units of string, list and regular-expression work left for this request (see `charge`).
    var budget = Evaluation.maxWork
    /// Patterns compiled during this evaluation (those not literal in the ruleset).
    var dynamicRegexes: [String: RulesRegex] = [:]

    static let maxExpressions = 1000
    static let maxDepth = 20

    init(ruleset: CompiledRuleset, request: RulesRequest, data: any RulesDataSource) {
        self.ruleset = ruleset
        self.request = request
        self.data = data
    }

    /// Variables and functions visible at a point of evaluation.
    struct Scope {
        var vars: [String: RulesValue]
        var functions: [String: FunctionDecl]
    }

    func eval(_ e: Expr, _ scope: Scope) -> RulesValue {
        expressions += 1
        if expressions > Self.maxExpressions { return record(e, .error("more than \(Self.maxExpressions) expressions evaluated for one request")) }
        return record(e, evalKind(e, scope))
    }

    @discardableResult
    func record(_ e: Expr, _ v: RulesValue) -> RulesValue {
        results[e.id] = v
        return v
    }

    func evalKind(_ e: Expr, _ scope: Scope) -> RulesValue {
        switch e.kind {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        case .float(let d): return .float(d)
        case .string(let s): return .string(s)
        case .bytes(let b): return .bytes(b)
        case .identifier(let name):
            if let v = scope.vars[name] { return v }
            return .error("variable '\(name)' is not defined")
        case .list(let items):
            var out: [RulesValue] = []
            for i in items {
                let v = eval(i, scope)
                if v.isError { return v }
                out.append(v)
            }
            return .list(out)
        case .map(let entries):
            var out: [String: RulesValue] = [:]
            for (k, v) in entries {
                guard case .string(let key) = eval(k, scope) else { return .error("map keys must be strings") }
                let value = eval(v, scope)
                if value.isError { return value }
                out[key] = value
            }
            return .map(out)
        case .path(let parts):
            var segs: [String] = []
            for p in parts {
                switch p {
                case .text(let t): segs.append(t)
                case .interpolation(let x):
                    switch eval(x, scope) {
                    case .string(let s): segs.append(contentsOf: s.split(separator: "/").map(String.init))
                    case .int(let i): segs.append(String(i))
                    case .path(let p): segs.append(contentsOf: p)
                    case .error(let m): return .error(m)
                    case let v: return .error("cannot use \(v.typeName) \(v.display) in a path")
                    }
                }
            }
            return .path(segs)
        case .member(let obj, let name):
            return member(eval(obj, scope), name)
        case .index(let obj, let idx):
            return index(eval(obj, scope), eval(idx, scope))
        case .slice(let obj, let lo, let hi):
            return slice(eval(obj, scope), lo.map { eval($0, scope) }, hi.map { eval($0, scope) })
        case .call(let callee, let args):
            return call(callee, args, scope)
        case .not(let x):
            switch eval(x, scope) {
            case .bool(let b): return .bool(!b)
            case .error(let m): return .error(m)
            case let v: return .error("'!' needs a bool, got \(v.typeName)")
            }
        case .negate(let x):
            switch eval(x, scope) {
            case .int(let i): return i == .min ? .error("integer overflow") : .int(-i)
            case .float(let d): return .float(-d)
            case .error(let m): return .error(m)
            case let v: return .error("'-' needs a number, got \(v.typeName)")
            }
        case .binary(let op, let l, let r):
            return binary(op, l, r, scope)
        case .isType(let x, let type):
            let v = eval(x, scope)
            if case .error = v { return v }
            if case .queryField = v { return Operators.queryTypeCheck(v, type) }
            guard let b = v.isType(type) else { return .error("unknown type '\(type)'") }
            return .bool(b)
        case .ternary(let c, let a, let b):
            switch eval(c, scope) {
            case .bool(true): return eval(a, scope)
            case .bool(false): return eval(b, scope)
            case .error(let m): return .error(m)
            case let v: return .error("'?:' needs a bool condition, got \(v.typeName)")
            }
        }
    }

    /// `&&`/`||` absorb an error when the other side decides; other operators propagate errors.
    func binary(_ op: Expr.BinaryOp, _ l: Expr, _ r: Expr, _ scope: Scope) -> RulesValue {
        if op == .and || op == .or {
            let decisive = op == .or
            let lv = eval(l, scope)
            if case .bool(decisive) = lv { return .bool(decisive) }
            let rv = eval(r, scope)
            if case .bool(decisive) = rv { return .bool(decisive) }
            if case .error = lv { return lv }
            if case .error = rv { return rv }
            guard case .bool = lv, case .bool = rv else {
                return .error("'\(op.rawValue)' needs bool operands, got \(lv.typeName) and \(rv.typeName)")
            }
            return .bool(!decisive)
        }
        let lv = eval(l, scope), rv = eval(r, scope)
        if case .error = lv { return lv }
        if case .error = rv { return rv }
        if op == .add {
            // Concatenation copies both sides: doubling a string in `let`s would otherwise grow
            // it to gigabytes in a few dozen expressions.
            switch (lv, rv) {
            case (.string(let a), .string(let b)):
                if let e = charge(a.utf8.count + b.utf8.count, "'+' of strings of \(a.utf8.count) and \(b.utf8.count) bytes") { return e }
            case (.list(let a), .list(let b)):
                if let e = charge(a.count + b.count, "'+' of lists of \(a.count) and \(b.count) elements") { return e }
            default: break
            }
        }
        return Operators.apply(op, lv, rv)
    }
}
