import EmulatorCore
import Testing

@testable import EmulatorStore

/// A store on a frozen clock.
func makeStore(_ clock: ProjectClock? = nil) throws -> (StoreService, ProjectEnvironment) {
    let provider = LocalEnvironmentProvider()
    let env = provider.environment(for: "p")
    try env.clock.freeze(at: Timestamp(seconds: 1_800_000_000))
    return (StoreService(environments: provider), env)
}

func set(_ s: StoreService, _ path: String, _ fields: [String: Value]) throws {
    _ = try s.commit(project: "p", database: "(default)", writes: [StoreWrite(path: path, operation: .update(fields))], caller: .admin)
}

func query(_ s: StoreService, _ json: JSON, parent: String = "") throws -> [String] {
    try s.runQuery(project: "p", database: "(default)", parent: parent, query: StructuredQuery(json: json), caller: .admin).value.map(\.path)
}

func fieldFilter(_ field: String, _ op: String, _ value: JSON) -> JSON {
    ["fieldFilter": ["field": ["fieldPath": .string(field)], "op": .string(op), "value": value]]
}

@Suite struct StoreServiceTests {
    @Test func createGetUpdateDelete() throws {
        let (s, env) = try makeStore()
        let d = try s.createDocument(
            project: "p", database: "(default)", collection: "tasks", documentId: nil, fields: ["a": .integer(1)], caller: .admin)
        #expect(d.id.count == 20)
        #expect(throws: EmulatorError.alreadyExists("Document already exists: projects/p/databases/(default)/documents/\(d.path)")) {
            _ = try s.createDocument(project: "p", database: "(default)", collection: "tasks", documentId: d.id, fields: [:], caller: .admin)
        }
        try env.clock.advance(seconds: 1)
        let r = try s.commit(
            project: "p", database: "(default)",
            writes: [StoreWrite(path: d.path, operation: .update(["b": .integer(2)]), updateMask: [FieldPath(["b"])])], caller: .admin)
        let got = try s.getDocument(project: "p", database: "(default)", path: d.path, caller: .admin).value
        #expect(got.fields == ["a": .integer(1), "b": .integer(2)])
        #expect(got.updateTime == r.commitTime && got.createTime == d.createTime)
        _ = try s.commit(project: "p", database: "(default)", writes: [StoreWrite(path: d.path, operation: .delete)], caller: .admin)
        #expect(throws: EmulatorError.self) { try s.getDocument(project: "p", database: "(default)", path: d.path, caller: .admin) }
    }

    @Test func updateTimesStrictlyIncreaseOnAFrozenClock() throws {
        let (s, _) = try makeStore()
        var last = Timestamp(seconds: 0)
        for i in 0..<5 {
            let r = try s.commit(
                project: "p", database: "(default)", writes: [StoreWrite(path: "c/d", operation: .update(["i": .integer(Int64(i))]))], caller: .admin)
            #expect(r.commitTime > last)
            last = r.commitTime
        }
    }

    @Test func preconditionsFailWithTheRightCodes() throws {
        let (s, _) = try makeStore()
        func code(_ p: Precondition, _ op: StoreWrite.Operation = .update([:])) -> ErrorCode? {
            do {
                _ = try s.commit(
                    project: "p", database: "(default)", writes: [StoreWrite(path: "c/x", operation: op, precondition: p)], caller: .admin)
                return nil
            } catch let e as EmulatorError { return e.code } catch { return .unknown }
        }
        #expect(code(.exists(true)) == .notFound)
        try set(s, "c/x", [:])
        #expect(code(.exists(false)) == .alreadyExists)
        #expect(code(.updateTime(Timestamp(seconds: 1))) == .failedPrecondition)
        #expect(code(.exists(true), .delete) == nil)
    }

    @Test func commitIsAtomic() throws {
        let (s, _) = try makeStore()
        try set(s, "c/exists", ["v": .integer(1)])
        #expect(throws: EmulatorError.self) {
            _ = try s.commit(
                project: "p", database: "(default)",
                writes: [
                    StoreWrite(path: "c/new", operation: .update(["v": .integer(1)])),
                    StoreWrite(path: "c/exists", operation: .update([:]), precondition: .exists(false)),
                ], caller: .admin)
        }
        #expect(throws: EmulatorError.self) { try s.getDocument(project: "p", database: "(default)", path: "c/new", caller: .admin) }
    }

    @Test func transformsFollowFirestoreSemantics() throws {
        let (s, env) = try makeStore()
        try set(
            s, "c/t",
            ["i": .integer(Int64.max - 1), "d": .integer(1), "arr": .array([.integer(1), .double(2)]), "s": .string("x"), "z": .integer(3)])
        func t(_ json: JSON) throws -> FieldTransform { try FieldTransform(json: json) }
        let r = try s.commit(
            project: "p", database: "(default)",
            writes: [
                StoreWrite(
                    path: "c/t", operation: .transform,
                    transforms: [
                        try t(["fieldPath": "i", "increment": ["integerValue": "5"]]),
                        try t(["fieldPath": "d", "increment": ["doubleValue": 0.5]]),
                        try t(["fieldPath": "s", "increment": ["integerValue": "2"]]),
                        try t([
                            "fieldPath": "arr",
                            "appendMissingElements": ["values": [["integerValue": "2"], ["integerValue": "3"], ["integerValue": "3"]]],
                        ]),
                        try t(["fieldPath": "z", "maximum": ["doubleValue": 3.0]]),
                        try t(["fieldPath": "m", "minimum": ["integerValue": "-1"]]),
                        try t(["fieldPath": "at", "setToServerValue": 1]),
                    ])
            ], caller: .admin)
        let doc = try s.getDocument(project: "p", database: "(default)", path: "c/t", caller: .admin).value.fields
        #expect(doc["i"] == .integer(.max))
        #expect(doc["d"] == .double(1.5))
        #expect(doc["s"] == .integer(2))
        #expect(doc["arr"] == .array([.integer(1), .double(2), .integer(3)]))
        #expect(doc["z"] == .integer(3))
        #expect(doc["m"] == .integer(-1))
        #expect(doc["at"] == .timestamp(r.commitTime))
        #expect(r.writeResults[0].transformResults[3] == .null)
        #expect(r.commitTime >= env.clock.now().truncatedToMicroseconds)
        _ = try s.commit(
            project: "p", database: "(default)",
            writes: [
                StoreWrite(
                    path: "c/t", operation: .transform,
                    transforms: [
                        try t(["fieldPath": "arr", "removeAllFromArray": ["values": [["doubleValue": 1.0]]]])
                    ])
            ], caller: .admin)
        #expect(
            try s.getDocument(project: "p", database: "(default)", path: "c/t", caller: .admin).value.fields["arr"]
                == .array([.double(2), .integer(3)]))
    }

    @Test func queriesFilterOrderAndPage() throws {
        let (s, _) = try makeStore()
        for (id, n, tag) in [("a", 3, "x"), ("b", 1, "y"), ("c", 2, "x"), ("d", 5, "z")] {
            try set(s, "items/\(id)", ["n": .integer(Int64(n)), "tag": .string(tag), "tags": .array([.string(tag), .string("all")])])
        }
        try set(s, "items/nofield", ["tag": .string("x")])
        try set(s, "other/a", ["n": .integer(100)])
        let from: JSON = [["collectionId": "items"]]
        #expect(try query(s, ["from": from, "where": fieldFilter("n", "GREATER_THAN", ["integerValue": "1"])]) == ["items/c", "items/a", "items/d"])
        #expect(try query(s, ["from": from, "where": fieldFilter("tag", "EQUAL", ["stringValue": "x"])]) == ["items/a", "items/c", "items/nofield"])
        #expect(try query(s, ["from": from, "where": fieldFilter("tag", "NOT_EQUAL", ["stringValue": "x"])]) == ["items/b", "items/d"])
        #expect(try query(s, ["from": from, "where": fieldFilter("tags", "ARRAY_CONTAINS", ["stringValue": "y"])]) == ["items/b"])
        #expect(
            try query(s, ["from": from, "where": fieldFilter("n", "IN", ["arrayValue": ["values": [["integerValue": "1"], ["doubleValue": 5.0]]]])])
                == ["items/b", "items/d"])
        #expect(
            try query(s, ["from": from, "where": fieldFilter("n", "NOT_IN", ["arrayValue": ["values": [["integerValue": "1"]]]])]) == [
                "items/c", "items/a", "items/d",
            ])
        #expect(
            try query(
                s,
                [
                    "from": from,
                    "where": fieldFilter("tags", "ARRAY_CONTAINS_ANY", ["arrayValue": ["values": [["stringValue": "z"], ["stringValue": "y"]]]]),
                ]) == ["items/b", "items/d"])
        let or: JSON = [
            "compositeFilter": [
                "op": "OR", "filters": [fieldFilter("n", "EQUAL", ["integerValue": "1"]), fieldFilter("tag", "EQUAL", ["stringValue": "z"])],
            ]
        ]
        #expect(try query(s, ["from": from, "where": or]) == ["items/b", "items/d"])
        let desc: JSON = [["field": ["fieldPath": "n"], "direction": "DESCENDING"]]
        #expect(try query(s, ["from": from, "orderBy": desc, "limit": 2]) == ["items/d", "items/a"])
        #expect(try query(s, ["from": from, "orderBy": desc, "offset": 1, "limit": 2]) == ["items/a", "items/c"])
        let asc: JSON = [["field": ["fieldPath": "n"], "direction": 1]]
        #expect(
            try query(
                s,
                [
                    "from": from, "orderBy": asc, "startAt": ["values": [["integerValue": "2"]], "before": true],
                    "endAt": ["values": [["integerValue": "5"]], "before": true],
                ]) == ["items/c", "items/a"])
        #expect(
            try query(s, ["from": from, "orderBy": asc, "startAt": ["values": [["integerValue": "2"]], "before": false]]) == ["items/a", "items/d"])
        #expect(try query(s, ["from": from, "where": ["unaryFilter": ["op": "IS_NULL", "field": ["fieldPath": "n"]]]]) == [])
    }

    @Test func collectionGroupsSpanParentsButNotOtherIds() throws {
        let (s, _) = try makeStore()
        try set(s, "users/u1/tasks/t1", ["v": .integer(1)])
        try set(s, "users/u2/tasks/t2", ["v": .integer(2)])
        try set(s, "tasks/t0", ["v": .integer(0)])
        try set(s, "users/u1/notes/n1", ["v": .integer(9)])
        let q: JSON = ["from": [["collectionId": "tasks", "allDescendants": true]]]
        #expect(try query(s, q) == ["tasks/t0", "users/u1/tasks/t1", "users/u2/tasks/t2"])
        #expect(try query(s, q, parent: "users/u1") == ["users/u1/tasks/t1"])
    }

    @Test(
        arguments: [
            (JSON.object(["from": [["collectionId": "c"]], "limit": -1]), "limit is negative"),
            (["from": [["collectionId": "c"]], "offset": -1], "offset is negative"),
            (["from": []], "exactly one 'from'"),
            (
                [
                    "from": [["collectionId": "c"]],
                    "where": [
                        "compositeFilter": [
                            "op": "AND",
                            "filters": [
                                fieldFilter("a", "NOT_EQUAL", ["integerValue": "1"]), fieldFilter("b", "NOT_EQUAL", ["integerValue": "1"]),
                            ],
                        ]
                    ],
                ], "Only a single 'NOT_EQUAL'"
            ),
            (["from": [["collectionId": "c"]], "where": fieldFilter("a", "IN", ["arrayValue": [:]])], "requires an non-empty ArrayValue"),
            (
                [
                    "from": [["collectionId": "c"]],
                    "where": [
                        "compositeFilter": [
                            "op": "AND",
                            "filters": [
                                fieldFilter("a", "IN", ["arrayValue": ["values": .array((0..<6).map { ["integerValue": .string(String($0))] })]]),
                                fieldFilter("b", "IN", ["arrayValue": ["values": .array((0..<6).map { ["integerValue": .string(String($0))] })]]),
                            ],
                        ]
                    ],
                ], "36 disjunctions"
            ),
            // 30^13 disjunctions overflow an Int: the count saturates instead of trapping.
            (
                [
                    "from": [["collectionId": "c"]],
                    "where": [
                        "compositeFilter": [
                            "op": "AND",
                            "filters": .array(
                                (0..<13).map { i in
                                    fieldFilter(
                                        "f\(i)", "IN", ["arrayValue": ["values": .array((0..<30).map { ["integerValue": .string("\($0)")] })]])
                                }),
                        ]
                    ],
                ], "more than the maximum of 30"
            ),
            // Production's limit on filters and orders; an AND of 20,000 equalities took 15 s.
            (
                [
                    "from": [["collectionId": "c"]], "orderBy": [["field": ["fieldPath": "z"]]],
                    "where": [
                        "compositeFilter": [
                            "op": "AND", "filters": .array((0..<100).map { i in fieldFilter("f\(i)", "EQUAL", ["integerValue": "1"]) }),
                        ]
                    ],
                ], "at most 100 filters and sort orders together; this one has 101"
            ),
            (
                [
                    "from": [["collectionId": "c"]], "orderBy": [["field": ["fieldPath": "a"]]],
                    "startAt": ["values": [["integerValue": "1"], ["integerValue": "2"], ["integerValue": "3"]]],
                ], "Cursor has too many values"
            ),
        ] as [(JSON, String)])
    func invalidQueriesAreRejected(json: JSON, fragment: String) {
        do {
            _ = try StructuredQuery(json: json)
            Issue.record("accepted \(json)")
        } catch let e as EmulatorError { #expect(e.message.contains(fragment), "\(e.message)") } catch { Issue.record("\(error)") }
    }

    @Test func readTimeSeesThePast() throws {
        let (s, env) = try makeStore()
        try set(s, "c/d", ["v": .integer(1)])
        let t1 = env.clock.now().adding(seconds: 0.5)
        try env.clock.advance(seconds: 1)
        try set(s, "c/d", ["v": .integer(2)])
        let old = try s.getDocument(project: "p", database: "(default)", path: "c/d", consistency: .readTime(t1), caller: .admin).value
        #expect(old.fields["v"] == .integer(1))
        _ = try s.commit(project: "p", database: "(default)", writes: [StoreWrite(path: "c/d", operation: .delete)], caller: .admin)
        #expect(
            try s.runQuery(
                project: "p", database: "(default)", parent: "", query: StructuredQuery(json: ["from": [["collectionId": "c"]]]),
                consistency: .readTime(t1), caller: .admin
            ).value.count == 1)
    }

    @Test func snapshotsAndResetsAreCopyOnWrite() throws {
        let (s, _) = try makeStore()
        try set(s, "c/a", ["v": .integer(1)])
        let snap = s.captureProject("p")
        try set(s, "c/a", ["v": .integer(2)])
        try set(s, "c/b", [:])
        try s.restoreProject("p", from: snap)
        #expect(try s.getDocument(project: "p", database: "(default)", path: "c/a", caller: .admin).value.fields["v"] == .integer(1))
        #expect(try query(s, ["from": [["collectionId": "c"]]]) == ["c/a"])
        try s.resetProject("p")
        #expect(try query(s, ["from": [["collectionId": "c"]]]) == [])
    }

    @Test func aggregationsCountSumAvg() throws {
        let docs = [["n": Value.integer(2)], ["n": .double(0.5)], ["n": .string("x")], [:]].enumerated().map {
            Document(path: "c/\($0.offset)", fields: $0.element, createTime: Timestamp(seconds: 0), updateTime: Timestamp(seconds: 0))
        }
        #expect(Aggregation(alias: "c", kind: .count(upTo: 3)).compute(docs) == .integer(3))
        #expect(Aggregation(alias: "s", kind: .sum(FieldPath(["n"]))).compute(docs) == .double(2.5))
        #expect(Aggregation(alias: "s", kind: .sum(FieldPath(["n"]))).compute(Array(docs.prefix(1))) == .integer(2))
        #expect(Aggregation(alias: "a", kind: .avg(FieldPath(["n"]))).compute(docs) == .double(1.25))
        #expect(Aggregation(alias: "a", kind: .avg(FieldPath(["n"]))).compute([]) == .null)
    }

    @Test func oversizedDocumentsAreRejected() throws {
        let (s, _) = try makeStore()
        #expect(throws: EmulatorError.self) { try set(s, "c/big", ["s": .string(String(repeating: "x", count: 1_100_000))]) }
    }
}

