import EmulatorCore
import EmulatorFunctions
import EmulatorProtobuf
import Testing

@testable import Emulator

@Suite struct DocumentEventEncoderTests {
    let after: JSON = [
        "name": "projects/p/databases/(default)/documents/tasks/t1", "createTime": "2026-01-02T03:04:05.123456Z",
        "updateTime": "2026-01-02T03:04:06Z",
        "fields": [
            "n": ["integerValue": "0"], "ok": ["booleanValue": false], "tags": ["arrayValue": ["values": [["stringValue": "a"]]]],
            "m": ["mapValue": ["fields": ["x": ["nullValue": nil]]]],
        ],
    ]

    @Test func encodesDocumentEventDataThatDecodesBackToTheDocuments() throws {
        let before: JSON = [
            "name": "projects/p/databases/(default)/documents/tasks/t1", "fields": ["n": ["integerValue": "1"]],
            "createTime": "2026-01-02T03:04:05.123456Z", "updateTime": "2026-01-02T03:04:05.123456Z",
        ]
        let bytes = try ProtobufDocumentEventEncoder().encode(value: after, oldValue: before, updateMask: ["n", "ok"])
        let back = try ProtoJSON.decode(bytes, as: FirestoreSchemas.documentEventData)
        #expect(back["value"] == after && back["oldValue"] == before && back["updateMask"] == ["fieldPaths": ["n", "ok"]])
        // Defaults inside the oneof are still written (an integer 0, a false), or the SDK would see no value.
        #expect(back["value"]?["fields"]?["n"] == ["integerValue": "0"] && back["value"]?["fields"]?["ok"] == ["booleanValue": false])
    }

    @Test func aCreationHasOnlyTheValue() throws {
        let bytes = try ProtobufDocumentEventEncoder().encode(value: after, oldValue: nil, updateMask: [])
        #expect(bytes.first == 0x0A)  // field 1 (value), length-delimited
        #expect(try ProtoJSON.decode(bytes, as: FirestoreSchemas.documentEventData).objectValue?.keys.sorted() == ["value"])
        #expect(throws: HttpsError.self) { try ProtobufDocumentEventEncoder().encode(value: ["fields": "not a map"], oldValue: nil, updateMask: []) }
    }
}
