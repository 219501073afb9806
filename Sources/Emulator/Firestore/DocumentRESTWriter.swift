import EmulatorCore
import EmulatorStore

/// A stored document's REST JSON written straight to bytes: exactly the bytes of
/// `document.json(project:database:).serializedBytes()` (compact, keys sorted by their bytes),
/// without building the JSON tree first, a dictionary per value, that the serializer then sorts
/// and walks. Every create answers with this, and every first read of a version caches it.
enum DocumentRESTWriter {
    /// The REST JSON of `d` named in `project`/`database`.
    static func bytes(_ d: Document, project: String, database: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(192)
        // Keys in byte order: createTime, fields, name, updateTime.
        raw(#"{"createTime":"#, &out)
        string(d.createTime.rfc3339(), &out)
        if !d.fields.isEmpty {
            raw(#","fields":"#, &out)
            fields(d.fields, &out)
        }
        raw(#","name":"#, &out)
        string(DocumentName.full(project: project, database: database, path: d.path), &out)
        raw(#","updateTime":"#, &out)
        string(d.updateTime.rfc3339(), &out)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// A `fields` object: names in byte order, each with its value's object.
    static func fields(_ m: FieldMap, _ out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        // Sorted here on the concrete dictionary (`sortedByKey` is generic code, several times
        // the cost for a handful of fields); the same byte order.
        for (n, (key, v)) in m.storage.sorted(by: { $0.key < $1.key }).enumerated() {
            if n > 0 { out.append(UInt8(ascii: ",")) }
            string(key.string, &out)
            out.append(UInt8(ascii: ":"))
            value(v, &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// One value's proto3 JSON object (`Value.json`).
    static func value(_ v: Value, _ out: inout [UInt8]) {
        switch v {
        case .null: raw(#"{"nullValue":null}"#, &out)
        case .boolean(let b): raw(b ? #"{"booleanValue":true}"# : #"{"booleanValue":false}"#, &out)
        case .integer(let i):
            raw(#"{"integerValue":""#, &out)
            out.append(contentsOf: String(i).utf8)
            raw(#""}"#, &out)
        case .double(let d):
            raw(#"{"doubleValue":"#, &out)
            out.append(contentsOf: JSON.double(d).serializedBytes())
            out.append(UInt8(ascii: "}"))
        case .timestamp(let t):
            raw(#"{"timestampValue":"#, &out)
            string(t.rfc3339(), &out)
            out.append(UInt8(ascii: "}"))
        case .string(let s):
            raw(#"{"stringValue":"#, &out)
            string(s, &out)
            out.append(UInt8(ascii: "}"))
        case .bytes(let b):
            raw(#"{"bytesValue":"#, &out)
            string(Base64.encode(b), &out)
            out.append(UInt8(ascii: "}"))
        case .reference(let r):
            raw(#"{"referenceValue":"#, &out)
            string(r, &out)
            out.append(UInt8(ascii: "}"))
        case .geoPoint(let lat, let lng):
            raw(#"{"geoPointValue":{"latitude":"#, &out)
            out.append(contentsOf: JSON.double(lat).serializedBytes())
            raw(#","longitude":"#, &out)
            out.append(contentsOf: JSON.double(lng).serializedBytes())
            raw("}}", &out)
        case .array(let a):
            guard !a.isEmpty else { return raw(#"{"arrayValue":{}}"#, &out) }
            raw(#"{"arrayValue":{"values":["#, &out)
            for (n, item) in a.enumerated() {
                if n > 0 { out.append(UInt8(ascii: ",")) }
                value(item, &out)
            }
            raw("]}}", &out)
        case .map(let m):
            guard !m.isEmpty else { return raw(#"{"mapValue":{}}"#, &out) }
            raw(#"{"mapValue":{"fields":"#, &out)
            fields(m, &out)
            raw("}}", &out)
        }
    }

    /// A JSON string, escaped as `JSON` escapes it: copied whole when nothing in it needs an
    /// escape (names, ids, times, most values), else written by `JSON` itself.
    static func string(_ s: String, _ out: inout [UInt8]) {
        guard s.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: s.utf8)
            out.append(UInt8(ascii: "\""))
            return
        }
        out.append(contentsOf: JSON.string(s).serializedBytes())
    }

    static func raw(_ s: StaticString, _ out: inout [UInt8]) {
        s.withUTF8Buffer { out.append(contentsOf: $0) }
    }
}
