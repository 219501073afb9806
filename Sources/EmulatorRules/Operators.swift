import EmulatorCore

/// Binary operators other than `&&`/`||` (those short-circuit in `Evaluation`).
enum Operators {
    static func apply(_ op: Expr.BinaryOp, _ l: RulesValue, _ r: RulesValue) -> RulesValue {
        if case .queryField = l { return queryComparison(op, l, r, flipped: false) }
        if case .queryField = r { return queryComparison(op, r, l, flipped: true) }
        switch op {
        case .eq: return .bool(RulesValue.equal(l, r))
        case .ne: return .bool(!RulesValue.equal(l, r))
        case .lt, .le, .gt, .ge:
            guard let c = RulesValue.compare(l, r) else { return .error("cannot compare \(l.typeName) \(l.display) with \(r.typeName) \(r.display)") }
            switch op {
            case .lt: return .bool(c < 0)
            case .le: return .bool(c <= 0)
            case .gt: return .bool(c > 0)
            default: return .bool(c >= 0)
            }
        case .in:
            switch r {
            case .list(let items), .set(let items): return .bool(items.contains { RulesValue.equal($0, l) })
            case .map(let m):
                guard case .string(let k) = l else { return .error("'in' on a map needs a string key, got \(l.typeName)") }
                return .bool(m[k] != nil)
            default: return .error("'in' needs a list, set or map on the right, got \(r.typeName)")
            }
        case .add: return add(l, r)
        case .sub: return subtract(l, r)
        case .mul, .div, .mod: return arithmetic(op, l, r)
        case .and, .or: return .error("internal: logical operator")
        }
    }

    static func add(_ l: RulesValue, _ r: RulesValue) -> RulesValue {
        switch (l, r) {
        case (.string(let a), .string(let b)): return .string(a + b)
        case (.list(let a), .list(let b)): return .list(a + b)
        case (.timestamp(let t), .duration(let s, let n)), (.duration(let s, let n), .timestamp(let t)):
            return Builtins.timestamp(Timestamp(seconds: t.seconds + s, nanos: t.nanos + n))
        case (.duration(let s1, let n1), .duration(let s2, let n2)):
            return Builtins.duration(seconds: s1 + s2, nanos: Int64(n1) + Int64(n2))
        default: return arithmetic(.add, l, r)
        }
    }

    static func subtract(_ l: RulesValue, _ r: RulesValue) -> RulesValue {
        switch (l, r) {
        case (.timestamp(let t), .duration(let s, let n)): return Builtins.timestamp(Timestamp(seconds: t.seconds - s, nanos: t.nanos - n))
        case (.timestamp(let a), .timestamp(let b)):
            return Builtins.duration(seconds: a.seconds - b.seconds, nanos: Int64(a.nanos) - Int64(b.nanos))
        case (.duration(let s1, let n1), .duration(let s2, let n2)):
            return Builtins.duration(seconds: s1 - s2, nanos: Int64(n1) - Int64(n2))
        default: return arithmetic(.sub, l, r)
        }
    }

    static func arithmetic(_ op: Expr.BinaryOp, _ l: RulesValue, _ r: RulesValue) -> RulesValue {
        switch (l, r) {
        case (.int(let a), .int(let b)):
            let result: (Int64, Bool)
            switch op {
            case .add: result = a.addingReportingOverflow(b)
            case .sub: result = a.subtractingReportingOverflow(b)
            case .mul: result = a.multipliedReportingOverflow(by: b)
            case .div:
                guard b != 0 else { return .error("division by zero") }
                result = a.dividedReportingOverflow(by: b)
            default:
                guard b != 0 else { return .error("modulo by zero") }
                result = a.remainderReportingOverflow(dividingBy: b)
            }
            return result.1 ? .error("integer overflow") : .int(result.0)
        case (.int, .float), (.float, .int), (.float, .float):
            guard let a = l.asDouble, let b = r.asDouble else { return .error("not a number") }  // both are numbers (the cases above)
            switch op {
            case .add: return .float(a + b)
            case .sub: return .float(a - b)
            case .mul: return .float(a * b)
            case .div: return .float(a / b)
            default: return .float(a.truncatingRemainder(dividingBy: b))
            }
        default:
            return .error("'\(op.rawValue)' is not defined for \(l.typeName) and \(r.typeName)")
        }
    }

    /// `field is type` for a list query's field that no equality pins: an error when the query
    /// does not constrain it (it could be anything, so the rule cannot hold for every document),
    /// false for every type when the query ranges over it. Both as Google's emulator (production's
    /// engine) answers: `!(x is int)` denies a list without a filter on `x` and allows one with
    /// `x <= 3`; `x is int`, `is number` and `is string` all deny under a range.
    static func queryTypeCheck(_ field: RulesValue, _ type: String) -> RulesValue {
        guard case .queryField(let path, let constraint) = field else { return .error("internal") }
        guard case .range? = constraint else {
            let name = "resource.data." + path.joined(separator: ".")
            return .error("\(name) is not constrained by the query, so the rule cannot hold for every document it may return (rules are not filters)")
        }
        guard RulesValue.null.isType(type) != nil else { return .error("unknown type '\(type)'") }
        return .bool(false)
    }

    /// Comparisons involving a list query's constrained field: true when every document the
    /// query could return satisfies them, false when none does, an error otherwise.
    static func queryComparison(_ op: Expr.BinaryOp, _ field: RulesValue, _ other: RulesValue, flipped: Bool) -> RulesValue {
        guard case .queryField(let path, let constraint) = field else { return .error("internal") }
        let name = "resource.data." + path.joined(separator: ".")
        guard case .range(let lower, let upper)? = constraint else {
            return .error("\(name) is not constrained by the query, so the rule cannot hold for every document it may return (rules are not filters)")
        }
        // Normalise to `field OP other`.
        var o = op
        if flipped {
            switch op {
            case .lt: o = .gt
            case .le: o = .ge
            case .gt: o = .lt
            case .ge: o = .le
            default: break
            }
        }
        func cmp(_ a: RulesValue, _ b: RulesValue) -> Int? { RulesValue.compare(a, b) }
        switch o {
        case .gt, .ge:
            // Every value is above `other` if the lower bound is.
            if let (lo, inc) = lower, let c = cmp(lo, other), c > 0 || (c == 0 && (o == .ge || !inc)) { return .bool(true) }
            if let (hi, inc) = upper, let c = cmp(hi, other), c < 0 || (c == 0 && (o == .gt || !inc)) { return .bool(false) }
        case .lt, .le:
            if let (hi, inc) = upper, let c = cmp(hi, other), c < 0 || (c == 0 && (o == .le || !inc)) { return .bool(true) }
            if let (lo, inc) = lower, let c = cmp(lo, other), c > 0 || (c == 0 && (o == .lt || !inc)) { return .bool(false) }
        default:
            break
        }
        return .error("the query's range on \(name) does not guarantee \(name) \(o.rawValue) \(other.display) for every document it may return")
    }
}

extension RulesValue {
    var asDouble: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .float(let d): return d
        default: return nil
        }
    }
}