/// Denies writes to one path.
struct DenyPath: StoreAuthorizer {
    let path: String
    func authorize(_ access: StoreAccess) throws {
        if access.path == path { throw EmulatorError.permissionDenied("denied \(path)") }
    }
}

@Suite struct InPlaceCommitTests {
    @Test func aDeniedWriteUndoesTheWholeCommit() throws {
        let (s, _) = try makeStore()
        try set(s, "c/keep", ["v": .integer(1)])
        try set(s, "c/gone", ["v": .integer(1)])
        s.setAuthorizer(DenyPath(path: "c/denied"))
        let user = Caller.user(AuthContext(uid: "u", token: [:]))
        #expect(throws: EmulatorError.self) {
            _ = try s.commit(
                project: "p", database: "(default)",
                writes: [
                    StoreWrite(path: "c/keep", operation: .update(["v": .integer(2)])),
                    StoreWrite(path: "c/gone", operation: .delete),
                    StoreWrite(path: "c/new", operation: .update([:])),
                    StoreWrite(path: "c/denied", operation: .update([:])),
                ], caller: user)
        }
        #expect(try s.getDocument(project: "p", database: "(default)", path: "c/keep", caller: .admin).value.fields["v"] == .integer(1))
        #expect(try query(s, ["from": [["collectionId": "c"]]]) == ["c/gone", "c/keep"])
        // The "before" view given to the authorizer is the state before the commit.
        struct CheckBefore: StoreAuthorizer {
            func authorize(_ a: StoreAccess) throws {
                if a.path == "c/keep" {
                    guard a.reader.document(at: "c/keep")?.fields["v"] == .integer(1),
                        a.reader.documentAfter(at: "c/keep")?.fields["v"] == .integer(3)
                    else {
                        throw EmulatorError.internal("wrong before/after view")
                    }
                }
            }
        }
        s.setAuthorizer(CheckBefore())
        _ = try s.commit(
            project: "p", database: "(default)", writes: [StoreWrite(path: "c/keep", operation: .update(["v": .integer(3)]))], caller: user)
    }
}

