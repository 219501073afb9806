import EmulatorCore

/// JSON → scalar field values.
extension ProtoEncoder {
    /// Prepends one scalar value (no key; strings and bytes with their length). Returns false,
    /// writing nothing, when `omitDefault` and the value is the type's default.
    func scalarValue(_ v: JSON, _ type: ScalarKind, _ enumType: EnumSchema?, omitDefault: Bool) throws(ProtobufError) -> Bool {
        switch type {
        case .int32:
            let n = try ProtoEncoder.signed(v, bits: 32)
            if omitDefault && n == 0 { return false }
            w.prependVarint(UInt64(bitPattern: n))  // negative: sign-extended, 10 bytes
        case .int64:
            let n = try ProtoEncoder.signed(v, bits: 64)
            if omitDefault && n == 0 { return false }
            w.prependVarint(UInt64(bitPattern: n))
        case .uint32, .uint64:
            let n = try ProtoEncoder.unsigned(v, bits: type == .uint32 ? 32 : 64)
            if omitDefault && n == 0 { return false }
            w.prependVarint(n)
        case .sint32:
            let n = Int32(try ProtoEncoder.signed(v, bits: 32))
            if omitDefault && n == 0 { return false }
            w.prependVarint(UInt64(UInt32(bitPattern: (n << 1) ^ (n >> 31))))
        case .sint64:
            let n = try ProtoEncoder.signed(v, bits: 64)
            if omitDefault && n == 0 { return false }
            w.prependVarint(UInt64(bitPattern: (n << 1) ^ (n >> 63)))
        case .fixed32:
            let n = try ProtoEncoder.unsigned(v, bits: 32)
            if omitDefault && n == 0 { return false }
            w.prependFixed32(UInt32(n))
        case .sfixed32:
            let n = try ProtoEncoder.signed(v, bits: 32)
            if omitDefault && n == 0 { return false }
            w.prependFixed32(UInt32(bitPattern: Int32(n)))
        case .fixed64:
            let n = try ProtoEncoder.unsigned(v, bits: 64)
            if omitDefault && n == 0 { return false }
            w.prependFixed64(n)
        case .sfixed64:
            let n = try ProtoEncoder.signed(v, bits: 64)
            if omitDefault && n == 0 { return false }
            w.prependFixed64(UInt64(bitPattern: n))
        case .bool:
            guard case .bool(let b) = v else { throw ProtobufError("expected true or false, got \(v.kindName)") }
            if omitDefault && !b { return false }
            w.prependByte(b ? 1 : 0)
        case .double:
            let d = try ProtoEncoder.double(v)
            if omitDefault && d.bitPattern == 0 { return false }
            w.prependFixed64(d.bitPattern)
        case .float:
            let d = try ProtoEncoder.double(v)
            if d.isFinite, d.magnitude > Double(Float.greatestFiniteMagnitude) { throw ProtobufError("\(d) is out of range for a float") }
            let f = Float(d)
            if omitDefault && f.bitPattern == 0 { return false }
            w.prependFixed32(f.bitPattern)
        case .string:
            guard case .string(let s) = v else { throw ProtobufError("expected a string, got \(v.kindName)") }
            if omitDefault && s.isEmpty { return false }
            let mark = w.count
            w.prependString(s)
            w.prependLength(since: mark)
        case .bytes:
            guard case .string(let s) = v else { throw ProtobufError("expected base64 bytes as a string, got \(v.kindName)") }
            if omitDefault && s.isEmpty { return false }
            guard let bytes = Base64.decode(s) else { throw ProtobufError("invalid base64 \(JSON.string(String(s.prefix(40))))") }
            let mark = w.count
            w.prependBytes(bytes)
            w.prependLength(since: mark)
        case .enumeration:
            let n = try ProtoEncoder.enumNumber(v, enumType)
            if omitDefault && n == 0 { return false }
            w.prependVarint(UInt64(bitPattern: Int64(n)))
        case .message:
            throw ProtobufError("internal: message written as scalar")
        }
        return true
    }

    /// A signed integer from a JSON number or decimal string, within `bits`.
    static func signed(_ v: JSON, bits: Int) throws(ProtobufError) -> Int64 {
        let n: Int64?
        switch v {
        case .int(let i): n = i
        case .double(let d): n = Int64(exactly: d)
        case .string(let s): n = Int64(s)
        default: throw ProtobufError("expected an integer (number or decimal string), got \(v.kindName)")
        }
        guard let n else { throw ProtobufError("\(v) is not a \(bits)-bit integer") }
        if bits == 32, n < Int64(Int32.min) || n > Int64(Int32.max) { throw ProtobufError("\(n) is out of range for int32") }
        return n
    }

    /// An unsigned integer from a JSON number or decimal string, within `bits`.
    static func unsigned(_ v: JSON, bits: Int) throws(ProtobufError) -> UInt64 {
        let n: UInt64?
        switch v {
        case .int(let i): n = UInt64(exactly: i)
        case .double(let d): n = UInt64(exactly: d)
        case .string(let s): n = UInt64(s)
        default: throw ProtobufError("expected an unsigned integer (number or decimal string), got \(v.kindName)")
        }
        guard let n else { throw ProtobufError("\(v) is not an unsigned \(bits)-bit integer") }
        if bits == 32, n > UInt64(UInt32.max) { throw ProtobufError("\(n) is out of range for uint32") }
        return n
    }

    /// A double from a JSON number, `"NaN"`, `"Infinity"`, `"-Infinity"` or a numeric string.
    static func double(_ v: JSON) throws(ProtobufError) -> Double {
        switch v {
        case .int(let i): return Double(i)
        case .double(let d): return d
        case .string(let s):
            switch s {
            case "NaN": return .nan
            case "Infinity": return .infinity
            case "-Infinity": return -.infinity
            default:
                // Only plain decimal text: Swift's parser would also take "nan", "inf" and hex.
                let plain = !s.isEmpty && s.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || $0 == 43 || $0 == 45 || $0 == 46 || $0 == 69 || $0 == 101 }
                guard plain, let d = Double(s), d.isFinite else { throw ProtobufError("invalid number \(JSON.string(s))") }
                return d
            }
        default: throw ProtobufError("expected a number, got \(v.kindName)")
        }
    }

    /// An enum number from a value name or a number (proto3 enums are open: any int32 is kept).
    /// `null` is NullValue's only value.
    static func enumNumber(_ v: JSON, _ enumType: EnumSchema?) throws(ProtobufError) -> Int32 {
        switch v {
        case .string(let s):
            guard let n = enumType?.number(of: s) else {
                throw ProtobufError("unknown value \(JSON.string(s)) for enum \(enumType?.fullName ?? "?")")
            }
            return n
        case .int, .double:
            return Int32(try signed(v, bits: 32))
        case .null where enumType?.isNullValue == true:
            return 0
        default:
            throw ProtobufError("expected an enum value name or number, got \(v.kindName)")
        }
    }
}
