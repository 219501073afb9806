import EmulatorCore
import EmulatorFunctions
import EmulatorProtobuf

/// Encodes a document change as `google.events.cloud.firestore.v1.DocumentEventData`, the body of
/// a Firestore CloudEvent: the REST documents are already that message's proto3 JSON form.
struct ProtobufDocumentEventEncoder: DocumentEventEncoder {
    func encode(value: JSON?, oldValue: JSON?, updateMask: [String]) throws -> [UInt8] {
        var o: UTF8Dictionary<JSON> = [:]
        if let value { o["value"] = value }
        if let oldValue { o["oldValue"] = oldValue }
        if !updateMask.isEmpty { o["updateMask"] = ["fieldPaths": .array(updateMask.map { .string($0) })] }
        do {
            return try ProtoJSON.encode(.object(o), as: FirestoreSchemas.documentEventData)
        } catch {
            throw HttpsError(.internal, "cannot encode the document event: \(error)")
        }
    }
}
