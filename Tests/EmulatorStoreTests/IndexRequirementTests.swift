import EmulatorCore
import Testing

@testable import EmulatorStore

/// The index conformance table (docs/indexes.md): query shape → the indexes production needs,
/// and whether the automatic indexes alone serve it. Sources per row: docs/indexes.md.
@Suite struct IndexRequirementTests {
    static let one: JSON = ["integerValue": "1"]
    static let ref: JSON = ["referenceValue": "projects/p/databases/(default)/documents/c/x"]

    static func f(_ field: String, _ op: String, _ value: JSON = one) -> JSON {
        ["fieldFilter": ["field": ["fieldPath": .string(field)], "op": .string(op), "value": value]]
    }
    static func u(_ field: String, _ op: String) -> JSON {
        ["unaryFilter": ["field": ["fieldPath": .string(field)], "op": .string(op)]]
    }
    static func and(_ fs: JSON...) -> JSON { ["compositeFilter": ["op": "AND", "filters": .array(fs)]] }
    static func or(_ fs: JSON...) -> JSON { ["compositeFilter": ["op": "OR", "filters": .array(fs)]] }

    /// A query on `c` (or the collection group `c`) with a filter and orders (`-a` = descending).
    static func q(_ filter: JSON? = nil, order: [String] = [], group: Bool = false) -> StructuredQuery? {
        var o: UTF8Dictionary<JSON> = ["from": [["collectionId": "c", "allDescendants": .bool(group)]]]
        if let filter { o["where"] = filter }
        o["orderBy"] = .array(
            order.map { s in
                [
                    "field": ["fieldPath": .string(s.hasPrefix("-") ? String(s.dropFirst()) : s)],
                    "direction": s.hasPrefix("-") ? "DESCENDING" : "ASCENDING",
                ]
            })
        return try? StructuredQuery(json: .object(o))
    }

