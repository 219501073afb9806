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

    /// Decodes `{compositeFilter | fieldFilter | unaryFilter}`, with production's checks on each
    /// filter (and its messages): `__name__` compared only with references, operands of at most
    /// 1,500 bytes, `in`/`not-in`/`array-contains-any` with non-empty arrays of at most 30 (10)
    /// values, which may themselves be arrays.
    public init(json: JSON) throws {
        if let c = json["compositeFilter"] {
            let opJ = c["op"]
            let isOr = opJ?.stringValue == "OR" || opJ?.intValue == 2
            let isAnd = opJ?.stringValue == "AND" || opJ?.intValue == 1
            guard isOr || isAnd else { throw EmulatorError.invalidArgument("compositeFilter.op must be AND or OR.") }
            var parsed: [QueryFilter] = []
            if let fs = c["filters"], !fs.isNull {
                guard case .array(let items) = fs else { throw EmulatorError.invalidArgument("compositeFilter.filters must be an array.") }
                parsed = try items.map { try QueryFilter(json: $0) }
            }
            self = isOr ? .or(parsed) : .and(parsed)
        } else if let f = json["fieldFilter"] {
            let path = try QueryFilter.queryPath(f["field"]?["fieldPath"]?.stringValue ?? "")
            guard let opJ = f["op"],
                let op = FieldOp.allCases.first(where: { $0.rawValue == opJ.stringValue || $0.number == opJ.intValue.map(Int.init) })
            else {
                throw EmulatorError.invalidArgument("Unknown fieldFilter op \(f["op"] ?? .null).")
            }
            guard let vj = f["value"] else { throw EmulatorError.invalidArgument("fieldFilter on '\(path)' needs a value.") }
            let v: Value
            switch op {
            case .in, .arrayContainsAny, .notIn:
                // The operand is a list of values, each of which may be an array (`regions in
                // [["west_coast"], ["east_coast"]]`, Firestore's own sample): only the list itself
                // is not a Firestore value, so nested arrays are fine here.
                guard case .object(let o) = vj, o.count == 1, let list = o["arrayValue"] else {
                    throw EmulatorError.invalidArgument("'\(op.rawValue)' requires an ArrayValue.")
                }
                guard case .object = list else { throw EmulatorError.invalidArgument("'\(op.rawValue)' requires an ArrayValue.") }
                let items = try (list["values"]?.arrayValue ?? []).enumerated().map { i, item in
                    try Value(json: item, field: "where.\(path)[\(i)]")
                }
                guard !items.isEmpty else { throw EmulatorError.invalidArgument("'\(op.rawValue)' requires an non-empty ArrayValue.") }
                if op == .notIn && items.count > 10 { throw EmulatorError.invalidArgument("'NOT_IN' supports up to 10 comparison values.") }
                if items.count > 30 { throw EmulatorError.invalidArgument("'\(op.rawValue)' supports up to 30 comparison values.") }
                v = .array(items)
            default:
                v = try Value(json: vj, field: "where.\(path)")
            }
            // `__name__` operands are checked by `validateNameOperands`, after the combination
            // rules (production's order of checks).
            try Value.validateOperand(v, field: path)
            self = .field(path, op, v)
        } else if let u = json["unaryFilter"] {
            let path = try QueryFilter.queryPath(u["field"]?["fieldPath"]?.stringValue ?? "")
            guard let opJ = u["op"],
                let op = UnaryOp.allCases.first(where: { $0.rawValue == opJ.stringValue || $0.number == opJ.intValue.map(Int.init) })
            else {
                throw EmulatorError.invalidArgument("Unknown unaryFilter op \(u["op"] ?? .null).")
            }
            if path.isName { throw EmulatorError.invalidArgument("__key__ filter value must be a Key") }
            self = .unary(path, op)
        } else {
            throw EmulatorError.invalidArgument("A filter must be a compositeFilter, fieldFilter or unaryFilter.")
        }
    }

    /// A field path a query names (filters, orders, projections, aggregations): parsed, with
    /// reserved names refused as production refuses them (`__name__` alone is the document name).
    static func queryPath(_ text: String) throws -> FieldPath {
        let path = try FieldPath(parsing: text)
        guard !path.isName else { return path }
        if path.segments.count > 1, path.segments[0].utf8Equals("__name__") {
            throw EmulatorError.invalidArgument("the name __key__ is reserved")
        }
        if let reserved = path.segments.first(where: FieldPath.isReserved) {
            throw EmulatorError.invalidArgument("Invalid reserved name in field path \(reserved)")
        }
        return path
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

    /// The number of field and unary filters in the tree.
    var leafCount: Int {
        switch self {
        case .field, .unary: return 1
        default: return children.reduce(0) { $0 + $1.leafCount }
        }
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

    /// Refuses array-membership filters on `__name__` and name operands that are not references,
    /// with production's messages (called after the combination rules, as production checks).
    func validateNameOperands() throws {
        switch self {
        case .field(let path, let op, let v):
            guard path.isName else { return }
            if op == .arrayContains || op == .arrayContainsAny { throw EmulatorError.invalidArgument("the name __key__ is reserved") }
            let operands: [Value]
            if case .array(let items) = v, op == .in || op == .notIn { operands = items } else { operands = [v] }
            for o in operands {
                guard case .reference = o else { throw EmulatorError.invalidArgument("__key__ filter value must be a Key") }
            }
        case .unary: return
        case .and(let fs), .or(let fs): for f in fs { try f.validateNameOperands() }
        }
    }

    /// Size of the disjunctive normal form: `in` and `array-contains-any` count their distinct
    /// values (production drops duplicates first: `in [1, 1]` is one term, `in [1, 1.0]` two).
    /// Saturates instead of overflowing (a hostile AND of many `in`s).
    var disjunctionCount: Int {
        switch self {
        case .field(_, let op, let v):
            if op == .in || op == .arrayContainsAny, case .array(let items) = v { return Self.distinct(items).count }
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

    /// The values without exact duplicates (same type and bytes), first occurrence kept.
    static func distinct(_ items: [Value]) -> [Value] {
        var out: [Value] = []
        for v in items where !out.contains(v) { out.append(v) }
        return out
    }

    /// The most `array-contains` and `array-contains-any` filters in one term of the disjunctive
    /// normal form (production allows one).
    var arrayContainsPerDisjunction: Int {
        switch self {
        case .field(_, let op, _): return op == .arrayContains || op == .arrayContainsAny ? 1 : 0
        case .unary: return 0
        case .or(let fs): return fs.map(\.arrayContainsPerDisjunction).max() ?? 0
        case .and(let fs): return fs.reduce(0) { $0 + $1.arrayContainsPerDisjunction }
        }
    }

    /// True when any field filter compares `__name__`.
    var referencesName: Bool {
        if case .field(let p, _, _) = self { return p.isName }
        return children.contains { $0.referencesName }
    }

    /// True when `__name__` is compared for equality (`==` or `in`) somewhere in the filter.
    var hasNameEquality: Bool {
        if case .field(let p, let op, _) = self { return p.isName && (op == .equal || op == .in) }
        return children.contains { $0.hasNameEquality }
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
            let c = Value.compareIndexed(v, target)
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
            // A null among the values matches nothing (as the client SDKs' own matching has it,
            // and Google's emulator answers); a null field never matches.
            guard case .array(let options) = target, v != .null, !options.contains(.null) else { return false }
            return !options.contains { Value.queryEquals(v, $0) }
        }
    }
}
