import EmulatorCore
import Testing

@testable import EmulatorStore

/// `arrayUnion` and `arrayRemove` test membership through `ValueSet`, with Firestore's equality.
@Suite struct ValueSetTests {
    @Test func equalValuesAreMembersWhateverTheirRepresentation() {
        var set = ValueSet([.integer(1), .double(.nan), .string("a"), .array([.integer(2)]), .map(["k": .double(0)])])
        #expect(set.contains(.double(1.0)) && set.contains(.integer(1)))
        #expect(set.contains(.double(.nan)) && set.contains(.string("a")) && !set.contains(.string("A")))
        #expect(set.contains(.array([.double(2)])) && set.contains(.map(["k": .double(-0.0)])) && set.contains(.map(["k": .integer(0)])))
        #expect(!set.contains(.integer(2)) && !set.contains(.null) && !set.contains(.boolean(true)))
        // Past 9.2e18 the equality hash keeps integers and doubles apart; they still compare equal.
        let big = Int64(1) << 62 + Int64(1) << 61 + Int64(1) << 60
        set.insert(.integer(big))
        #expect(set.contains(.double(Double(big))))
    }

    @Test func aLargeArrayUnionKeepsOrderAndDropsDuplicates() throws {
        let envs = LocalEnvironmentProvider()
        let s = StoreService(environments: envs)
        let items: JSON = .array((0..<30_000).map { ["integerValue": .string("\($0 % 20_000)")] })
        let union = try FieldTransform(json: ["fieldPath": "a", "appendMissingElements": ["values": items]])
        _ = try s.commit(
            project: "p", database: "(default)", writes: [StoreWrite(path: "c/d", operation: .transform, transforms: [union])], caller: .admin)
        var doc = try s.getDocument(project: "p", database: "(default)", path: "c/d", caller: .admin).value.fields
        #expect(doc["a"] == .array((0..<20_000).map { .integer(Int64($0)) }))
        let remove = try FieldTransform(json: [
            "fieldPath": "a", "removeAllFromArray": ["values": .array((0..<19_990).map { ["doubleValue": .double(Double($0))] })],
        ])
        _ = try s.commit(
            project: "p", database: "(default)", writes: [StoreWrite(path: "c/d", operation: .transform, transforms: [remove])], caller: .admin)
        doc = try s.getDocument(project: "p", database: "(default)", path: "c/d", caller: .admin).value.fields
        #expect(doc["a"] == .array((19_990..<20_000).map { .integer(Int64($0)) }))
    }
}
