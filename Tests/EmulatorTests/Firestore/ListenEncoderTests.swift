import EmulatorCore
import EmulatorProtobuf
import EmulatorStore
import Testing

@testable import Emulator

@Suite struct ListenEncoderTests {
    let doc = Document(
        path: "tasks/t1", fields: ["title": .string("milk"), "n": .integer(-3), "tags": .array([.boolean(true)])],
        createTime: Timestamp(seconds: 1_800_000_000), updateTime: Timestamp(seconds: 1_800_000_001, nanos: 5000))

    /// The hand-assembled DocumentChange decodes to exactly the JSON form's message.
    @Test(arguments: [([Int32(2)], [Int32]()), ([2, 4], [6]), ([], [-1])])
    func documentChangesMatchTheGenericEncoding(_ targets: [Int32], _ removed: [Int32]) throws {
        let encoder = ListenEncoder()
        for shared in [false, true, true] {  // the second shared one comes from the cache
            let message = ListenMessage.documentChange(doc, targets: targets, removed: removed, shared: shared)
            let fast = try encoder.encode(message, project: "p", database: "(default)")
            let generic = try ProtoJSON.encode(message.json(project: "p", database: "(default)"), as: FirestoreSchemas.listenResponse)
            #expect(try ProtoJSON.decode(fast, as: FirestoreSchemas.listenResponse) == ProtoJSON.decode(generic, as: FirestoreSchemas.listenResponse))
        }
    }

    @Test func theCacheKnowsUpdateTimes() throws {
        let encoder = ListenEncoder()
        var later = doc
        later.fields["n"] = .integer(4)
        later.updateTime = Timestamp(seconds: 1_800_000_002)
        let a = try encoder.encode(.documentChange(doc, targets: [1], removed: [], shared: true), project: "p", database: "(default)")
        let b = try encoder.encode(.documentChange(later, targets: [1], removed: [], shared: true), project: "p", database: "(default)")
        #expect(a != b)
        let c = try encoder.encode(.documentChange(doc, targets: [1], removed: [], shared: true), project: "q", database: "(default)")
        #expect(c != a, "another project's document of the same path is another document")
    }
}
