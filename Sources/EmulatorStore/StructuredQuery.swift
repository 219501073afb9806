import EmulatorCore

/// A decoded `StructuredQuery` (query.proto), normalised: `orderBy` includes the implicit
/// inequality fields and `__name__`.
public struct StructuredQuery: Sendable, Equatable {
    /// One `from` selector.
    public struct Collection: Sendable, Equatable {
        /// The collection id.
        public var id: String
        /// True for a collection-group query.
        public var allDescendants: Bool
    }

    /// An `orderBy` entry.
    public struct Order: Sendable, Equatable {
        /// Field.
        public var field: FieldPath
        /// Descending?
        public var descending: Bool
        /// Creates an order entry.
        public init(field: FieldPath, descending: Bool) {
            self.field = field
            self.descending = descending
        }
    }

    /// A `startAt`/`endAt` cursor.
    public struct Cursor: Sendable, Equatable {
        /// Values for a prefix of the orderBy fields.
        public var values: [Value]
        /// Whether the position is just before the values.
        public var before: Bool
    }

    /// Projection (`nil` = all fields).
    public var select: [FieldPath]?
    /// The collection selector (exactly one).
    public var from: Collection
    /// The filter, if any.
    public var filter: QueryFilter?
    /// Orders as sent.
    public var explicitOrder: [Order]
    /// Effective order (explicit + implicit inequality fields + `__name__`).
    public var order: [Order]
    /// Start cursor.
    public var startAt: Cursor?
    /// End cursor.
    public var endAt: Cursor?
    /// Results to skip.
    public var offset: Int
    /// Maximum results.
    public var limit: Int?

    /// Decodes and validates a REST `structuredQuery` object (string or integer enums).
    public init(json: JSON) throws {
        guard case .object(let q) = json else { throw EmulatorError.invalidArgument("structuredQuery must be an object.") }
        if case .object(let sel)? = q["select"], case .array(let fields)? = sel["fields"] {
            select = try fields.map { try FieldPath(parsing: $0["fieldPath"]?.stringValue ?? "") }
        }
        // A selector with allDescendants and no collectionId is a "kindless" query: every
        // collection under the parent (what recursive deletes use).
        let allDescendants = (q["from"]?.arrayValue?.first?["allDescendants"]?.boolValue) ?? false
        guard case .array(let from)? = q["from"], from.count == 1,
              let cid = from[0]["collectionId"]?.stringValue ?? (allDescendants ? "" : nil), !cid.isEmpty || allDescendants else {
            throw EmulatorError.invalidArgument("A query needs exactly one 'from' collection selector with a collectionId.")
        }
        guard !cid.contains("/") else { throw EmulatorError.invalidArgument("collectionId '\(cid)' must not contain '/'.") }
        self.from = Collection(id: cid, allDescendants: allDescendants)
        if let w = q["where"], !w.isNull { filter = try QueryFilter(json: w) }
        var orders: [Order] = []
        if case .array(let os)? = q["orderBy"] {
            for o in os {
                let f = try FieldPath(parsing: o["field"]?["fieldPath"]?.stringValue ?? "")
                let dir = o["direction"]
                let desc = dir?.stringValue == "DESCENDING" || dir?.intValue == 2
                if let d = dir, !d.isNull, !(["ASCENDING", "DESCENDING", "DIRECTION_UNSPECIFIED"].contains(d.stringValue ?? "") || [0, 1, 2].contains(d.intValue ?? -1)) {
                    throw EmulatorError.invalidArgument("Invalid orderBy direction \(d).")
                }
                orders.append(Order(field: f, descending: desc))
            }
        }
        explicitOrder = orders
        offset = 0
        if let o = q["offset"], !o.isNull {
            guard let n = o.intValue else { throw EmulatorError.invalidArgument("offset must be an integer.") }
            guard n >= 0 else { throw EmulatorError.invalidArgument("offset is negative") }
            offset = Int(n)
        }
        if let l = q["limit"], !l.isNull {
            guard let n = l.intValue ?? l["value"]?.intValue else { throw EmulatorError.invalidArgument("limit must be an integer.") }
            guard n >= 0 else { throw EmulatorError.invalidArgument("limit is negative") }
            limit = Int(min(n, Int64(Int32.max)))
        }
        order = []
        startAt = try Self.cursor(q["startAt"])
        endAt = try Self.cursor(q["endAt"])
        try validateFilters()
        order = Self.normalise(orders, inequalities: filter?.inequalityFields ?? [])
        for c in [startAt, endAt].compactMap({ $0 }) where c.values.count > order.count {
            throw EmulatorError.invalidArgument("Cursor has too many values.")
        }
    }

    static func cursor(_ json: JSON?) throws -> Cursor? {
        guard let json, !json.isNull else { return nil }
        let values = try (json["values"]?.arrayValue ?? []).enumerated().map { try Value(json: $1, field: "cursor.values[\($0)]") }
        return Cursor(values: values, before: json["before"]?.boolValue ?? false)
    }

    /// Orders by `fields` as if they were inequality fields (after the explicit orders, before
    /// `__name__`), which also means documents without them are left out. Production reads a
    /// sum or average through the field's index, so a limited aggregation query takes the
    /// first documents in that field's order.
    public mutating func orderImplicitly(by fields: [FieldPath]) {
        let extra = fields.filter { f in !f.isName && !explicitOrder.contains { $0.field == f } }
        guard !extra.isEmpty else { return }
        let inequalities = filter?.inequalityFields ?? []
        var all = inequalities
        for f in extra where !all.contains(f) { all.append(f) }
        order = Self.normalise(explicitOrder, inequalities: all)
    }

    /// Standard-edition normalisation: inequality fields not in orderBy are appended (sorted),
    /// then `__name__`, taking the direction of the last explicit order.
    static func normalise(_ explicit: [Order], inequalities: [FieldPath]) -> [Order] {
        var out = explicit
        let lastDesc = explicit.last?.descending ?? false
        let missing = inequalities.filter { f in !out.contains { $0.field == f } }.sorted { $0.description < $1.description }
        for f in missing where !f.isName { out.append(Order(field: f, descending: lastDesc)) }
        if !out.contains(where: { $0.field.isName }) { out.append(Order(field: .name, descending: lastDesc)) }
        return out
    }

    /// Production's filter constraints, with messages naming the rule.
    func validateFilters() throws {
        guard let filter else { return }
        let ops = filter.allFieldOperators
        let notEqualish = ops.filter { $0 == .notEqual || $0 == .notIn }.count + filter.unaryCount(of: [.isNotNull, .isNotNaN])
        if notEqualish > 1 {
            throw EmulatorError.invalidArgument("A query may contain at most one '!=' or 'not-in' filter (including 'is not null' / 'is not NaN').")
        }
        if ops.contains(.notIn) && (ops.contains(.in) || ops.contains(.arrayContainsAny) || filter.containsOr) {
            throw EmulatorError.invalidArgument("'not-in' cannot be combined with 'in', 'array-contains-any' or 'or' filters.")
        }
        let dnf = filter.disjunctionCount
        if dnf > 30 {
            throw EmulatorError.invalidArgument("Query has \(dnf) disjunctions in disjunctive normal form; the limit is 30.")
        }
    }
}
