import EmulatorCore
import EmulatorProtobuf
import EmulatorStore

/// One response message of a Firestore RPC as the API hands it to a transport: a proto3 JSON
/// tree, or a message whose document member is a stored version (a query result, a batchGet
/// `found`) or a list of them (ListDocuments' `documents`), so the transport splices in each
/// version's cached encoding instead of encoding it again (`DocumentReply`, `DocumentEncodings`).
enum FirestoreMessage: Sendable {
    /// A message in proto3 JSON form.
    case json(JSON)
    /// A message of the members `rest` plus the document `document` under `member`.
    case document(member: String, DocumentReply, rest: UTF8Dictionary<JSON>)
    /// A message of the members `rest` plus the repeated document member `member` (ListDocuments'
    /// `documents`, the UI's page); an empty list is written as `[]` in JSON, nothing in protobuf.
    case documents(member: String, [DocumentReply], rest: UTF8Dictionary<JSON>)

    /// The whole message as a JSON tree (encodes the document).
    var json: JSON {
        switch self {
        case .json(let j): return j
        case .document(let member, let d, var rest):
            rest[member] = d.json
            return .object(rest)
        case .documents(let member, let docs, var rest):
            rest[member] = .array(docs.map(\.json))
            return .object(rest)
        }
    }

    /// The compact JSON bytes, as `JSON.serializedBytes()` writes `json` (sorted keys): the
    /// document's bytes go first when its member name sorts before every other one (`document`,
    /// `found`), else the whole tree is written.
    func restJSON() -> [UInt8] {
        var out: [UInt8] = []
        restJSON(into: &out)
        return out
    }

    /// `restJSON()` appended to `out`: a streamed answer writes every message into one buffer
    /// (a buffer per message grew several times for each document it copied).
    func restJSON(into out: inout [UInt8]) {
        let member: String, rest: UTF8Dictionary<JSON>
        switch self {
        case .json(let j): return j.write(to: &out)
        case .document(let m, _, let r), .documents(let m, _, let r): (member, rest) = (m, r)
        }
        let key = UTF8Key(member)
        guard rest.storage.keys.allSatisfy({ key < $0 }) else { return json.write(to: &out) }
        out.append(UInt8(ascii: "{"))
        JSON.string(member).write(to: &out)
        out.append(UInt8(ascii: ":"))
        switch self {
        case .json: break
        case .document(_, let d, _): out.append(contentsOf: d.restJSON())  // no array of one: an allocation per query result
        case .documents(_, let docs, _):
            out.append(UInt8(ascii: "["))
            for (i, d) in docs.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: d.restJSON())
            }
            out.append(UInt8(ascii: "]"))
        }
        if !rest.isEmpty {
            // Written in place after the documents, `{` replaced by `,`.
            let at = out.count
            JSON.object(rest).write(to: &out)
            out[at] = UInt8(ascii: ",")
        } else {
            out.append(UInt8(ascii: "}"))
        }
    }

    /// The protobuf bytes of the message as `schema`: the document's bytes as its field (first,
    /// as a length-delimited field), then the other members.
    func protobuf(as schema: MessageSchema) throws -> [UInt8] {
        let member: String, rest: UTF8Dictionary<JSON>
        switch self {
        case .json(let j): return try ProtoJSON.encode(j, as: schema)
        case .document(let m, _, let r), .documents(let m, _, let r): (member, rest) = (m, r)
        }
        guard let field = schema.field(named: member) else { return try ProtoJSON.encode(json, as: schema) }
        var out: [UInt8] = []
        switch self {
        case .json: break
        case .document(_, let d, _): ListenEncoder.lengthDelimited(field.number, try d.protobuf(), into: &out)
        case .documents(_, let docs, _): for d in docs { ListenEncoder.lengthDelimited(field.number, try d.protobuf(), into: &out) }
        }
        if !rest.isEmpty { out.append(contentsOf: try ProtoJSON.encode(.object(rest), as: schema)) }
        return out
    }
}
