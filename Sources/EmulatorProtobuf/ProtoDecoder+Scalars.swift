import EmulatorCore

/// Bytes → JSON for scalar values: one per wire value, the defaults of map entries without a
/// value, enum names and non-finite numbers.
extension ProtoDecoder {
    /// The JSON of a scalar type's default value (a map entry without its value).
    func defaultScalar(_ type: ScalarKind, _ enumType: EnumSchema?) throws(ProtobufError) -> JSON {
        switch type {
        case .int32, .uint32, .sint32, .fixed32, .sfixed32: return .int(0)
        case .int64, .uint64, .sint64, .fixed64, .sfixed64: return .string("0")
        case .double, .float: return .double(0)
        case .bool: return .bool(false)
        case .string, .bytes: return .string("")
        case .enumeration: return enumJSON(0, enumType)
        case .message: throw ProtobufError("internal: message default requested as scalar")
        }
    }

    /// Reads one scalar of `type` (wire type already checked) and returns its JSON; nil when
    /// `dropDefault` and the value is the type's default (implicit presence reads it as absent).
    /// (No `cond ? nil : json` here: JSON is ExpressibleByNilLiteral, so that `nil` would be
    /// JSON.null, not an absent value.)
    func scalar(_ type: ScalarKind, _ reader: inout ProtoReader, _ enumType: EnumSchema?, dropDefault: Bool) throws(ProtobufError) -> JSON? {
        switch type {
        case .int32:
            let v = Int32(truncatingIfNeeded: try reader.readVarint())
            if dropDefault && v == 0 { return nil }
            return .int(Int64(v))
        case .int64:
            let v = Int64(bitPattern: try reader.readVarint())
            if dropDefault && v == 0 { return nil }
            return .string(String(v))
        case .uint32:
            let v = UInt32(truncatingIfNeeded: try reader.readVarint())
            if dropDefault && v == 0 { return nil }
            return .int(Int64(v))
        case .uint64:
            let v = try reader.readVarint()
            if dropDefault && v == 0 { return nil }
            return .string(String(v))
        case .sint32:
            let n = UInt32(truncatingIfNeeded: try reader.readVarint())
            let v = Int32(bitPattern: (n >> 1) ^ (0 &- (n & 1)))
            if dropDefault && v == 0 { return nil }
            return .int(Int64(v))
        case .sint64:
            let n = try reader.readVarint()
            let v = Int64(bitPattern: (n >> 1) ^ (0 &- (n & 1)))
            if dropDefault && v == 0 { return nil }
            return .string(String(v))
        case .bool:
            let v = try reader.readVarint() != 0
            if dropDefault && !v { return nil }
            return .bool(v)
        case .enumeration:
            let v = Int32(truncatingIfNeeded: try reader.readVarint())
            if dropDefault && v == 0 { return nil }
            return enumJSON(v, enumType)
        case .fixed32:
            let v = try reader.readFixed32()
            if dropDefault && v == 0 { return nil }
            return .int(Int64(v))
        case .sfixed32:
            let v = Int32(bitPattern: try reader.readFixed32())
            if dropDefault && v == 0 { return nil }
            return .int(Int64(v))
        case .float:
            let bits = try reader.readFixed32()
            if dropDefault && bits == 0 { return nil }
            return ProtoDecoder.floatJSON(Float(bitPattern: bits))
        case .fixed64:
            let v = try reader.readFixed64()
            if dropDefault && v == 0 { return nil }
            return .string(String(v))
        case .sfixed64:
            let v = Int64(bitPattern: try reader.readFixed64())
            if dropDefault && v == 0 { return nil }
            return .string(String(v))
        case .double:
            let bits = try reader.readFixed64()
            if dropDefault && bits == 0 { return nil }
            return ProtoDecoder.doubleJSON(Double(bitPattern: bits))
        case .string:
            let r = try reader.readLengthDelimited()
            if dropDefault && r.isEmpty { return nil }
            guard let s = UTF8Validation.string(reader.bytes(r)) else { throw ProtobufError("invalid UTF-8 in string") }
            return .string(s)
        case .bytes:
            let r = try reader.readLengthDelimited()
            if dropDefault && r.isEmpty { return nil }
            return .string(ProtoBase64.encode(reader.bytes(r)))
        case .message:
            throw ProtobufError("internal: message read as scalar")
        }
    }

    /// An enum value's JSON: `null` for NullValue, else its name, or its number when unknown.
    func enumJSON(_ number: Int32, _ enumType: EnumSchema?) -> JSON {
        guard let enumType else { return .int(Int64(number)) }
        if enumType.isNullValue { return .null }
        if let name = enumType.name(of: number) { return .string(name) }
        return .int(Int64(number))
    }

    /// A double's JSON: the number, or `"NaN"`, `"Infinity"`, `"-Infinity"`.
    static func doubleJSON(_ d: Double) -> JSON {
        if d.isFinite { return .double(d) }
        if d.isNaN { return .string("NaN") }
        return .string(d < 0 ? "-Infinity" : "Infinity")
    }

    /// A float's JSON: its shortest decimal form as a double (0.1f → 0.1, not 0.100000001...).
    static func floatJSON(_ f: Float) -> JSON {
        guard f.isFinite else { return doubleJSON(Double(f)) }
        return .double(Double("\(f)") ?? Double(f))
    }
}
