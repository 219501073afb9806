import EmulatorCore

/// One aggregation of a `StructuredAggregationQuery`.
public struct Aggregation: Sendable, Equatable {
    /// The operation.
    public enum Kind: Sendable, Equatable {
        case count(upTo: Int?), sum(FieldPath), avg(FieldPath)
    }
    /// Result alias.
    public var alias: String
    /// Operation.
    public var kind: Kind

    /// Decodes the `aggregations` array (1–5 entries, unique aliases, default `field_<n>`).
    public static func decodeList(_ json: JSON?) throws -> [Aggregation] {
        // The messages are production's: client test suites check them.
        guard case .array(let items)? = json, !items.isEmpty else {
            throw EmulatorError.invalidArgument("Aggregations can not be empty.")
        }
        guard items.count <= 5 else {
            throw EmulatorError.invalidArgument("An aggregation query accepts at most 5 aggregations, got \(items.count).")
        }
        var out: [Aggregation] = []
        for (i, a) in items.enumerated() {
            var alias = a["alias"]?.stringValue ?? ""
            if alias.isEmpty { alias = "field_\(i + 1)" }
            if FieldPath.isReserved(alias) { throw EmulatorError.invalidArgument("The property.name \"\(alias)\" is reserved.") }
            guard alias.utf8.count <= 1500 else { throw EmulatorError.invalidArgument("The property.name is longer than 1500 bytes.") }
            let kind: Kind
            if let c = a["count"] {
                var upTo: Int?
                // proto3 JSON parsers take the proto field name as well as the JSON name.
                if let u = c["upTo"] ?? c["up_to"], !u.isNull {
                    guard let n = u.intValue ?? u.stringValue.flatMap({ Int64($0) }) else {
                        throw EmulatorError.invalidArgument("count.upTo must be an integer.")
                    }
                    guard n >= 0 else {
                        throw EmulatorError.invalidArgument("The `up_to` value in a COUNT aggregation must be greater than or equal to zero.")
                    }
                    upTo = Int(min(n, Int64(Int32.max)))
                }
                kind = .count(upTo: upTo)
            } else if let s = a["sum"] {
                kind = .sum(try Self.field(s))
            } else if let v = a["avg"] {
                kind = .avg(try Self.field(v))
            } else {
                throw EmulatorError.invalidArgument("Operator field in Aggregation is not set.")
            }
            guard !out.contains(where: { $0.alias.utf8Equals(alias) }) else {
                throw EmulatorError.invalidArgument("Aggregation aliases contain duplicate alias: \(alias).")
            }
            out.append(Aggregation(alias: alias, kind: kind))
        }
        return out
    }

    /// Refuses sums and averages over a projected query (`select`), with production's messages: a
    /// projection and aggregated fields do not mix; `count` alone may have one.
    public static func checkProjection(_ aggregations: [Aggregation], select: [FieldPath]?) throws {
        guard let select else { return }
        let fields = aggregations.compactMap(\.field)
        guard !fields.isEmpty else { return }
        if select.allSatisfy(\.isName) {
            throw EmulatorError.invalidArgument("Aggregation over non-key properties is not supported for base query that only returns keys.")
        }
        if let f = fields.first(where: { !select.contains($0) }) {
            throw EmulatorError.invalidArgument("The aggregation property \(f) is not present in the base query's property mask.")
        }
        throw EmulatorError.invalidArgument("Cannot apply property masks when aggregation fields are present.")
    }

    /// The field of a sum or average: any field but the document name.
    static func field(_ json: JSON) throws -> FieldPath {
        let path = try QueryFilter.queryPath(json["field"]?["fieldPath"]?.stringValue ?? "")
        if path.isName { throw EmulatorError.invalidArgument("Aggregations are not supported for the property: __key__") }
        return path
    }

    /// The field a sum or average reads; nil for count.
    public var field: FieldPath? {
        switch kind {
        case .count: return nil
        case .sum(let f), .avg(let f): return f
        }
    }

    /// Computes the aggregation over `docs` (sum: int64 while all ints fit, else double; avg: double, NULL when empty).
    public func compute(_ docs: [Document]) -> Value {
        switch kind {
        case .count(let upTo): return .integer(Int64(upTo.map { min($0, docs.count) } ?? docs.count))
        case .sum(let f):
            var intSum: Int64 = 0, dbl = 0.0, allInt = true, any = false
            for d in docs {
                switch f.get(in: d.fields) {
                case .integer(let i)?:
                    any = true
                    if allInt {
                        let (s, o) = intSum.addingReportingOverflow(i)
                        if o {
                            allInt = false
                            dbl = Double(intSum) + Double(i)
                        } else {
                            intSum = s
                        }
                    } else {
                        dbl += Double(i)
                    }
                case .double(let x)?:
                    any = true
                    if allInt {
                        allInt = false
                        dbl = Double(intSum)
                    }
                    dbl += x
                default: continue
                }
            }
            if !any { return .integer(0) }
            return allInt ? .integer(intSum) : .double(dbl)
        case .avg(let f):
            var total = 0.0, n = 0
            for d in docs {
                if let x = f.get(in: d.fields)?.numericDouble {
                    total += x
                    n += 1
                }
            }
            return n == 0 ? .null : .double(total / Double(n))
        }
    }
}
