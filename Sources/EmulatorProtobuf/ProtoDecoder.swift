import EmulatorCore

/// Bytes → proto3 JSON (see `ProtoJSON` for the mapping). One decoder per input buffer; nested
/// messages are decoded from ranges of the same buffer, never copied.
struct ProtoDecoder {
    /// The whole input.
    let buffer: UnsafeBufferPointer<UInt8>
    /// Work done so far: field keys read plus messages entered.
    var steps = 0

    /// Decodes `range` as a `schema` message at nesting level `depth` (the root is 0).
    mutating func message(_ schema: MessageSchema, _ range: Range<Int>, depth: Int) throws(ProtobufError) -> JSON {
        guard depth < ProtoJSON.maxDepth else {
            throw ProtobufError("messages nested deeper than \(ProtoJSON.maxDepth) levels").inMessage(schema)
        }
        steps &+= 1
        if let wellKnown = schema.wellKnown { return try self.wellKnown(wellKnown, schema, range, depth: depth) }
        return .object(try fields(schema, range, depth: depth, merging: false))
    }

    /// Decodes the fields of one message into a JSON object's members.
    ///
    /// Repeated and map fields collect their elements in `items`/`entries` while consecutive
    /// (the usual layout) and are stored once when another field starts. A singular message
    /// field seen twice must be merged (protobuf semantics, as if parsing the concatenation of
    /// both occurrences): that rare case restarts the message with `merging`, which gathers such
    /// fields' bytes and decodes each once at the end, keeping the work linear.
    mutating func fields(_ schema: MessageSchema, _ range: Range<Int>, depth: Int, merging: Bool) throws(ProtobufError) -> [String: JSON] {
        var reader = ProtoReader(buffer, range: range)
        // Sized once: growing a dictionary rehashes it at every doubling.
        var out = [String: JSON](minimumCapacity: ProtoDecoder.runCount(reader))
        var oneofSet = InlineArray<4, Int16>(repeating: -1)
        var pending = -1
        var items: [JSON] = []
        var entries: [String: JSON] = [:]
        var mergeBuffers: [Int: [UInt8]] = [:]
        var needsMerge = false

        scan: while true {
            let tag: (number: Int, wireType: WireType)?
            do throws(ProtobufError) { tag = try reader.readTag() } catch { throw error.inMessage(schema) }
            guard let (number, wire) = tag else { break }
            steps &+= 1
            guard let fi = schema.fieldIndex(number: number) else {
                do throws(ProtobufError) { try reader.skip(wire) } catch { throw error.within(schema, "<unknown field \(number)>") }
                continue
            }
            let plan = schema.plans[fi]
            if pending != fi, pending >= 0 {
                flush(schema, pending, &out, &items, &entries)
                pending = -1
            }
            do throws(ProtobufError) {
                switch plan.shape {
                case .singular:
                    guard wire == plan.kind.wireType else {
                        // A known field with another wire type is an unknown field to protobuf.
                        try reader.skip(wire)
                        continue scan
                    }
                    if plan.oneof >= 0 {
                        let previous = Int(oneofSet[plan.oneof])
                        if previous >= 0, previous != fi {
                            out.removeValue(forKey: schema.jsonNames[previous])
                            mergeBuffers[previous] = nil
                        }
                        oneofSet[plan.oneof] = Int16(fi)
                    }
                    if plan.kind == .message {
                        let r = try reader.readLengthDelimited()
                        if merging {
                            mergeBuffers[fi, default: []].append(contentsOf: reader.bytes(r))
                            continue scan
                        }
                        let v = try message(try linked(schema, fi), r, depth: depth + 1)
                        if out.updateValue(v, forKey: schema.jsonNames[fi]) != nil {
                            needsMerge = true
                            break scan
                        }
                    } else if let v = try scalar(plan.kind, &reader, schema.enumTypes[fi], dropDefault: !plan.explicitPresence) {
                        out[schema.jsonNames[fi]] = v
                    } else {
                        out.removeValue(forKey: schema.jsonNames[fi])
                    }
                case .repeated:
                    if pending != fi {
                        pending = fi
                        if plan.kind == .message { items.reserveCapacity(ProtoDecoder.runLength(reader, number, wire)) }
                    }
                    if wire == .lengthDelimited, plan.kind.isPackable {
                        var packed = reader.subReader(try reader.readLengthDelimited())
                        while !packed.isAtEnd {
                            guard let v = try scalar(plan.kind, &packed, schema.enumTypes[fi], dropDefault: false) else { break }
                            items.append(v)
                        }
                    } else if wire == plan.kind.wireType {
                        if plan.kind == .message {
                            items.append(try message(try linked(schema, fi), try reader.readLengthDelimited(), depth: depth + 1))
                        } else if let v = try scalar(plan.kind, &reader, schema.enumTypes[fi], dropDefault: false) {
                            items.append(v)
                        }
                    } else {
                        try reader.skip(wire)
                    }
                case .map:
                    guard wire == .lengthDelimited else {
                        try reader.skip(wire)
                        continue scan
                    }
                    if pending != fi {
                        pending = fi
                        entries.reserveCapacity(ProtoDecoder.runLength(reader, number, wire))
                    }
                    let (key, value) = try mapEntry(schema, fi, plan, try reader.readLengthDelimited(), depth: depth + 1)
                    entries[key] = value
                }
            } catch {
                let name = schema.protoNames[fi]
                if plan.shape == .repeated { throw error.within(schema, name, component: "\(name)[\(items.count)]") }
                throw error.within(schema, name)
            }
        }
        if needsMerge { return try fields(schema, range, depth: depth, merging: true) }
        if pending >= 0 { flush(schema, pending, &out, &items, &entries) }
        for (fi, bytes) in mergeBuffers {
            do throws(ProtobufError) {
                let sub = try linked(schema, fi)
                out[schema.jsonNames[fi]] = try bytes.withUnsafeBufferPointer { (b) throws(ProtobufError) -> JSON in
                    var d = ProtoDecoder(buffer: b)
                    defer { steps &+= d.steps }
                    return try d.message(sub, 0..<b.count, depth: depth + 1)
                }
            } catch { throw error.within(schema, schema.protoNames[fi]) }
        }
        return out
    }

