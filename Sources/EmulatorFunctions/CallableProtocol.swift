import EmulatorCore

/// The callable wire protocol (firebase-functions `https.ts`), as pure functions:
/// `POST` + `application/json` + `{"data": ...}` in, `{"result": ...}` or
/// `{"error": {status, message, details}}` out, with the canonical status → HTTP mapping.
public enum CallableProtocol {
    static let int64Type = "type.googleapis.com/google.protobuf.Int64Value"
    static let uint64Type = "type.googleapis.com/google.protobuf.UInt64Value"

    /// Validates the request and returns the decoded `data` (Int64 wrappers unwrapped).
    public static func decodeRequest(method: String, contentType: String?, body: [UInt8]) throws -> JSON {
        guard method == "POST" else { throw HttpsError(.invalidArgument, "Bad Request") }
        let ct = contentType?.split(separator: ";").first?.trimming(" ").lowercased()
        guard ct == "application/json" else { throw HttpsError(.invalidArgument, "Bad Request") }
        guard case .object(let o)? = try? JSON.parse(body), o.count == 1, let data = o["data"] else {
            throw HttpsError(.invalidArgument, "Bad Request")
        }
        return try decode(data)
    }

    /// Replaces `@type` Int64/UInt64 wrappers by numbers; any other `@type`, or a wrapper without a
    /// numeric string `value`, is the caller's bad input: `INVALID_ARGUMENT` "Bad Request" (the SDKs
    /// never send one; firebase-functions answers `INTERNAL` there, a 500 for a client's mistake).
    public static func decode(_ v: JSON) throws -> JSON {
        switch v {
        case .array(let a): return .array(try a.map(decode))
        case .object(let o):
            if let t = o["@type"]?.stringValue {
                guard t == int64Type || t == uint64Type, let s = o["value"]?.stringValue else {
                    throw HttpsError(.invalidArgument, "Bad Request")
                }
                if let i = Int64(s) { return .int(i) }
                guard let d = Double(s) else { throw HttpsError(.invalidArgument, "Bad Request") }
                return .double(d)
            }
            return .object(try o.mapValues(decode))
        default: return v
        }
    }

    /// `{"result": value}` with status 200.
    public static func success(_ result: JSON) -> (status: Int, body: JSON) { (200, ["result": result]) }

    /// The error body and HTTP status for anything a function threw.
    public static func failure(_ error: any Error) -> (status: Int, body: JSON) {
        let e = (error as? HttpsError) ?? HttpsError(.internal, "INTERNAL")
        var inner: UTF8Dictionary<JSON> = ["status": .string(e.code.rawValue), "message": .string(e.message)]
        if let d = e.details { inner["details"] = d }
        return (e.code.httpStatus, ["error": .object(inner)])
    }
}
