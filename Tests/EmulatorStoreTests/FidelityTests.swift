import EmulatorCore
import Testing

@testable import EmulatorStore

/// Defects the differential run against Google's Firestore emulator found (issue 27), pinned at
/// the store: names, keys and strings are UTF-8 byte strings; values and queries production
/// refuses are refused with its messages; documented queries work.
@Suite struct FidelityTests {
    static let composed = "\u{00E9}"
    static let decomposed = "e\u{0301}"

    func message(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let e as EmulatorError { return e.message } catch { return "\(error)" }
    }

    @Test func unicodeEquivalentDocumentIdsAreTwoDocuments() throws {
        let (s, _) = try makeStore()
        try set(s, "k/\(Self.decomposed)", ["v": .integer(1)])
        try set(s, "k/\(Self.composed)", ["v": .integer(2)])
        try set(s, "k/\u{212B}", ["v": .integer(3)])
        try set(s, "k/\u{00C5}", ["v": .integer(4)])
        let got = try s.getDocument(project: "p", database: "(default)", path: "k/\(Self.decomposed)", caller: .admin).value
        #expect(got.fields["v"] == .integer(1))
        let all = try query(s, ["from": [["collectionId": "k"]]])
        #expect(all.count == 4)
        // Byte order: "e" (0x65) < U+00C5 (0xC3 0x85) < U+00E9 (0xC3 0xA9) < U+212B (0xE2 ...).
        #expect(all == ["k/\(Self.decomposed)", "k/\u{00C5}", "k/\(Self.composed)", "k/\u{212B}"])
    }

    @Test func unicodeEquivalentCollectionIdsAreTwoCollections() throws {
        let (s, _) = try makeStore()
        try set(s, "p/d/c\(Self.decomposed)/a", [:])
        try set(s, "p/d/c\(Self.composed)/b", [:])
        let ids = try s.listCollectionIds(project: "p", database: "(default)", parent: "p/d", caller: .admin)
        #expect(ids.count == 2)
        #expect(try query(s, ["from": [["collectionId": .string("c\(Self.composed)")]]], parent: "p/d") == ["p/d/c\(Self.composed)/b"])
    }

    @Test func unicodeEquivalentMapKeysAreTwoFields() throws {
        let (s, _) = try makeStore()
        var inner = FieldMap()
        inner[Self.decomposed] = .integer(1)
        inner[Self.composed] = .integer(2)
        var fields = FieldMap()
        fields["m"] = .map(inner)
        fields[Self.decomposed] = .string("a")
        fields[Self.composed] = .string("b")
        _ = try s.commit(project: "p", database: "(default)", writes: [StoreWrite(path: "c/d", operation: .update(fields))], caller: .admin)
        let got = try s.getDocument(project: "p", database: "(default)", path: "c/d", caller: .admin).value
        #expect(got.fields.count == 3)
        #expect(got.fields[Self.composed] == .string("b") && got.fields[Self.decomposed] == .string("a"))
        guard case .map(let m)? = got.fields["m"] else {
            Issue.record("no map")
            return
        }
        #expect(m.count == 2 && m[Self.composed] == .integer(2))
    }

    @Test func unicodeEquivalentJSONMembersStayApart() throws {
        let parsed = try JSON.parse("{\"\(Self.composed)\": 1, \"\(Self.decomposed)\": 2}")
        #expect(parsed.objectValue?.count == 2)
    }

