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

    /// Filters plus sort orders a query may have (production counts the parent's depth too).
    public static let maxFiltersAndOrders = 100

    /// Decodes and validates a REST `structuredQuery` object (string or integer enums), with
    /// production's checks and messages.
    public init(json: JSON) throws {
        guard case .object(let q) = json else { throw EmulatorError.invalidArgument("structuredQuery must be an object.") }
        if case .object(let sel)? = q["select"], case .array(let fields)? = sel["fields"] {
            select = try fields.map { try QueryFilter.queryPath($0["fieldPath"]?.stringValue ?? "") }
        }
        // A selector with allDescendants and no collectionId is a "kindless" query: every
        // collection under the parent (what recursive deletes use).
        let allDescendants = (q["from"]?.arrayValue?.first?["allDescendants"]?.boolValue) ?? false
        if let from = q["from"]?.arrayValue, from.count > 1 {
            throw EmulatorError.invalidArgument("StructuredQuery.from cannot have more than one collection selector.")
        }
        guard case .array(let from)? = q["from"], from.count == 1,
            let cid = from[0]["collectionId"]?.stringValue ?? (allDescendants ? "" : nil), !cid.isEmpty || allDescendants
        else {
            throw EmulatorError.invalidArgument("A query needs exactly one 'from' collection selector with a collectionId.")
        }
        guard !cid.utf8.contains(UInt8(ascii: "/")) else { throw EmulatorError.invalidArgument("collectionId '\(cid)' must not contain '/'.") }
        self.from = Collection(id: cid, allDescendants: allDescendants)
        if let w = q["where"], !w.isNull {
            filter = try QueryFilter(json: w)
            // An empty composite filter filters nothing.
            if case .and(let fs)? = filter, fs.isEmpty { filter = nil }
            if case .or(let fs)? = filter, fs.isEmpty { filter = nil }
        }
        // Production's limit on filters and sort orders together, checked before the work they
        // cost: checking an AND of 20,000 equalities took 15 s of CPU, quadratic in the count.
        let terms = (filter?.leafCount ?? 0) + (q["orderBy"]?.arrayValue?.count ?? 0)
        if terms > Self.maxFiltersAndOrders {
            throw EmulatorError.invalidArgument(
                "A query may have at most \(Self.maxFiltersAndOrders) filters and sort orders together; this one has \(terms).")
        }
        var orders: [Order] = []
        // Production (as Google's emulator answers) checks the filters' combination rules before
        // the order's shape, so a query breaking both names the filter rule.
        var orderShapeError: EmulatorError?
        if case .array(let os)? = q["orderBy"] {
            for o in os {
                let f = try QueryFilter.queryPath(o["field"]?["fieldPath"]?.stringValue ?? "")
                let dir = o["direction"]
                let desc = dir?.stringValue == "DESCENDING" || dir?.intValue == 2
                if let d = dir, !d.isNull,
                    !(["ASCENDING", "DESCENDING", "DIRECTION_UNSPECIFIED"].contains(d.stringValue ?? "") || [0, 1, 2].contains(d.intValue ?? -1))
                {
                    throw EmulatorError.invalidArgument("Invalid orderBy direction \(d).")
                }
                // Production's index rules: `__name__` is the last key of every index, and no
                // field is ordered twice.
                if orderShapeError == nil, orders.contains(where: { $0.field.isName }) {
                    orderShapeError = EmulatorError.invalidArgument("order by clause cannot contain more fields after the key")
                }
                if orderShapeError == nil, orders.contains(where: { $0.field == f }) {
                    orderShapeError = EmulatorError.invalidArgument("order by clause cannot contain duplicate fields \(f)")
                }
                orders.append(Order(field: f, descending: desc))
            }
        }
        explicitOrder = orders
        offset = 0
        if let o = q["offset"], !o.isNull {
            guard let n = o.intValue else { throw EmulatorError.invalidArgument("offset must be an integer.") }
            guard n >= 0 else { throw EmulatorError.invalidArgument("offset is negative") }
            offset = Int(min(n, Int64(Int32.max)))
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
        try filter?.validateNameOperands()
        if let orderShapeError { throw orderShapeError }
        order = Self.normalise(orders, inequalities: filter?.inequalityFields ?? [])
        // An explicit `__name__` order followed by an inequality field's implicit order would
        // need an index with fields after the key (production refuses it with this message).
        if let i = order.firstIndex(where: { $0.field.isName }), i != order.count - 1 {
            throw EmulatorError.invalidArgument("order by clause cannot contain more fields after the key")
        }
        for c in [startAt, endAt].compactMap({ $0 }) {
            // Cursor values follow the explicit orders only (clients send `__name__` explicitly).
            guard c.values.count <= orders.count else { throw EmulatorError.invalidArgument("Cursor has too many values.") }
            for (v, o) in zip(c.values, orders) where o.field.isName {
                guard case .reference = v else { throw EmulatorError.invalidArgument("Cursor __key__ value is not a document reference.") }
            }
        }
    }

    static func cursor(_ json: JSON?) throws -> Cursor? {
        guard let json, !json.isNull else { return nil }
        let values = try (json["values"]?.arrayValue ?? []).enumerated().map { try Value(json: $1, field: "cursor.values[\($0)]") }
        return Cursor(values: values, before: json["before"]?.boolValue ?? false)
    }

    /// Orders by `fields` as if they were inequality fields (after the explicit orders, before
    /// `__name__`), which also means documents without them are left out. Production reads a
    /// sum or average through the field's index: only documents holding every aggregated field
    /// count (for `count` in the same request too), and a limited aggregation takes the first
    /// documents in that field's order. When the query pins `__name__` in its order (a filter or
    /// an order on it), those fields would have to follow the name in an index, which cannot
    /// exist: production refuses that, and so does this.
    public mutating func orderImplicitly(by fields: [FieldPath]) throws {
        // Fields the query already orders by (explicitly or as range fields) need nothing more.
        let inequalities = filter?.inequalityFields ?? []
        var extra: [FieldPath] = []
        for f in fields where !f.isName && !explicitOrder.contains(where: { $0.field == f }) && !inequalities.contains(f) && !extra.contains(f) {
            extra.append(f)
        }
        guard !extra.isEmpty else { return }
        // Any other aggregated field would follow the name in the index whenever the query orders
        // or filters on the name: production (as Google's emulator answers) refuses that.
        if explicitOrder.contains(where: { $0.field.isName }) || filter?.referencesName == true {
            let names = extra.map(\.description).sorted { $0.utf8Compare($1) < 0 }.joined(separator: ", ")
            throw EmulatorError.invalidArgument(
                "This query requires an index that has fields [\(names)] after __name__ and Firestore does not currently support such an index. Please try the query again with additional ordering on those fields."
            )
        }
        // The query's own order first (explicit, then its range fields), then the aggregated
        // fields by name, then the name: what Google's emulator does (a limited `avg(a)` under
        // `t != 0` takes the first documents by `t`; `sum(a)` with `avg(b)` orders by `a` first
        // whichever comes first in the request).
        var base = Self.normalise(explicitOrder, inequalities: filter?.inequalityFields ?? [])
        let direction = explicitOrder.last?.descending ?? false
        let added = extra.filter { f in !base.contains { $0.field == f } }
            .sorted { $0.description.utf8Compare($1.description) < 0 }
            .map { Order(field: $0, descending: direction) }
        base.insert(contentsOf: added, at: base.firstIndex { $0.field.isName } ?? base.count)
        order = base
    }

    /// Standard-edition normalisation: inequality fields not in orderBy are appended (sorted),
    /// then `__name__`, taking the direction of the last explicit order.
    static func normalise(_ explicit: [Order], inequalities: [FieldPath]) -> [Order] {
        var out = explicit
        let lastDesc = explicit.last?.descending ?? false
        let missing = inequalities.filter { f in !out.contains { $0.field == f } }.sorted { $0.description.utf8Compare($1.description) < 0 }
        for f in missing where !f.isName { out.append(Order(field: f, descending: lastDesc)) }
        if !out.contains(where: { $0.field.isName }) { out.append(Order(field: .name, descending: lastDesc)) }
        return out
    }

    /// Production's filter constraints, with its messages.
    func validateFilters() throws {
        guard let filter else { return }
        let ops = filter.allFieldOperators
        let notEqualish = ops.filter { $0 == .notEqual || $0 == .notIn }.count + filter.unaryCount(of: [.isNotNull, .isNotNaN])
        if notEqualish > 1 {
            throw EmulatorError.invalidArgument("Only a single 'NOT_EQUAL', 'NOT_IN', 'IS_NOT_NAN', or 'IS_NOT_NULL' filter allowed per query.")
        }
        if ops.contains(.notIn) && (ops.contains(.in) || ops.contains(.arrayContainsAny) || filter.containsOr) {
            throw EmulatorError.invalidArgument("'NOT_IN' cannot be used in the same query with 'IN', 'ARRAY_CONTAINS_ANY' or 'OR'.")
        }
        if filter.arrayContainsPerDisjunction > 1 {
            throw EmulatorError.invalidArgument("A maximum of 1 'ARRAY_CONTAINS' filter is allowed per disjunction.")
        }
        let dnf = filter.disjunctionCount
        if dnf > 30 {
            throw EmulatorError.invalidArgument(
                "Too many disjunctions after normalization. Result had \(dnf) disjunctions which is more than the maximum of 30")
        }
        // `__name__ == x` with a range on another field needs an index keyed on the name first,
        // which cannot exist; unless the name has a range of its own.
        let inequalities = filter.inequalityFields
        if filter.hasNameEquality, inequalities.contains(where: { !$0.isName }), !inequalities.contains(where: \.isName) {
            throw EmulatorError.invalidArgument(
                "Equality on key is not allowed if there are other inequality fields and key does not appear in inequalities.")
        }
    }
}