    /// Needs as text: `a ASC, b DESC, __name__ DESC` (composite) or `single COLLECTION_GROUP a ASC`.
    static func describe(_ needs: [IndexNeed]) -> String {
        needs.map { n in
            let fields = n.index.fields.map { "\($0.fieldPath) \($0.mode.shortName)" }.joined(separator: ", ")
            return n.kind == .composite
                ? (n.index.queryScope == .collection ? fields : "group: " + fields) : "single \(n.index.queryScope.rawValue) \(fields)"
        }.joined(separator: " | ")
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var query: StructuredQuery?
        var aggregate: [String] = []
        /// Expected needs (`describe`), "" for none.
        var needs: String
        /// Whether production refuses it when no index is declared.
        var refusedWithoutIndexes: Bool
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "no filter", query: q(), needs: "", refusedWithoutIndexes: false),
        Row(name: "one equality", query: q(f("a", "EQUAL")), needs: "single COLLECTION a ASC", refusedWithoutIndexes: false),
        Row(
            name: "equalities merge", query: q(and(f("a", "EQUAL"), f("b", "EQUAL"), f("c", "IN", ["arrayValue": ["values": [one]]]))),
            needs: "single COLLECTION a ASC | single COLLECTION b ASC | single COLLECTION c ASC", refusedWithoutIndexes: false),
        Row(
            name: "is null and equality merge", query: q(and(u("a", "IS_NULL"), f("b", "EQUAL"))),
            needs: "single COLLECTION a ASC | single COLLECTION b ASC", refusedWithoutIndexes: false),
        Row(name: "one range", query: q(f("a", "GREATER_THAN")), needs: "single COLLECTION a ASC", refusedWithoutIndexes: false),
        Row(name: "not-equal", query: q(f("a", "NOT_EQUAL")), needs: "single COLLECTION a ASC", refusedWithoutIndexes: false),
        Row(name: "order descending", query: q(order: ["-a"]), needs: "single COLLECTION a DESC", refusedWithoutIndexes: false),
        Row(
            name: "range and order on one field", query: q(f("a", "LESS_THAN"), order: ["-a"]), needs: "single COLLECTION a DESC",
            refusedWithoutIndexes: false),
        Row(
            name: "order on an equality field is moot", query: q(f("a", "EQUAL"), order: ["a"]), needs: "single COLLECTION a ASC",
            refusedWithoutIndexes: false),
        Row(
            name: "equality and __name__ descending", query: q(f("a", "EQUAL"), order: ["-__name__"]), needs: "single COLLECTION a ASC",
            refusedWithoutIndexes: false),
        Row(
            name: "equality and __name__ range", query: q(and(f("a", "EQUAL"), f("__name__", "GREATER_THAN", ref))), needs: "single COLLECTION a ASC",
            refusedWithoutIndexes: false),
        Row(
            name: "array-contains alone", query: q(f("tags", "ARRAY_CONTAINS")), needs: "single COLLECTION tags CONTAINS",
            refusedWithoutIndexes: false),
        Row(name: "equality and order", query: q(f("a", "EQUAL"), order: ["b"]), needs: "a ASC, b ASC, __name__ ASC", refusedWithoutIndexes: true),
        Row(
            name: "equality and descending order", query: q(f("email", "EQUAL"), order: ["-createdAt"]),
            needs: "email ASC, createdAt DESC, __name__ DESC", refusedWithoutIndexes: true),
        Row(
            name: "equality and range", query: q(and(f("a", "EQUAL"), f("b", "GREATER_THAN"))), needs: "a ASC, b ASC, __name__ ASC",
            refusedWithoutIndexes: true),
        Row(
            name: "ranges on two fields", query: q(and(f("b", "GREATER_THAN"), f("a", "LESS_THAN"))), needs: "a ASC, b ASC, __name__ ASC",
            refusedWithoutIndexes: true),
        Row(name: "two orders", query: q(order: ["a", "-b"]), needs: "a ASC, b DESC, __name__ DESC", refusedWithoutIndexes: true),
        Row(name: "order against __name__", query: q(order: ["-a", "__name__"]), needs: "a DESC, __name__ ASC", refusedWithoutIndexes: true),
        Row(
            name: "range and order on another field", query: q(f("a", "GREATER_THAN"), order: ["b"]), needs: "b ASC, a ASC, __name__ ASC",
            refusedWithoutIndexes: true),
        Row(
            name: "array-contains and equality", query: q(and(f("tags", "ARRAY_CONTAINS"), f("a", "EQUAL"))),
            needs: "tags CONTAINS, a ASC, __name__ ASC", refusedWithoutIndexes: true),
        Row(
            name: "array-contains-any and order", query: q(f("tags", "ARRAY_CONTAINS_ANY", ["arrayValue": ["values": [one]]]), order: ["-a"]),
            needs: "tags CONTAINS, a DESC, __name__ DESC", refusedWithoutIndexes: true),
        Row(
            name: "or of equalities merges", query: q(or(f("a", "EQUAL"), f("b", "EQUAL"))),
            needs: "single COLLECTION a ASC | single COLLECTION b ASC", refusedWithoutIndexes: false),
        Row(
            name: "or with a range branch", query: q(or(f("a", "EQUAL"), f("b", "GREATER_THAN"))),
            needs: "a ASC, b ASC, __name__ ASC | single COLLECTION b ASC", refusedWithoutIndexes: true),
        Row(name: "count with equality", query: q(f("a", "EQUAL")), needs: "single COLLECTION a ASC", refusedWithoutIndexes: false),
        Row(name: "sum alone", query: q(), aggregate: ["x"], needs: "single COLLECTION x ASC", refusedWithoutIndexes: false),
        Row(name: "sum with equality", query: q(f("a", "EQUAL")), aggregate: ["x"], needs: "a ASC, x ASC, __name__ ASC", refusedWithoutIndexes: true),
        Row(name: "collection group, no filter", query: q(group: true), needs: "", refusedWithoutIndexes: false),
        Row(
            name: "collection group, equality", query: q(f("a", "EQUAL"), group: true), needs: "single COLLECTION_GROUP a ASC",
            refusedWithoutIndexes: true),
        Row(
            name: "collection group, order", query: q(order: ["-a"], group: true), needs: "single COLLECTION_GROUP a DESC",
            refusedWithoutIndexes: true),
        Row(
            name: "collection group, equality and order", query: q(f("a", "EQUAL"), order: ["b"], group: true),
            needs: "group: a ASC, b ASC, __name__ ASC", refusedWithoutIndexes: true),
    ]

    @Test(arguments: rows) func conformance(_ row: Row) throws {
        let needs = IndexRequirement.needs(for: try #require(row.query), aggregateFields: row.aggregate.map { FieldPath([$0]) })
        #expect(Self.describe(needs) == row.needs)
        let refused = needs.contains { !IndexConfiguration().serves($0) }
        #expect(refused == row.refusedWithoutIndexes)
    }

    static func config(_ text: String) throws -> IndexConfiguration { try IndexConfiguration(text: Array(text.utf8)) }

    static func index(_ fields: String, scope: String = "COLLECTION", group: String = "c") -> String {
        let fs = fields.split(separator: ",").map { part -> String in
            let bits = part.split(separator: " ")
            let mode = bits[1] == "CONTAINS" ? "\"arrayConfig\": \"CONTAINS\"" : "\"order\": \"\(bits[1])\""
            return "{\"fieldPath\": \"\(bits[0])\", \(mode)}"
        }
        return "{\"indexes\": [{\"collectionGroup\": \"\(group)\", \"queryScope\": \"\(scope)\", \"fields\": [\(fs.joined(separator: ","))]}]}"
    }

    @Test(arguments: [
        // (query, index file, served?)
        ("a==, order b", index("a ASCENDING, b ASCENDING"), true),
        ("a==, order b", index("a ASCENDING, b ASCENDING, __name__ ASCENDING"), true),
        ("a==, order b", index("a DESCENDING, b ASCENDING"), true),
        ("a==, order b", index("b ASCENDING, a ASCENDING"), false),
        ("a==, order b", index("a ASCENDING, b DESCENDING"), false),
        ("a==, order b", index("a ASCENDING, b ASCENDING, __name__ DESCENDING"), false),
        ("a==, order b", index("a ASCENDING, b ASCENDING", scope: "COLLECTION_GROUP"), false),
        ("a==, order b", index("a ASCENDING, b ASCENDING", group: "other"), false),
        ("a==, order b", index("a ASCENDING, x ASCENDING, b ASCENDING"), false),
        ("a== c==, order b", index("c ASCENDING, a ASCENDING, b ASCENDING"), true),
        ("a== c==, order b", index("a ASCENDING, b ASCENDING"), false),
        ("order -a __name__", index("a DESCENDING"), false),
        ("order -a __name__", index("a DESCENDING, __name__ ASCENDING"), true),
        ("tags contains a==", index("tags CONTAINS, a ASCENDING"), true),
        ("tags contains a==", index("a ASCENDING, tags CONTAINS"), true),
        ("tags contains a==", index("tags ASCENDING, a ASCENDING"), false),
    ])
    func compositeMatching(_ shape: String, _ file: String, _ served: Bool) throws {
        let query: StructuredQuery?
        switch shape {
        case "a==, order b": query = Self.q(Self.f("a", "EQUAL"), order: ["b"])
        case "a== c==, order b": query = Self.q(Self.and(Self.f("a", "EQUAL"), Self.f("c", "EQUAL")), order: ["b"])
        case "order -a __name__": query = Self.q(order: ["-a", "__name__"])
        default: query = Self.q(Self.and(Self.f("tags", "ARRAY_CONTAINS"), Self.f("a", "EQUAL")))
        }
        let config = try Self.config(file)
        let needs = IndexRequirement.needs(for: try #require(query))
        #expect(needs.allSatisfy { config.serves($0) } == served)
    }

    @Test func fieldOverridesEnableCollectionGroupsAndExempt() throws {
        let group = try #require(Self.q(Self.f("a", "EQUAL"), group: true))
        let enabled = try Self.config(
            #"{"fieldOverrides": [{"collectionGroup": "c", "fieldPath": "a", "indexes": [{"order": "DESCENDING", "queryScope": "COLLECTION_GROUP"}]}]}"#
        )
        #expect(IndexRequirement.needs(for: group).allSatisfy { enabled.serves($0) })
        // An exemption (no indexes) disables the automatic collection-scope indexes too.
        let exempt = try Self.config(#"{"fieldOverrides": [{"collectionGroup": "c", "fieldPath": "a", "indexes": []}]}"#)
        #expect(!IndexRequirement.needs(for: try #require(Self.q(Self.f("a", "EQUAL")))).allSatisfy { exempt.serves($0) })
        #expect(IndexRequirement.needs(for: try #require(Self.q(Self.f("b", "EQUAL")))).allSatisfy { exempt.serves($0) })
        // An order needs the direction the override enables.
        let descOnly = try #require(Self.q(order: ["a"], group: true))
        #expect(!IndexRequirement.needs(for: descOnly).allSatisfy { enabled.serves($0) })
    }

    /// Console links from production's error messages (as users posted them): the same query
    /// shapes give byte-identical `create_composite` / `create_exemption` values.
    @Test func consoleLinksMatchProduction() throws {
        func composite(_ project: String, _ group: String, _ query: StructuredQuery?) -> String {
            guard var q = query else { return "bad query" }
            q.from.id = group
            let need = IndexRequirement.needs(for: q).first { $0.kind == .composite }
            return need.map { IndexConsoleLink.message(for: $0, project: project, database: "(default)") } ?? "none"
        }
        #expect(
            composite("bluesystem-7c9af", "merchant_applications", Self.q(Self.f("email", "EQUAL"), order: ["-createdAt"]))
                == "The query requires an index. You can create it here: https://console.firebase.google.com/v1/r/project/bluesystem-7c9af/firestore/indexes?create_composite=Cl5wcm9qZWN0cy9ibHVlc3lzdGVtLTdjOWFmL2RhdGFiYXNlcy8oZGVmYXVsdCkvY29sbGVjdGlvbkdyb3Vwcy9tZXJjaGFudF9hcHBsaWNhdGlvbnMvaW5kZXhlcy9fEAEaCQoFZW1haWwQARoNCgljcmVhdGVkQXQQAhoMCghfX25hbWVfXxAC"
        )
        #expect(
            composite(
                "dashdice-d1b86", "achievementDefinitions",
                Self.q(Self.and(Self.f("isActive", "EQUAL"), Self.f("category", "EQUAL")), order: ["order"]))
                == "The query requires an index. You can create it here: https://console.firebase.google.com/v1/r/project/dashdice-d1b86/firestore/indexes?create_composite=Cl1wcm9qZWN0cy9kYXNoZGljZS1kMWI4Ni9kYXRhYmFzZXMvKGRlZmF1bHQpL2NvbGxlY3Rpb25Hcm91cHMvYWNoaWV2ZW1lbnREZWZpbml0aW9ucy9pbmRleGVzL18QARoMCghpc0FjdGl2ZRABGgwKCGNhdGVnb3J5EAEaCQoFb3JkZXIQARoMCghfX25hbWVfXxAB"
        )
        var group = try #require(Self.q(Self.f("userId", "EQUAL"), group: true))
        group.from.id = "members"
        let need = try #require(IndexRequirement.needs(for: group).first)
        #expect(
            IndexConsoleLink.message(for: need, project: "nascar-pick-em", database: "(default)")
                == "The query requires a COLLECTION_GROUP_ASC index for collection members and field userId. You can create it here: https://console.firebase.google.com/v1/r/project/nascar-pick-em/firestore/indexes?create_exemption=ClJwcm9qZWN0cy9uYXNjYXItcGljay1lbS9kYXRhYmFzZXMvKGRlZmF1bHQpL2NvbGxlY3Rpb25Hcm91cHMvbWVtYmVycy9maWVsZHMvdXNlcklkEAIaCgoGdXNlcklkEAE"
        )
        let rangeQuery = try #require(Self.q(Self.and(Self.f("a", "GREATER_THAN"), Self.f("b", "LESS_THAN"))))
        let ranges = try #require(IndexRequirement.needs(for: rangeQuery).first)
        #expect(
            IndexConsoleLink.message(for: ranges, project: "p", database: "(default)").hasSuffix(
                " .\nThe query contains range and inequality filters on multiple fields, please refer to the documentation for index selection best practices: https://cloud.google.com/firestore/docs/query-data/multiple-range-fields."
            ))
    }

    @Test func indexFileRoundTripsAndRefusesTypos() throws {
        let text =
            #"{"indexes": [{"collectionGroup": "c", "queryScope": "COLLECTION", "fields": [{"fieldPath": "tags", "arrayConfig": "CONTAINS"}, {"fieldPath": "a", "order": "DESCENDING"}, {"fieldPath": "v", "vectorConfig": {"dimension": 3, "flat": {}}}]}], "fieldOverrides": [{"collectionGroup": "c", "fieldPath": "b", "indexes": [{"order": "ASCENDING", "queryScope": "COLLECTION_GROUP"}, {"arrayConfig": "CONTAINS", "queryScope": "COLLECTION"}]}]}"#
        let config = try Self.config(text)
        #expect(try IndexConfiguration(json: config.json) == config)
        #expect(config.indexes[0].fields.map(\.mode) == [.contains, .descending, .vector(dimension: 3)])
        #expect(
            config.fieldOverrides[0].indexes == [
                SingleFieldIndex(queryScope: .collectionGroup, mode: .ascending), SingleFieldIndex(queryScope: .collection, mode: .contains),
            ])
        #expect(throws: EmulatorError.invalidArgument("unknown key 'index' (known: fieldOverrides, indexes)")) { try Self.config(#"{"index": []}"#) }
        #expect(throws: EmulatorError.invalidArgument("indexes[0].fields[0].order must be ASCENDING or DESCENDING")) {
            try Self.config(#"{"indexes": [{"collectionGroup": "c", "fields": [{"fieldPath": "a", "order": "UP"}]}]}"#)
        }
        #expect(throws: EmulatorError.invalidArgument("indexes[0].fields[0] ('a') needs exactly one of order, arrayConfig or vectorConfig")) {
            try Self.config(#"{"indexes": [{"collectionGroup": "c", "fields": [{"fieldPath": "a"}]}]}"#)
        }
        // The Firebase CLI's empty file.
        #expect(try Self.config(#"{"indexes": [], "fieldOverrides": []}"#) == IndexConfiguration())
    }

    @Test func suggestionsAddOnlyWhatIsMissing() throws {
        var s = IndexSuggestions()
        let needs =
            IndexRequirement.needs(for: try #require(Self.q(Self.f("a", "EQUAL"), order: ["-b"])))
            + IndexRequirement.needs(for: try #require(Self.q(Self.f("u", "EQUAL"), group: true)))
        for n in needs {
            let fresh = s.record(n)
            #expect(fresh)
        }
        let again = s.record(needs[0])
        #expect(!again)
        let file = s.file(configured: IndexConfiguration(), missingOnly: false)
        #expect(
            file.json == [
                "indexes": [
                    [
                        "collectionGroup": "c", "queryScope": "COLLECTION",
                        "fields": [
                            ["fieldPath": "a", "order": "ASCENDING"], ["fieldPath": "b", "order": "DESCENDING"],
                            ["fieldPath": "__name__", "order": "DESCENDING"],
                        ],
                    ]
                ],
                "fieldOverrides": [
                    [
                        "collectionGroup": "c", "fieldPath": "u",
                        "indexes": [
                            ["order": "ASCENDING", "queryScope": "COLLECTION"], ["order": "DESCENDING", "queryScope": "COLLECTION"],
                            ["arrayConfig": "CONTAINS", "queryScope": "COLLECTION"], ["order": "ASCENDING", "queryScope": "COLLECTION_GROUP"],
                        ],
                    ]
                ],
            ])
        // Once the file has them, nothing is missing.
        #expect(s.file(configured: file, missingOnly: true) == IndexConfiguration())
        #expect(s.file(configured: file, missingOnly: false) == file)
    }
}
