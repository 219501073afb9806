import EmulatorCore
import EmulatorHTTP
import EmulatorStore

/// Decoding helpers shared by the store routes: masks, preconditions, read consistency and
/// transaction ids, from query parameters (GET/PATCH/DELETE) or bodies (the `:verb` methods).
enum StoreRequest {
    static func mask(_ req: HTTPRequest) throws -> [FieldPath]? {
        let paths = req.queryValues("mask.fieldPaths")
        return paths.isEmpty ? nil : try paths.map { try FieldPath(parsing: $0) }
    }

    static func mask(_ body: [String: JSON]) throws -> [FieldPath]? {
        guard case .object(let m)? = body["mask"], case .array(let paths)? = m["fieldPaths"] else { return nil }
        return try paths.map { try FieldPath(parsing: $0.stringValue ?? "") }
    }

    static func transactionId(_ v: JSON?) throws -> [UInt8]? {
        guard let v, !v.isNull else { return nil }
        guard let s = v.stringValue, let bytes = Base64.decode(s), !bytes.isEmpty else {
            throw EmulatorError.invalidArgument("Invalid transaction.")
        }
        return bytes
    }

    static func timestamp(_ v: JSON?, _ name: String) throws -> Timestamp? {
        guard let v, !v.isNull else { return nil }
        guard let s = v.stringValue, let t = Timestamp(rfc3339: s) else { throw EmulatorError.invalidArgument("'\(name)' must be an RFC 3339 timestamp.") }
        return t
    }

    /// Consistency from a query string (`transaction`, `readTime`).
    static func consistency(_ req: HTTPRequest) throws -> ReadConsistency {
        if let t = req.query("transaction") {
            guard let id = try transactionId(.string(t)) else { throw EmulatorError.invalidArgument("Invalid transaction.") }
            return .transaction(id)
        }
        if let r = req.query("readTime") { return .readTime(try timestamp(.string(r), "readTime")!) }
        return .latest
    }

    /// Consistency from a request body (`transaction`, `newTransaction`, `readTime`).
    static func consistency(_ body: [String: JSON]) throws -> ReadConsistency {
        let given = ["transaction", "newTransaction", "readTime"].filter { body[$0] != nil && body[$0] != .null }
        guard given.count <= 1 else { throw EmulatorError.invalidArgument("Only one of transaction, newTransaction and readTime may be set.") }
        if let id = try transactionId(body["transaction"]) { return .transaction(id) }
        if case .object(let opts)? = body["newTransaction"] {
            if let rw = opts["readWrite"], !rw.isNull { return .newTransaction(readOnly: false, readTime: nil) }
            return .newTransaction(readOnly: true, readTime: try timestamp(opts["readOnly"]?["readTime"], "readOnly.readTime"))
        }
        if let t = try timestamp(body["readTime"], "readTime") { return .readTime(t) }
        return .latest
    }

    /// `currentDocument.exists` / `currentDocument.updateTime` from the query string.
    static func precondition(_ req: HTTPRequest) throws -> Precondition? {
        if let e = req.query("currentDocument.exists") {
            guard let b = Bool(e) else { throw EmulatorError.invalidArgument("currentDocument.exists must be true or false.") }
            return .exists(b)
        }
        if let u = req.query("currentDocument.updateTime") { return .updateTime(try timestamp(.string(u), "currentDocument.updateTime")!.truncatedToMicroseconds) }
        return nil
    }

    /// The document fields of a REST `Document` body.
    static func fields(_ body: [String: JSON]) throws -> [String: Value] {
        try Value.decodeFieldsPublic(body["fields"])
    }

    /// `orderBy` of ListDocuments: `"a desc, __name__"`.
    static func orderBy(_ text: String?) throws -> [StructuredQuery.Order] {
        guard let text, !text.isEmpty else { return [] }
        return try text.split(separator: ",").map { part in
            let words = part.split(separator: " ").map(String.init)
            guard (1...2).contains(words.count) else { throw EmulatorError.invalidArgument("Invalid orderBy '\(text)'.") }
            let desc = words.count == 2 && words[1].lowercased() == "desc"
            if words.count == 2 && !["asc", "desc"].contains(words[1].lowercased()) { throw EmulatorError.invalidArgument("Invalid orderBy direction '\(words[1])'.") }
            return StructuredQuery.Order(field: try FieldPath(parsing: words[0]), descending: desc)
        }
    }
}
