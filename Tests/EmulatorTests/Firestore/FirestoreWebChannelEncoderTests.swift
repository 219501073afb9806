import EmulatorCore
import EmulatorStore
import Testing

@testable import Emulator

@Suite struct FirestoreWebChannelEncoderTests {
    let doc = Document(
        path: "tasks/t1", fields: ["title": .string("héllo 😀"), "n": .integer(-3), "tags": .array([.boolean(true)])],
        createTime: Timestamp(seconds: 1_800_000_000), updateTime: Timestamp(seconds: 1_800_000_001, nanos: 5000))

    /// The hand-assembled payload parses to exactly `[<the message's JSON form>]`, and is ASCII.
    @Test(arguments: [([Int32(2)], [Int32]()), ([2, 4], [6]), ([], [-1])])
    func documentChangesMatchTheGenericForm(_ targets: [Int32], _ removed: [Int32]) throws {
        let encoder = FirestoreWebChannelEncoder()
        for shared in [false, true, true] {  // the second shared one comes from the cache
            let message = ListenMessage.documentChange(doc, targets: targets, removed: removed, shared: shared)
            let payload = encoder.payload(message, project: "p", database: "(default)")
            #expect(payload.allSatisfy { $0 < 0x80 })
            #expect(try JSON.parse(payload) == [message.json(project: "p", database: "(default)")])
        }
        let other = ListenMessage.json(["targetChange": ["targetChangeType": "ADD", "targetIds": [2]]])
        #expect(try JSON.parse(encoder.payload(other, project: "p", database: "(default)")) == [other.json(project: "p", database: "(default)")])
    }

    @Test func theCacheKnowsUpdateTimesAndProjects() {
        let encoder = FirestoreWebChannelEncoder()
        var later = doc
        later.fields["n"] = .integer(4)
        later.updateTime = Timestamp(seconds: 1_800_000_002)
        let a = encoder.payload(.documentChange(doc, targets: [1], removed: [], shared: true), project: "p", database: "(default)")
        #expect(a != encoder.payload(.documentChange(later, targets: [1], removed: [], shared: true), project: "p", database: "(default)"))
        #expect(a != encoder.payload(.documentChange(doc, targets: [1], removed: [], shared: true), project: "q", database: "(default)"))
    }
}
