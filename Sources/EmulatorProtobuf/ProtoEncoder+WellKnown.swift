import EmulatorCore

/// JSON → bytes for the google.protobuf types with a special JSON form.
extension ProtoEncoder {
    /// Prepends the contents of a well-known type's message.
    func wellKnown(_ kind: WellKnownType, _ json: JSON, _ schema: MessageSchema, depth: Int) throws(ProtobufError) {
        do throws(ProtobufError) {
            switch kind {
            case .timestamp, .duration:
                guard case .string(let text) = json else {
                    throw ProtobufError(
                        "expected \(kind == .timestamp ? "an RFC 3339 timestamp" : "a duration like \"1.5s\"") string, got \(json.kindName)")
                }
                let (seconds, nanos) = kind == .timestamp ? try WellKnownText.parseTimestamp(text) : try WellKnownText.parseDuration(text)
                if nanos != 0 {
                    w.prependVarint(UInt64(bitPattern: Int64(nanos)))
                    w.prependKey(2, .varint)
                }
                if seconds != 0 {
                    w.prependVarint(UInt64(bitPattern: seconds))
                    w.prependKey(1, .varint)
                }
            case .wrapper:
                let kind = schema.plans[0].kind
                if case .null = json { throw ProtobufError("expected a \(kind.name) value, got null") }
                if try scalarValue(json, kind, nil, omitDefault: true) {
                    w.prependKey(1, kind.wireType)
                }
            case .structType:
                guard case .object = json else { throw ProtobufError("expected a JSON object, got \(json.kindName)") }
                try field(json, 0, schema, depth: depth)
            case .listValue:
                guard case .array = json else { throw ProtobufError("expected a JSON array, got \(json.kindName)") }
                try field(json, 0, schema, depth: depth)
            case .value:
                try value(json, schema, depth: depth)
            case .any:
                try any(json, schema, depth: depth)
            }
        } catch {
            throw error.inMessage(schema)
        }
    }

    /// google.protobuf.Value: any JSON value, as the oneof member of its kind.
    private func value(_ json: JSON, _ schema: MessageSchema, depth: Int) throws(ProtobufError) {
        switch json {
        case .null:
            w.prependVarint(0)
            w.prependKey(1, .varint)
        case .int, .double:
            let d = json.doubleValue ?? 0
            guard d.isFinite else { throw ProtobufError("number_value cannot be NaN or infinite in JSON") }
            w.prependFixed64(d.bitPattern)
            w.prependKey(2, .fixed64)
        case .string(let s):
            let mark = w.count
            w.prependString(s)
            w.prependLength(since: mark)
            w.prependKey(3, .lengthDelimited)
        case .bool(let b):
            w.prependVarint(b ? 1 : 0)
            w.prependKey(4, .varint)
        case .object:
            try nested(json, schema, number: 5, depth: depth)
        case .array:
            try nested(json, schema, number: 6, depth: depth)
        }
    }

    /// Prepends message field `number` of `schema` holding `json`.
    private func nested(_ json: JSON, _ schema: MessageSchema, number: Int, depth: Int) throws(ProtobufError) {
        guard let fi = schema.fieldIndex(number: number) else { throw ProtobufError("schema \(schema.fullName) lacks field \(number)") }
        let mark = w.count
        do throws(ProtobufError) { try message(json, try linked(schema, fi), depth: depth + 1) } catch {
            throw error.within(schema, schema.protoNames[fi], component: schema.jsonNames[fi])
        }
        w.prependLength(since: mark)
        w.prependKey(number, .lengthDelimited)
    }

    /// google.protobuf.Any: `{"@type": url, ...fields}`, `{"@type": url, "value": wkt}` for a
    /// well-known type, or `{"@type": url, "@value": base64}` for a type the registry lacks.
    private func any(_ json: JSON, _ schema: MessageSchema, depth: Int) throws(ProtobufError) {
        guard case .object(let members) = json else { throw ProtobufError("expected a JSON object, got \(json.kindName)") }
        if members.isEmpty { return }
        guard case .string(let url)? = members["@type"] else { throw ProtobufError("Any needs an \"@type\" string") }
        let valueMark = w.count
        if let packed = schema.registry?.message(named: WellKnownText.typeName(fromURL: url)) {
            if packed.wellKnown != nil {
                if members.keys.contains(where: { $0 != "@type" && $0 != "value" }) {
                    throw unknownField(members.filter { $0.key != "value" }, packed, skipping: "@type")
                }
                guard let v = members["value"] else { throw ProtobufError("Any of \(packed.fullName) needs a \"value\"") }
                try message(v, packed, depth: depth + 1)
            } else {
                try fields(members, packed, depth: depth + 1, skipping: "@type")
            }
        } else {
            if let key = members.keys.filter({ $0 != "@type" && $0 != ProtoJSON.anyRawValueKey }).min() {
                throw ProtobufError(
                    "Any of unknown type \(JSON.string(url)) can only carry \(JSON.string(ProtoJSON.anyRawValueKey)), not \(JSON.string(key))")
            }
            if let raw = members[ProtoJSON.anyRawValueKey] {
                guard case .string(let s) = raw, let bytes = Base64.decode(s) else {
                    throw ProtobufError("Any \(ProtoJSON.anyRawValueKey) must be base64")
                }
                w.prependBytes(bytes)
            }
        }
        if w.count != valueMark {
            w.prependLength(since: valueMark)
            w.prependKey(2, .lengthDelimited)
        }
        if !url.isEmpty {
            let mark = w.count
            w.prependString(url)
            w.prependLength(since: mark)
            w.prependKey(1, .lengthDelimited)
        }
    }
}
