import EmulatorCore

extension Value {
    /// The deepest map/array nesting Firestore accepts.
    public static let maxDepth = 20

    /// Decodes the proto3 JSON form (`{"integerValue": "1"}`, ...). Lenient where the official
    /// emulator is: integers as numbers, doubles as strings. Errors name the problem and the field.
    public init(json: JSON, field: String = "value") throws {
        try self.init(json: json, field: field, depth: 0)
    }

    init(json: JSON, field: String, depth: Int) throws {
        guard depth <= Value.maxDepth else {
            throw EmulatorError.invalidArgument("Value at '\(field)' is nested deeper than \(Value.maxDepth) levels.")
        }
        guard case .object(let o) = json, o.count == 1, let (kind, v) = o.first else {
            throw EmulatorError.invalidArgument(
                "Invalid value at '\(field)': expected an object with exactly one of nullValue, booleanValue, integerValue, doubleValue, timestampValue, stringValue, bytesValue, referenceValue, geoPointValue, arrayValue, mapValue."
            )
        }
        func bad(_ what: String) -> EmulatorError { .invalidArgument("Invalid \(kind) at '\(field)': \(what).") }
        switch kind {
        case "nullValue":
            guard v.isNull || v.stringValue == "NULL_VALUE" || v.intValue == 0 else { throw bad("expected null") }
            self = .null
        case "booleanValue":
            guard let b = v.boolValue else { throw bad("expected true or false") }
            self = .boolean(b)
        case "integerValue":
            if let s = v.stringValue, let i = Int64(s) {
                self = .integer(i)
            } else if case .int(let i) = v {
                self = .integer(i)
            } else {
                throw bad("expected a 64-bit integer as a decimal string")
            }
        case "doubleValue":
            guard let d = Value.protoDouble(v) else { throw bad("expected a number, \"NaN\", \"Infinity\" or \"-Infinity\"") }
            self = .double(d)
        case "timestampValue":
            guard let s = v.stringValue, let t = Timestamp(rfc3339: s) else { throw bad("expected an RFC 3339 timestamp") }
            guard t.isInFirestoreRange else { throw bad("timestamp out of range (years 1-9999)") }
            self = .timestamp(t.truncatedToMicroseconds)
        case "stringValue":
            guard let s = v.stringValue else { throw bad("expected a string") }
            self = .string(s)
        case "bytesValue":
            guard let s = v.stringValue, let b = Base64.decode(s) else { throw bad("expected base64") }
            self = .bytes(b)
        case "referenceValue":
            guard let s = v.stringValue, DocumentName.isValidReference(s) else {
                throw bad("expected a document name projects/{project}/databases/{database}/documents/{path}")
            }
            self = .reference(s)
        case "geoPointValue":
            guard case .object(let g) = v else { throw bad("expected {latitude, longitude}") }
            // proto3 JSON doubles: numbers, or the strings "NaN", "Infinity", "-Infinity". NaN is
            // outside every range, so production refuses GeoPoint(NaN, 0) (never stores it as 0).
            func coordinate(_ name: String, _ limit: Double) throws -> Double {
                guard let j = g[name], !j.isNull else { return 0 }
                guard let d = Value.protoDouble(j) else { throw bad("\(name) must be a number") }
                guard (-limit...limit).contains(d) else {
                    throw EmulatorError.invalidArgument(
                        "Geo point \(name) '\(Value.javaDouble(d))' outside permitted range \(Value.javaDouble(-limit)) to \(Value.javaDouble(limit))."
                    )
                }
                return d
            }
            let lat = try coordinate("latitude", 90), lng = try coordinate("longitude", 180)
            self = .geoPoint(latitude: lat, longitude: lng)
        case "arrayValue":
            guard case .object(let a) = v else { throw bad("expected {values: [...]}") }
            var items: [Value] = []
            if let values = a["values"], !values.isNull {
                guard case .array(let list) = values else { throw bad("'values' must be an array") }
                for (i, item) in list.enumerated() {
                    let element = try Value(json: item, field: "\(field)[\(i)]", depth: depth + 1)
                    if case .array = element { throw EmulatorError.invalidArgument("Cannot convert an array value in an array value.") }
                    // Production stores no vector inside an array (its message, as Google's emulator gives it).
                    if element.isVector { throw EmulatorError.invalidArgument("Cannot convert a vector value in an array value.") }
                    items.append(element)
                }
            }
            self = .array(items)
        case "mapValue":
            guard case .object(let m) = v else { throw bad("expected {fields: {...}}") }
            let fields = try Value.decodeFields(m["fields"], field: field, depth: depth + 1)
            if fields["__type__"] != nil { try Value.validateTypedMap(fields, field: field) }
            self = .map(fields)
        default:
            throw EmulatorError.invalidArgument("Invalid value at '\(field)': unknown value kind '\(kind)'.")
        }
    }

    /// Decodes a `fields` map, rejecting reserved `__x__` names (except a vector's `__type__`).
    static func decodeFields(_ json: JSON?, field: String, depth: Int) throws -> FieldMap {
        guard let json, !json.isNull else { return [:] }
        guard case .object(let o) = json else { throw EmulatorError.invalidArgument("'fields' at '\(field)' must be an object.") }
        var out = FieldMap()
        out.reserveCapacity(o.count)
        for (k, v) in o {
            let path = field == "fields" ? k : "\(field).\(k)"
            try FieldPath.validateName(k, allowVectorType: k.utf8Equals("__type__") && v["stringValue"] != nil)
            out[k] = try Value(json: v, field: path, depth: depth)
        }
        return out
    }

    /// The proto3 JSON form.
    public var json: JSON {
        switch self {
        case .null: return ["nullValue": .null]
        case .boolean(let b): return ["booleanValue": .bool(b)]
        case .integer(let i): return ["integerValue": .string(String(i))]
        case .double(let d): return ["doubleValue": .double(d)]
        case .timestamp(let t): return ["timestampValue": .string(t.rfc3339())]
        case .string(let s): return ["stringValue": .string(s)]
        case .bytes(let b): return ["bytesValue": .string(Base64.encode(b))]
        case .reference(let r): return ["referenceValue": .string(r)]
        case .geoPoint(let lat, let lng): return ["geoPointValue": ["latitude": .double(lat), "longitude": .double(lng)]]
        case .array(let a): return ["arrayValue": a.isEmpty ? [:] : ["values": .array(a.map(\.json))]]
        case .map(let m): return ["mapValue": m.isEmpty ? [:] : ["fields": .object(m.mapValues(\.json))]]
        }
    }

    /// Approximate storage size (Firestore's documented formula), for the 1 MiB limit.
    var storageSize: Int {
        switch self {
        case .null, .boolean: return 1
        case .integer, .double: return 8
        case .timestamp: return 8
        case .string(let s): return s.utf8.count + 1
        case .bytes(let b): return b.count
        case .reference(let r):
            // A document name's size: each collection and document id's bytes plus one, plus 16.
            guard let p = DocumentName.parse(r) else { return r.utf8.count + 1 }
            return DocumentName.segments(p.path).reduce(16) { $0 + $1.utf8.count + 1 }
        case .geoPoint: return 16
        case .array(let a): return a.reduce(0) { $0 + $1.storageSize }
        case .map(let m): return m.storage.reduce(0) { $0 + $1.key.string.utf8.count + 1 + $1.value.storageSize }
        }
    }
}

extension Value {
    /// Decodes a document's `fields` object (public entry point for the REST layer).
    public static func decodeFieldsPublic(_ json: JSON?) throws -> FieldMap {
        try decodeFields(json, field: "fields", depth: 0)
    }
}
