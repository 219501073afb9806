import EmulatorCore

/// Reading request messages (proto3 JSON) the way both transports deliver them: JSON names or
/// proto names, a FieldMask as `{"paths": [...]}` (gRPC) or a comma-separated string (REST).
enum PubSubRequest {
    /// The string field `name` (JSON or proto spelling), "" when absent.
    static func string(_ r: JSON, _ json: String, _ proto: String? = nil) -> String {
        r[json]?.stringValue ?? proto.flatMap { r[$0]?.stringValue } ?? ""
    }

    /// An integer field, 0 when absent; a non-integer is INVALID_ARGUMENT naming it.
    static func int(_ r: JSON, _ json: String, _ proto: String) throws(EmulatorError) -> Int64 {
        guard let v = r[json] ?? r[proto], !v.isNull else { return 0 }
        if let i = v.intValue { return i }
        if let s = v.stringValue, let i = Int64(s) { return i }
        throw EmulatorError.invalidArgument("Invalid value for \(proto): must be an integer.")
    }

    /// A boolean field, false when absent.
    static func bool(_ r: JSON, _ json: String, _ proto: String) -> Bool { (r[json] ?? r[proto])?.boolValue ?? false }

    /// The repeated string field (`ackIds` / `ack_ids`).
    static func strings(_ r: JSON, _ json: String, _ proto: String) throws(EmulatorError) -> [String] {
        guard let v = r[json] ?? r[proto], !v.isNull else { return [] }
        guard let a = v.arrayValue else { throw EmulatorError.invalidArgument("Invalid value for \(proto): must be a list of strings.") }
        var out: [String] = []
        out.reserveCapacity(a.count)
        for x in a {
            guard let s = x.stringValue else { throw EmulatorError.invalidArgument("Invalid value for \(proto): must be a list of strings.") }
            out.append(s)
        }
        return out
    }

    /// The paths of an update mask, in proto (snake_case) spelling.
    static func maskPaths(_ r: JSON) -> [String] {
        guard let m = r["updateMask"] ?? r["update_mask"] else { return [] }
        let raw: [String]
        if let s = m.stringValue {
            raw = s.split(separator: ",").map { String($0).trimmingScalars { $0 == " " } }
        } else {
            raw = (m["paths"]?.arrayValue ?? []).compactMap(\.stringValue)
        }
        return raw.filter { !$0.isEmpty }.map(snakeCase)
    }

    /// `ackDeadlineSeconds` → `ack_deadline_seconds` (dotted paths segment by segment).
    static func snakeCase(_ s: String) -> String {
        var out = ""
        for c in s {
            if c.isUppercase, c.isASCII {
                out.append("_")
                out.append(Character(c.lowercased()))
            } else {
                out.append(c)
            }
        }
        return out
    }

    /// lowerCamelCase of a snake_case proto name (the JSON key the resource is stored under).
    static func camelCase(_ s: String) -> String {
        var out = ""
        var upper = false
        for c in s {
            if c == "_" {
                upper = true
                continue
            }
            out.append(upper ? Character(c.uppercased()) : c)
            upper = false
        }
        return out
    }

    /// Converts every key of a resource to its JSON (lowerCamelCase) spelling, one level deep for
    /// the top level and recursively below, except inside map-valued fields (`labels`,
    /// `attributes`, `tags`), whose keys are user data.
    static func jsonKeys(_ v: JSON) -> JSON {
        guard case .object(let o) = v else { return v }
        var out: UTF8Dictionary<JSON> = [:]
        for (k, x) in o {
            let key = camelCase(k)
            out[key] = ["labels", "attributes", "tags"].contains(key) ? x : (x.arrayValue.map { .array($0.map(jsonKeys)) } ?? jsonKeys(x))
        }
        return .object(out)
    }

    /// A page of sorted `names` after `pageToken`, at most `pageSize` (0: all), and the next token.
    static func page(_ names: [String], _ r: JSON) throws(EmulatorError) -> ([String], String?) {
        let size = try int(r, "pageSize", "page_size")
        guard size >= 0 else { throw EmulatorError.invalidArgument("page_size must not be negative.") }
        let token = string(r, "pageToken", "page_token")
        var start = 0
        if !token.isEmpty {
            start = names.firstIndex { $0 > token } ?? names.count
        }
        let limit = size == 0 ? names.count : Int(min(size, Int64(names.count)))
        let end = min(names.count, start + limit)
        let slice = Array(names[start..<end])
        return (slice, end < names.count ? slice.last : nil)
    }
}
