import EmulatorCore

/// A query filter tree.
public indirect enum QueryFilter: Sendable, Equatable {
    /// Field comparison operators (with their proto numbers).
    public enum FieldOp: String, Sendable, CaseIterable {
        case lessThan = "LESS_THAN", lessThanOrEqual = "LESS_THAN_OR_EQUAL", greaterThan = "GREATER_THAN"
        case greaterThanOrEqual = "GREATER_THAN_OR_EQUAL", equal = "EQUAL", notEqual = "NOT_EQUAL"
        case arrayContains = "ARRAY_CONTAINS", `in` = "IN", arrayContainsAny = "ARRAY_CONTAINS_ANY", notIn = "NOT_IN"

        /// The proto enum number.
        var number: Int {
            switch self {
            case .lessThan: 1
            case .lessThanOrEqual: 2
            case .greaterThan: 3
            case .greaterThanOrEqual: 4
            case .equal: 5
            case .notEqual: 6
            case .arrayContains: 7
            case .in: 8
            case .arrayContainsAny: 9
            case .notIn: 10
            }
        }

        /// Range operators need ordering by the field.
        var isInequality: Bool { [.lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .notEqual, .notIn].contains(self) }
    }

    /// Unary operators.
    public enum UnaryOp: String, Sendable, CaseIterable {
        case isNaN = "IS_NAN", isNull = "IS_NULL", isNotNaN = "IS_NOT_NAN", isNotNull = "IS_NOT_NULL"
        var number: Int {
            switch self {
            case .isNaN: 2
            case .isNull: 3
            case .isNotNaN: 4
            case .isNotNull: 5
            }
        }
    }

    case and([QueryFilter])
    case or([QueryFilter])
    case field(FieldPath, FieldOp, Value)
    case unary(FieldPath, UnaryOp)

    /// Decodes `{compositeFilter | fieldFilter | unaryFilter}`.
    public init(json: JSON) throws {
        if let c = json["compositeFilter"] {
            let opJ = c["op"]
            let isOr = opJ?.stringValue == "OR" || opJ?.intValue == 2
            let isAnd = opJ?.stringValue == "AND" || opJ?.intValue == 1
            guard isOr || isAnd else { throw EmulatorError.invalidArgument("compositeFilter.op must be AND or OR.") }
            guard case .array(let fs)? = c["filters"], !fs.isEmpty else {
                throw EmulatorError.invalidArgument("compositeFilter.filters must be a non-empty array.")
            }
            let parsed = try fs.map { try QueryFilter(json: $0) }
            self = isOr ? .or(parsed) : .and(parsed)
        } else if let f = json["fieldFilter"] {
            let path = try FieldPath(parsing: f["field"]?["fieldPath"]?.stringValue ?? "")
            guard let opJ = f["op"], let op = FieldOp.allCases.first(where: { $0.rawValue == opJ.stringValue || $0.number == opJ.intValue.map(Int.init) }) else {
                throw EmulatorError.invalidArgument("Unknown fieldFilter op \(f["op"] ?? .null).")
            }
            guard let vj = f["value"] else { throw EmulatorError.invalidArgument("fieldFilter on '\(path)' needs a value.") }
            let v = try Value(json: vj, field: "where.\(path)")
            switch op {
            case .in, .arrayContainsAny, .notIn:
                guard case .array(let items) = v, !items.isEmpty else {
                    throw EmulatorError.invalidArgument("'\(op.rawValue)' filter on '\(path)' needs a non-empty array value.")
                }
                if op == .notIn && items.count > 10 { throw EmulatorError.invalidArgument("'NOT_IN' supports at most 10 values.") }
                if items.count > 30 { throw EmulatorError.invalidArgument("'\(op.rawValue)' supports at most 30 values.") }
            default: break
            }
            if path.isName, case .reference = v {} else if path.isName, op != .in, op != .notIn {
                throw EmulatorError.invalidArgument("Filters on __name__ need a reference value.")
            }
            self = .field(path, op, v)
        } else if let u = json["unaryFilter"] {
            let path = try FieldPath(parsing: u["field"]?["fieldPath"]?.stringValue ?? "")
            guard let opJ = u["op"], let op = UnaryOp.allCases.first(where: { $0.rawValue == opJ.stringValue || $0.number == opJ.intValue.map(Int.init) }) else {
                throw EmulatorError.invalidArgument("Unknown unaryFilter op \(u["op"] ?? .null).")
            }
            self = .unary(path, op)
        } else {
            throw EmulatorError.invalidArgument("A filter must be a compositeFilter, fieldFilter or unaryFilter.")
        }
    }

    var children: [QueryFilter] {
        switch self {
        case .and(let f), .or(let f): return f
        default: return []
        }
    }

    var allFieldOperators: [FieldOp] {
        if case .field(_, let op, _) = self { return [op] }
        return children.flatMap(\.allFieldOperators)
    }

    func unaryCount(of ops: [UnaryOp]) -> Int {
        if case .unary(_, let op) = self { return ops.contains(op) ? 1 : 0 }
        return children.reduce(0) { $0 + $1.unaryCount(of: ops) }
    }

    var containsOr: Bool {
        if case .or = self { return true }
        return children.contains { $0.containsOr }
    }

    /// Fields with inequality filters (they join the implicit order).
    var inequalityFields: [FieldPath] {
        switch self {
        case .field(let p, let op, _): return op.isInequality ? [p] : []
        case .unary(let p, let op): return op == .isNotNull || op == .isNotNaN ? [p] : []
        default:
            var out: [FieldPath] = []
            for f in children.flatMap(\.inequalityFields) where !out.contains(f) { out.append(f) }
            return out
        }
    }

    /// Size of the disjunctive normal form (`in` counts its values), saturating at `Int.max`:
    /// an AND of 64 two-way ORs already has 2^64 disjunctions.
    var disjunctionCount: Int {
        switch self {
        case .field(_, let op, let v):
            if op == .in || op == .arrayContainsAny, case .array(let items) = v { return items.count }
            return 1
        case .unary: return 1
        case .or(let fs):
            return fs.reduce(0) { sum, f in
                let (n, overflow) = sum.addingReportingOverflow(f.disjunctionCount)
                return overflow ? .max : n
            }
        case .and(let fs):
            return fs.reduce(1) { product, f in
                let (n, overflow) = product.multipliedReportingOverflow(by: f.disjunctionCount)
                return overflow ? .max : n
            }
        }
    }

    /// Whether `doc` matches.
    func matches(_ doc: Document, fullName: String) -> Bool {
        switch self {
        case .and(let fs): return fs.allSatisfy { $0.matches(doc, fullName: fullName) }
        case .or(let fs): return fs.contains { $0.matches(doc, fullName: fullName) }
        case .unary(let p, let op):
            guard let v = p.isName ? .reference(fullName) : p.get(in: doc.fields) else { return false }
            switch op {
            case .isNaN: return v.isNaN
            case .isNull: return v == .null
            case .isNotNaN: return !v.isNaN
            case .isNotNull: return v != .null
            }
        case .field(let p, let op, let target):
            guard let v = p.isName ? .reference(fullName) : p.get(in: doc.fields) else { return false }
            return Self.compare(v, op, target)
        }
    }

    static func compare(_ v: Value, _ op: FieldOp, _ target: Value) -> Bool {
        switch op {
        case .equal: return Value.queryEquals(v, target)
        case .notEqual: return v != .null && !Value.queryEquals(v, target)
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
            // Range filters only match values of the same type class (numbers with numbers...).
            guard v.typeOrder == target.typeOrder, !v.isNaN, !target.isNaN else { return false }
            let c = Value.compare(v, target)
            switch op {
            case .lessThan: return c < 0
            case .lessThanOrEqual: return c <= 0
            case .greaterThan: return c > 0
            default: return c >= 0
            }
        case .arrayContains:
            guard case .array(let items) = v else { return false }
            return items.contains { Value.queryEquals($0, target) }
        case .in:
            guard case .array(let options) = target else { return false }
            return options.contains { Value.queryEquals(v, $0) }
        case .arrayContainsAny:
            guard case .array(let items) = v, case .array(let options) = target else { return false }
            return items.contains { i in options.contains { Value.queryEquals(i, $0) } }
        case .notIn:
            guard case .array(let options) = target, v != .null else { return false }
            return !options.contains { Value.queryEquals(v, $0) }
        }
    }
}