    /// How many runs of equal field numbers `reader` has left: the most keys its message's JSON
    /// object gets. A skimming pass (keys and lengths only); malformed input just ends the count,
    /// the real pass reports it.
    static func runCount(_ reader: ProtoReader) -> Int {
        var r = reader
        var runs = 0, last = -1
        while let tag = try? r.readTag() {
            if tag.number != last {
                runs += 1
                last = tag.number
            }
            guard (try? r.skip(tag.wireType)) != nil else { break }
        }
        return runs
    }

    /// How many consecutive fields keyed (`number`, `wire`) start at the value `reader` is at
    /// (its key already read): the size of a repeated or map field's run.
    static func runLength(_ reader: ProtoReader, _ number: Int, _ wire: WireType) -> Int {
        var r = reader
        var count = 0
        while (try? r.skip(wire)) != nil {
            count += 1
            guard let tag = try? r.readTag(), tag.number == number, tag.wireType == wire else { break }
        }
        return count
    }

    /// Stores the collected elements of the repeated or map field `fi` (appending to / merging
    /// with what an earlier run of the same field stored).
    private func flush(_ schema: MessageSchema, _ fi: Int, _ out: inout [String: JSON], _ items: inout [JSON], _ entries: inout [String: JSON]) {
        let name = schema.jsonNames[fi]
        if schema.plans[fi].shape == .map {
            guard !entries.isEmpty else { return }
            if case .object(var earlier)? = out.removeValue(forKey: name) {
                earlier.merge(entries) { _, new in new }
                out[name] = .object(earlier)
            } else {
                out[name] = .object(entries)
            }
            entries = [:]
        } else {
            guard !items.isEmpty else { return }
            if case .array(var earlier)? = out.removeValue(forKey: name) {
                earlier.append(contentsOf: items)
                out[name] = .array(earlier)
            } else {
                out[name] = .array(items)
            }
            items = []
        }
    }

    /// The linked message type of field `fi`.
    @inline(__always)
    func linked(_ schema: MessageSchema, _ fi: Int) throws(ProtobufError) -> MessageSchema {
        guard let m = schema.messageTypes[fi] else { throw ProtobufError("schema \(schema.fullName) is not linked into a registry") }
        return m
    }

    /// Decodes one map entry {key = 1, value = 2}; a missing key or value is the type's default.
    private mutating func mapEntry(_ schema: MessageSchema, _ fi: Int, _ plan: FieldPlan, _ range: Range<Int>, depth: Int) throws(ProtobufError) -> (String, JSON) {
        guard depth < ProtoJSON.maxDepth else { throw ProtobufError("messages nested deeper than \(ProtoJSON.maxDepth) levels") }
        let keyType = plan.keyKind, valueType = plan.kind
        var reader = ProtoReader(buffer, range: range)
        var key: JSON?
        var value: JSON?
        var valueRange: Range<Int>?
        var merged: [UInt8]?
        steps &+= 1
        while let (number, wire) = try reader.readTag() {
            steps &+= 1
            if number == 1, wire == keyType.wireType {
                key = try scalar(keyType, &reader, nil, dropDefault: false)
            } else if number == 2, wire == valueType.wireType {
                if valueType == .message {
                    let r = try reader.readLengthDelimited()
                    if let previous = valueRange {
                        // A repeated message value merges, like any singular message field.
                        if merged == nil { merged = Array(reader.bytes(previous)) }
                        merged!.append(contentsOf: reader.bytes(r))
                    }
                    valueRange = r
                } else {
                    value = try scalar(valueType, &reader, schema.enumTypes[fi], dropDefault: false)
                }
            } else {
                try reader.skip(wire)
            }
        }
        let keyString: String
        switch key {
        case .string(let s)?: keyString = s
        case .int(let i)?: keyString = String(i)
        case .bool(let b)?: keyString = b ? "true" : "false"
        default: keyString = keyType == .bool ? "false" : (keyType == .string ? "" : "0")
        }
        if valueType == .message {
            let sub = try linked(schema, fi)
            do throws(ProtobufError) {
                if let merged {
                    value = try merged.withUnsafeBufferPointer { (b) throws(ProtobufError) -> JSON in
                        var d = ProtoDecoder(buffer: b)
                        defer { steps &+= d.steps }
                        return try d.message(sub, 0..<b.count, depth: depth + 1)
                    }
                } else {
                    value = try message(sub, valueRange ?? range.upperBound..<range.upperBound, depth: depth + 1)
                }
            } catch { throw error.underKey(keyString) }
        }
        if value == nil {
            var empty = ProtoReader(buffer, range: 0..<0)
            value = try defaultScalar(valueType, &empty, schema.enumTypes[fi])
        }
        return (keyString, value!)
    }

    /// The JSON of a scalar type's default value (a map entry without its value).
    private func defaultScalar(_ type: ScalarKind, _ reader: inout ProtoReader, _ enumType: EnumSchema?) throws(ProtobufError) -> JSON {
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