@Suite struct NameOrderFastPathTests {
    @Test func fastPathAgreesWithTheGeneralPath() throws {
        let (s, _) = try makeStore()
        for i in 0..<50 {
            let n = (i * 37) % 50
            try set(s, "items/d\(n < 10 ? "0" : "")\(n)", ["tag": .string(i % 3 == 0 ? "x" : "y")])
        }
        let filter = fieldFilter("tag", "EQUAL", ["stringValue": "x"])
        let all = try query(s, ["from": [["collectionId": "items"]], "where": filter])
        let page = try query(s, ["from": [["collectionId": "items"]], "where": filter, "offset": 2, "limit": 5])
        #expect(page == Array(all.dropFirst(2).prefix(5)))
        #expect(try query(s, ["from": [["collectionId": "items"]], "limit": 0]) == [])
    }
}

@Suite struct EqualityIndexTests {
    @Test func indexedQueriesMatchScansAcrossWritesDeletesAndUndo() throws {
        let (s, _) = try makeStore()
        for i in 0..<60 { try set(s, "items/d\(i)", ["b": i % 3 == 0 ? .double(Double(i % 4)) : .integer(Int64(i % 4)), "s": .string("v\(i % 5)")]) }
        _ = try s.commit(
            project: "p", database: "(default)",
            writes: [
                StoreWrite(path: "items/d3", operation: .delete),
                StoreWrite(path: "items/d4", operation: .update(["b": .integer(9)])),
            ], caller: .admin)
        func scan(_ b: Value) throws -> [String] {
            // A range filter is never indexed: the scan is the reference answer.
            try query(
                s,
                [
                    "from": [["collectionId": "items"]],
                    "where": [
                        "compositeFilter": [
                            "op": "AND",
                            "filters": [
                                fieldFilter("b", "GREATER_THAN_OR_EQUAL", b.json), fieldFilter("b", "LESS_THAN_OR_EQUAL", b.json),
                            ],
                        ]
                    ],
                ])
        }
        for v in [Value.integer(1), .double(2), .integer(9), .integer(7)] {
            #expect(try query(s, ["from": [["collectionId": "items"]], "where": fieldFilter("b", "EQUAL", v.json)]) == (try scan(v)), "\(v)")
        }
        let inQuery = try query(
            s,
            [
                "from": [["collectionId": "items"]],
                "where": fieldFilter("b", "IN", ["arrayValue": ["values": [["integerValue": "1"], ["doubleValue": 2.0]]]]), "limit": 100,
            ])
        #expect(inQuery == (try (scan(.integer(1)) + scan(.integer(2))).sorted { DocumentName.compareNames($0, $1) < 0 }))
        #expect(try query(s, ["from": [["collectionId": "items"]], "where": fieldFilter("b", "EQUAL", ["doubleValue": "NaN"])]) == [])
    }
}