    @Test func stringEqualityIsByteWise() throws {
        let (s, _) = try makeStore()
        try set(s, "c/a", ["s": .string(Self.decomposed)])
        try set(s, "c/b", ["s": .string(Self.composed)])
        #expect(
            try query(s, ["from": [["collectionId": "c"]], "where": fieldFilter("s", "EQUAL", ["stringValue": .string(Self.composed)])]) == ["c/b"])
        #expect(
            try query(s, ["from": [["collectionId": "c"]], "where": fieldFilter("s", "NOT_EQUAL", ["stringValue": .string(Self.composed)])]) == [
                "c/a"
            ])
        #expect(
            try query(
                s,
                [
                    "from": [["collectionId": "c"]],
                    "where": fieldFilter("s", "IN", ["arrayValue": ["values": [["stringValue": .string(Self.decomposed)]]]]),
                ]) == ["c/a"])
    }

    @Test func geoPointNaNIsRefused() {
        let m = message { _ = try Value(json: ["geoPointValue": ["latitude": "NaN", "longitude": 0]]) }
        #expect(m != nil)
        #expect(throws: EmulatorError.self) { _ = try Value(json: ["geoPointValue": ["latitude": 0, "longitude": "NaN"]]) }
    }

    @Test func vectorsProductionRefusesAreRefused() {
        func vector(_ values: [JSON]) -> JSON {
            ["mapValue": ["fields": ["__type__": ["stringValue": "__vector__"], "value": ["arrayValue": ["values": .array(values)]]]]]
        }
        #expect(message { _ = try Value(json: vector([])) } == "Cannot have a zero length vector.")
        #expect(message { _ = try Value(json: vector([["doubleValue": "NaN"]])) } == "Vector cannot contain NaN values.")
        #expect(message { _ = try Value(json: vector([["integerValue": "1"]])) } == "Vector must only contain values of type 'double'")
        #expect(
            message { _ = try Value(json: ["arrayValue": ["values": [vector([["doubleValue": 1]])]]]) }
                == "Cannot convert a vector value in an array value.")
        #expect(message { _ = try Value(json: vector([["doubleValue": 1]])) } == nil)
    }

    @Test func inWithArrayOperands() throws {
        let (s, _) = try makeStore()
        try set(s, "c/w", ["regions": .array([.string("west_coast")])])
        try set(s, "c/e", ["regions": .array([.string("east_coast")])])
        try set(s, "c/x", ["regions": .array([.string("west_coast"), .string("east_coast")])])
        let operand: JSON = [
            "arrayValue": [
                "values": [
                    ["arrayValue": ["values": [["stringValue": "west_coast"]]]],
                    ["arrayValue": ["values": [["stringValue": "east_coast"]]]],
                ]
            ]
        ]
        #expect(try query(s, ["from": [["collectionId": "c"]], "where": fieldFilter("regions", "IN", operand)]) == ["c/e", "c/w"])
    }

    @Test func notInWithANullMatchesNothing() throws {
        let (s, _) = try makeStore()
        try set(s, "c/a", ["x": .integer(1)])
        try set(s, "c/b", ["x": .null])
        let withNull: JSON = ["arrayValue": ["values": [["nullValue": "NULL_VALUE"], ["integerValue": "2"]]]]
        #expect(try query(s, ["from": [["collectionId": "c"]], "where": fieldFilter("x", "NOT_IN", withNull)]) == [])
        let without: JSON = ["arrayValue": ["values": [["integerValue": "2"]]]]
        #expect(try query(s, ["from": [["collectionId": "c"]], "where": fieldFilter("x", "NOT_IN", without)]) == ["c/a"])
    }

    @Test func rollbackOfAnIdNeverIssuedIsRefused() throws {
        let (s, _) = try makeStore()
        #expect(message { try s.rollback(project: "p", database: "(default)", transaction: Array("nope".utf8)) } == "Invalid transaction.")
        let t = try s.beginTransaction(project: "p", database: "(default)", readOnly: false)
        try s.rollback(project: "p", database: "(default)", transaction: t)
        try s.rollback(project: "p", database: "(default)", transaction: t)  // finished: still fine
    }

    @Test func duplicateInValuesCountOnceTowardsTheDisjunctionLimit() throws {
        let (s, _) = try makeStore()
        try set(s, "c/a", ["a": .integer(1), "b": .array([.integer(3)])])
        let ins: JSON = ["arrayValue": ["values": [["integerValue": "1"], ["integerValue": "1"]]]]
        let any: JSON = ["arrayValue": ["values": .array((0..<16).map { ["integerValue": .string("\($0)")] })]]
        let q: JSON = [
            "from": [["collectionId": "c"]],
            "where": ["compositeFilter": ["op": "AND", "filters": [fieldFilter("a", "IN", ins), fieldFilter("b", "ARRAY_CONTAINS_ANY", any)]]],
        ]
        #expect(try query(s, q) == ["c/a"])
        // Distinct values still count: 2 x 16 = 32 > 30.
        let two: JSON = ["arrayValue": ["values": [["integerValue": "1"], ["integerValue": "2"]]]]
        let q2: JSON = [
            "from": [["collectionId": "c"]],
            "where": ["compositeFilter": ["op": "AND", "filters": [fieldFilter("a", "IN", two), fieldFilter("b", "ARRAY_CONTAINS_ANY", any)]]],
        ]
        #expect(
            message { _ = try query(s, q2) }
                == "Too many disjunctions after normalization. Result had 32 disjunctions which is more than the maximum of 30")
    }

    @Test func aggregationsCountOnlyDocumentsWithEveryAggregatedField() throws {
        let (s, _) = try makeStore()
        try set(s, "c/a", ["n": .integer(1)])
        try set(s, "c/b", ["n": .integer(2)])
        try set(s, "c/c", ["other": .integer(1)])
        let aggs = try Aggregation.decodeList([["alias": "c", "count": [:]], ["alias": "s", "sum": ["field": ["fieldPath": "n"]]]])
        var q = try StructuredQuery(json: ["from": [["collectionId": "c"]]])
        try q.orderImplicitly(by: aggs.compactMap(\.field))
        let docs = try s.runQuery(project: "p", database: "(default)", parent: "", query: q, caller: .admin).value
        #expect(aggs.map { $0.compute(docs) } == [.integer(2), .integer(3)])
    }

    @Test func aggregatedFieldsAfterTheNameAreRefusedUnlessTheQueryRangesOverThem() throws {
        let name: JSON = ["referenceValue": "projects/p/databases/(default)/documents/c/d3"]
        let onlyName: JSON = ["from": [["collectionId": "c"]], "where": fieldFilter("__name__", "LESS_THAN", name)]
        var q = try StructuredQuery(json: onlyName)
        #expect(
            message { try q.orderImplicitly(by: [FieldPath(["a"])]) }?.hasPrefix("This query requires an index that has fields [a] after __name__")
                == true)
        let withRange: JSON = [
            "from": [["collectionId": "c"]],
            "where": [
                "compositeFilter": [
                    "op": "AND",
                    "filters": [
                        fieldFilter("__name__", "LESS_THAN", name), fieldFilter("c", "GREATER_THAN", ["integerValue": "1"]),
                    ],
                ]
            ],
        ]
        var q2 = try StructuredQuery(json: withRange)
        #expect(
            message { try q2.orderImplicitly(by: [FieldPath(["a"])]) }?.hasPrefix("This query requires an index that has fields [a] after __name__")
                == true)
        // An aggregated field the query already ranges over needs no index after the name.
        try q2.orderImplicitly(by: [FieldPath(["c"])])
        #expect(q2.order.map(\.field.description) == ["c", "__name__"])
    }

    @Test func aggregatedFieldsFollowTheQuerysOwnOrder() throws {
        let (s, _) = try makeStore()
        try set(s, "c/x1", ["t": .integer(1), "a": .integer(9), "b": .integer(1)])
        try set(s, "c/x2", ["t": .integer(2), "a": .integer(1), "b": .integer(5)])
        var q = try StructuredQuery(json: [
            "from": [["collectionId": "c"]], "where": fieldFilter("t", "NOT_EQUAL", ["integerValue": "0"]), "limit": 1,
        ])
        try q.orderImplicitly(by: [FieldPath(["a"])])
        #expect(try s.runQuery(project: "p", database: "(default)", parent: "", query: q, caller: .admin).value.map(\.path) == ["c/x1"])
        // Several aggregated fields: by name, whatever the request's order.
        var q2 = try StructuredQuery(json: ["from": [["collectionId": "c"]], "limit": 1])
        try q2.orderImplicitly(by: [FieldPath(["b"]), FieldPath(["a"])])
        #expect(q2.order.map(\.field.description) == ["a", "b", "__name__"])
    }

    @Test func sumsAndAveragesRefuseAProjection() throws {
        let sum = try Aggregation.decodeList([["sum": ["field": ["fieldPath": "a"]]]])
        let count = try Aggregation.decodeList([["count": [:]]])
        #expect(
            message { try Aggregation.checkProjection(sum, select: []) }
                == "Aggregation over non-key properties is not supported for base query that only returns keys.")
        #expect(
            message { try Aggregation.checkProjection(sum, select: [FieldPath(["b"])]) }
                == "The aggregation property a is not present in the base query's property mask.")
        #expect(
            message { try Aggregation.checkProjection(sum, select: [FieldPath(["a"])]) }
                == "Cannot apply property masks when aggregation fields are present.")
        #expect(message { try Aggregation.checkProjection(count, select: [FieldPath(["a"])]) } == nil)
        #expect(message { try Aggregation.checkProjection(sum, select: nil) } == nil)
    }

    @Test func countUpTo() throws {
        let a = try Aggregation.decodeList([["count": ["up_to": "2"]], ["count": ["upTo": 0]]])
        #expect(a.map(\.kind) == [.count(upTo: 2), .count(upTo: 0)])
        #expect(
            message { _ = try Aggregation.decodeList([["count": ["upTo": -1]]]) }
                == "The `up_to` value in a COUNT aggregation must be greater than or equal to zero.")
    }

    @Test func listDocumentsWithAnEmptyCollectionIdListsEveryCollectionUnderTheParent() throws {
        let (s, _) = try makeStore()
        try set(s, "r/p/a/1", [:])
        try set(s, "r/p/b/2", [:])
        try set(s, "r/p/b/2/deeper/3", [:])
        let listed = try s.listDocuments(
            project: "p", database: "(default)", parent: "r/p", collectionId: "", pageSize: nil, pageToken: nil,
            orderBy: [], showMissing: false, caller: .admin
        ).value
        #expect(listed.entries.map(\.path).sorted() == ["r/p/a/1", "r/p/b/2"])
    }

    @Test func validationProductionApplies() throws {
        let (s, _) = try makeStore()
        let from: JSON = ["from": [["collectionId": "c"]]]
        func q(_ extra: UTF8Dictionary<JSON>) -> String? {
            var o = from.objectValue ?? [:]
            for (k, v) in extra { o[k] = v }
            return message { _ = try query(s, .object(o)) }
        }
        let order = { (f: String) -> JSON in ["field": ["fieldPath": .string(f)]] }
        #expect(q(["orderBy": [order("a"), order("a")]]) == "order by clause cannot contain duplicate fields a")
        #expect(q(["orderBy": [order("__name__"), order("a")]]) == "order by clause cannot contain more fields after the key")
        // The same when the field after the key comes from an inequality's implicit order.
        #expect(
            q(["orderBy": [order("__name__")], "where": fieldFilter("a", "GREATER_THAN", ["integerValue": "1"])])
                == "order by clause cannot contain more fields after the key")
        let both: JSON = [
            "compositeFilter": [
                "op": "AND",
                "filters": [
                    fieldFilter("t", "ARRAY_CONTAINS", ["integerValue": "1"]),
                    fieldFilter("t", "ARRAY_CONTAINS_ANY", ["arrayValue": ["values": [["integerValue": "1"]]]]),
                ],
            ]
        ]
        #expect(q(["where": both]) == "A maximum of 1 'ARRAY_CONTAINS' filter is allowed per disjunction.")
        let nameEq: JSON = [
            "compositeFilter": [
                "op": "AND",
                "filters": [
                    fieldFilter("__name__", "EQUAL", ["referenceValue": "projects/p/databases/(default)/documents/c/x"]),
                    fieldFilter("a", "NOT_EQUAL", ["integerValue": "1"]),
                ],
            ]
        ]
        #expect(
            q(["where": nameEq]) == "Equality on key is not allowed if there are other inequality fields and key does not appear in inequalities.")
        // Combination rules are checked before name operands and the order's shape.
        let notInAndName: JSON = [
            "compositeFilter": [
                "op": "AND",
                "filters": [
                    fieldFilter("a", "NOT_IN", ["arrayValue": ["values": [["integerValue": "1"]]]]),
                    fieldFilter("b", "IN", ["arrayValue": ["values": [["integerValue": "1"]]]]),
                    fieldFilter("__name__", "EQUAL", ["stringValue": "x"]),
                ],
            ]
        ]
        #expect(
            q(["where": notInAndName, "orderBy": [order("a"), order("a")]])
                == "'NOT_IN' cannot be used in the same query with 'IN', 'ARRAY_CONTAINS_ANY' or 'OR'.")
        #expect(
            q(["where": fieldFilter("__name__", "EQUAL", ["stringValue": "x"]), "orderBy": [order("a"), order("a")]])
                == "__key__ filter value must be a Key")
        #expect(message { _ = try Aggregation.decodeList([["alias": "__name__", "count": [:]]]) } == "The property.name \"__name__\" is reserved.")
        #expect(
            message { _ = try Aggregation.decodeList([["sum": ["field": ["fieldPath": "__name__"]]]]) }
                == "Aggregations are not supported for the property: __key__")
    }
}
