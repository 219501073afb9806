import EmulatorCore

/// Bytes → JSON for the google.protobuf types with a special JSON form. Like every message, a
/// well-known one may come in several occurrences (`range`, then `more`) that merge: its fields
/// are read from each in turn, the last value of each field winning.
extension ProtoDecoder {
    /// Decodes a well-known type's message made of `range` then `more`.
    mutating func wellKnown(_ kind: WellKnownType, _ schema: MessageSchema, _ range: Range<Int>, _ more: [Range<Int>], depth: Int)
        throws(ProtobufError) -> JSON
    {
        switch kind {
        case .timestamp:
            let (seconds, nanos) = try secondsAndNanos(schema, range, more)
            do throws(ProtobufError) { return .string(try WellKnownText.timestamp(seconds: seconds, nanos: nanos)) } catch {
                throw error.inMessage(schema)
            }
        case .duration:
            let (seconds, nanos) = try secondsAndNanos(schema, range, more)
            do throws(ProtobufError) { return .string(try WellKnownText.duration(seconds: seconds, nanos: nanos)) } catch {
                throw error.inMessage(schema)
            }
        case .wrapper:
            let kind = schema.plans[0].kind
            var value: JSON?
            do throws(ProtobufError) {
                for piece in 0...more.count {
                    var reader = ProtoReader(buffer, range: piece == 0 ? range : more[piece - 1])
                    while let (number, wire) = try reader.readTag() {
                        try step()
                        if number == 1, wire == kind.wireType {
                            value = try scalar(kind, &reader, nil, dropDefault: false)
                        } else {
                            try reader.skip(wire)
                        }
                    }
                }
            } catch { throw error.within(schema, "value") }
            if let value { return value }
            switch kind {
            case .int64, .uint64: return .string("0")
            case .int32, .uint32: return .int(0)
            case .double, .float: return .double(0)
            case .bool: return .bool(false)
            default: return .string("")
            }
        case .structType:
            return try fields(schema, range, more, depth: depth)["fields"] ?? .object([:])
        case .listValue:
            return try fields(schema, range, more, depth: depth)["values"] ?? .array([])
        case .value:
            let members = try fields(schema, range, more, depth: depth)
            guard let (key, value) = members.first else { return .null }
            switch key {
            case "nullValue": return .null
            case "numberValue":
                guard case .double = value else {
                    throw ProtobufError("number_value \(value.stringValue ?? "") has no JSON form (NaN and infinities are not JSON numbers)").within(
                        schema, "number_value")
                }
                return value
            default: return value
            }
        case .any:
            return try any(schema, range, more, depth: depth)
        }
    }

    /// Reads Timestamp/Duration's {seconds = 1 int64, nanos = 2 int32}.
    private mutating func secondsAndNanos(_ schema: MessageSchema, _ range: Range<Int>, _ more: [Range<Int>]) throws(ProtobufError) -> (Int64, Int32)
    {
        var seconds: Int64 = 0, nanos: Int32 = 0
        var current = "seconds"
        do throws(ProtobufError) {
            for piece in 0...more.count {
                var reader = ProtoReader(buffer, range: piece == 0 ? range : more[piece - 1])
                while let (number, wire) = try reader.readTag() {
                    try step()
                    if number == 1, wire == .varint {
                        current = "seconds"
                        seconds = Int64(bitPattern: try reader.readVarint())
                    } else if number == 2, wire == .varint {
                        current = "nanos"
                        nanos = Int32(truncatingIfNeeded: try reader.readVarint())
                    } else {
                        current = "<unknown field \(number)>"
                        try reader.skip(wire)
                    }
                }
            }
        } catch { throw error.within(schema, current) }
        return (seconds, nanos)
    }

    /// `google.protobuf.Any`: the packed message's JSON plus `"@type"`; a well-known type's JSON
    /// under `"value"`; a type this registry does not know as base64 under `ProtoJSON.anyRawValueKey`.
    /// (`value` is a bytes field: of several occurrences the last one counts, unmerged.)
    private mutating func any(_ schema: MessageSchema, _ range: Range<Int>, _ more: [Range<Int>], depth: Int) throws(ProtobufError) -> JSON {
        var typeURL = ""
        var valueRange = range.upperBound..<range.upperBound
        var current = "type_url"
        do throws(ProtobufError) {
            for piece in 0...more.count {
                var reader = ProtoReader(buffer, range: piece == 0 ? range : more[piece - 1])
                while let (number, wire) = try reader.readTag() {
                    try step()
                    if number == 1, wire == .lengthDelimited {
                        current = "type_url"
                        let r = try reader.readLengthDelimited()
                        guard let s = UTF8Validation.string(reader.bytes(r)) else { throw ProtobufError("invalid UTF-8 in string") }
                        typeURL = s
                    } else if number == 2, wire == .lengthDelimited {
                        current = "value"
                        valueRange = try reader.readLengthDelimited()
                    } else {
                        current = "<unknown field \(number)>"
                        try reader.skip(wire)
                    }
                }
            }
        } catch { throw error.within(schema, current) }
        if typeURL.isEmpty && valueRange.isEmpty { return .object([:]) }
        let typeName = WellKnownText.typeName(fromURL: typeURL)
        guard let packed = schema.registry?.message(named: typeName) else {
            let raw = UnsafeBufferPointer(rebasing: buffer[valueRange])
            return .object(["@type": .string(typeURL), ProtoJSON.anyRawValueKey: .string(ProtoBase64.encode(raw))])
        }
        let inner: JSON
        do throws(ProtobufError) { inner = try message(packed, valueRange, depth: depth + 1) } catch { throw error.within(schema, "value") }
        if packed.wellKnown != nil { return .object(["@type": .string(typeURL), "value": inner]) }
        guard case .object(var members) = inner else { return inner }
        members["@type"] = .string(typeURL)
        return .object(members)
    }
}
