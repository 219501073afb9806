import EmulatorCore
import EmulatorStore

/// Decoding helpers for the members that many Firestore request messages share (proto3 JSON):
/// masks, read consistency, transaction ids, timestamps, `orderBy` text.
enum FirestoreRequest {
    /// `mask.fieldPaths` of a request (a `DocumentMask`); nil when absent.
    static func mask(_ body: UTF8Dictionary<JSON>) throws -> FieldMask? {
        // A mask that is present but lists no paths asks for no fields (`get(field_paths=[])`).
        guard case .object(let m)? = body["mask"] else { return nil }
        guard case .array(let paths)? = m["fieldPaths"] else { return [] }
        return FieldMask(try paths.map { try FieldPath(parsing: $0.stringValue ?? "") })
    }

    /// A transaction id (base64 bytes, non-empty); nil when absent.
    static func transactionId(_ v: JSON?) throws -> [UInt8]? {
        guard let v, !v.isNull else { return nil }
        guard let s = v.stringValue, let bytes = Base64.decode(s), !bytes.isEmpty else {
            throw EmulatorError.invalidArgument("Invalid transaction.")
        }
        return bytes
    }

    /// An RFC 3339 timestamp member; nil when absent.
    static func timestamp(_ v: JSON?, _ name: String) throws -> Timestamp? {
        guard let v, !v.isNull else { return nil }
        guard let s = v.stringValue, let t = Timestamp(rfc3339: s) else {
            throw EmulatorError.invalidArgument("'\(name)' must be an RFC 3339 timestamp.")
        }
        return t
    }

    /// Consistency from a request body (`transaction`, `newTransaction`, `readTime`).
    static func consistency(_ body: UTF8Dictionary<JSON>) throws -> ReadConsistency {
        // One walk over the members (a read request has two or three), not three hashed lookups:
        // this runs for every read.
        var transaction: JSON?, newTransaction: JSON?, readTime: JSON?
        for (key, value) in body.storage {
            let name = key.string
            switch name.utf8.count {
            case 8 where name.utf8Equals("readTime"): readTime = value
            case 11 where name.utf8Equals("transaction"): transaction = value
            case 14 where name.utf8Equals("newTransaction"): newTransaction = value
            default: break
            }
        }
        let given = (isSet(transaction) ? 1 : 0) + (isSet(newTransaction) ? 1 : 0) + (isSet(readTime) ? 1 : 0)
        guard given <= 1 else { throw EmulatorError.invalidArgument("Only one of transaction, newTransaction and readTime may be set.") }
        if given == 0 { return .latest }
        if let id = try transactionId(transaction) { return .transaction(id) }
        if case .object(let opts)? = newTransaction {
            if let rw = opts["readWrite"], !rw.isNull { return .newTransaction(readOnly: false, readTime: nil) }
            return .newTransaction(readOnly: true, readTime: try timestamp(opts["readOnly"]?["readTime"], "readOnly.readTime"))
        }
        if let t = try timestamp(readTime, "readTime") { return .readTime(t) }
        return .latest
    }

    /// Present and not null.
    private static func isSet(_ value: JSON?) -> Bool {
        guard let value else { return false }
        return !value.isNull
    }

    /// The fields of a `Document` message (`{"fields": {...}}`).
    static func fields(_ document: JSON?) throws -> FieldMap {
        try Value.decodeFieldsPublic(document?["fields"])
    }

    /// `orderBy` of ListDocuments: `"a desc, __name__"`.
    static func orderBy(_ text: String?) throws -> [StructuredQuery.Order] {
        guard let text, !text.isEmpty else { return [] }
        return try text.split(separator: ",").map { part in
            let words = part.split(separator: " ").map(String.init)
            guard (1...2).contains(words.count) else { throw EmulatorError.invalidArgument("Invalid orderBy '\(text)'.") }
            let desc = words.count == 2 && words[1].lowercased() == "desc"
            if words.count == 2 && !["asc", "desc"].contains(words[1].lowercased()) {
                throw EmulatorError.invalidArgument("Invalid orderBy direction '\(words[1])'.")
            }
            return StructuredQuery.Order(field: try FieldPath(parsing: words[0]), descending: desc)
        }
    }
}
