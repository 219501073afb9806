import EmulatorCore

/// Bytes → proto3 JSON (see `ProtoJSON` for the mapping). One decoder per input buffer; nested
/// messages are decoded from ranges of the same buffer, never copied.
///
/// **Merging.** Protobuf parses a singular message field that occurs more than once as if its
/// occurrences were one message, their contents concatenated. So a message is decoded from a list
/// of ranges, `range` and then `more` (usually empty): the byte ranges of every occurrence, in
/// wire order. A message whose own singular message fields repeat collects each such field's
/// ranges and decodes the field once at the end, from all of them. Every byte is therefore read
/// once by the message that owns it, however the occurrences nest: decoding is linear in the
/// input (`steps` counts the work), where re-decoding merged occurrences doubles the work per
/// level of nesting.
struct ProtoDecoder {
    /// The whole input.
    let buffer: UnsafeBufferPointer<UInt8>
    /// Work done so far: field keys read (by every pass: skimming, run lengths, decoding) plus
    /// messages entered.
    var steps = 0
    /// When `steps` reaches this, the decoder checks whether its task was cancelled (the gRPC
    /// caller went away): a 16 MiB request of tiny messages takes seconds, which a caller that
    /// has left should not cost. Checked every `cancellationInterval` steps, so it costs nothing
    /// measurable.
    private var nextCancellationCheck = ProtoDecoder.cancellationInterval
    /// Steps between two cancellation checks.
    static let cancellationInterval = 4096

    /// A decoder over `buffer`.
    init(buffer: UnsafeBufferPointer<UInt8>) { self.buffer = buffer }

    /// Decodes a `schema` message made of `range` then `more` (later occurrences, merged) at
    /// nesting level `depth` (the outermost message is 0).
    mutating func message(_ schema: MessageSchema, _ range: Range<Int>, _ more: [Range<Int>] = [], depth: Int) throws(ProtobufError) -> JSON {
        guard depth <= ProtoJSON.maxDepth else {
            throw ProtobufError("messages nested deeper than \(ProtoJSON.maxDepth) levels").inMessage(schema)
        }
        try step()
        if let wellKnown = schema.wellKnown { return try self.wellKnown(wellKnown, schema, range, more, depth: depth) }
        return .object(try fields(schema, range, more, depth: depth))
    }

    /// Counts one step of work and, every `cancellationInterval` steps, stops when the task has
    /// been cancelled.
    @inline(__always)
    mutating func step() throws(ProtobufError) {
        steps &+= 1
        if steps >= nextCancellationCheck { try checkCancellation() }
    }

    @inline(never)
    private mutating func checkCancellation() throws(ProtobufError) {
        nextCancellationCheck = steps &+ ProtoDecoder.cancellationInterval
        if Task.isCancelled { throw ProtobufError("decoding stopped: the call was cancelled") }
    }

    /// Decodes the fields of one message into a JSON object's members.
    ///
    /// Repeated and map fields collect their elements in `items`/`entries` while consecutive
    /// (the usual layout) and are stored once when another field starts. Singular message fields
    /// are decoded as they come, unless the skimming pass found one that occurs twice: then every
    /// singular message field's occurrences are gathered (`occurrences`) and each is decoded once
    /// at the end from all of its ranges.
    mutating func fields(_ schema: MessageSchema, _ range: Range<Int>, _ more: [Range<Int>], depth: Int) throws(ProtobufError) -> UTF8Dictionary<JSON>
    {
        let (runs, merging): (Int, Bool)
        do throws(ProtobufError) { (runs, merging) = try skim(schema, range, more) } catch { throw error.inMessage(schema) }
        var reader = ProtoReader(buffer, range: range)
        var nextPiece = 0
        // Sized once: growing a dictionary rehashes it at every doubling.
        var out = UTF8Dictionary<JSON>(minimumCapacity: runs)
        var oneofSet = InlineArray<4, Int16>(repeating: -1)
        var pending = -1
        var items: [JSON] = []
        var entries = UTF8Dictionary<JSON>()
        var occurrences: [(field: Int, ranges: [Range<Int>])] = []

        scan: while true {
            let tag: (number: Int, wireType: WireType)?
            do throws(ProtobufError) { tag = try reader.readTag() } catch { throw error.inMessage(schema) }
            guard let (number, wire) = tag else {
                guard nextPiece < more.count else { break }
                reader = ProtoReader(buffer, range: more[nextPiece])
                nextPiece += 1
                continue
            }
            do throws(ProtobufError) { try step() } catch { throw error.inMessage(schema) }
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
                        // Setting another member clears the one set before (a message member
                        // seen again after that starts over).
                        let previous = Int(oneofSet[plan.oneof])
                        if previous >= 0, previous != fi {
                            out.removeValue(forKey: schema.jsonNames[previous])
                            if merging { occurrences.removeAll { $0.field == previous } }
                        }
                        oneofSet[plan.oneof] = Int16(fi)
                    }
                    if plan.kind == .message {
                        let r = try reader.readLengthDelimited()
                        if merging {
                            if let k = occurrences.firstIndex(where: { $0.field == fi }) {
                                occurrences[k].ranges.append(r)
                            } else {
                                occurrences.append((fi, [r]))
                            }
                        } else {
                            // The skim found no repeated singular message field: this is the only
                            // occurrence.
                            out[schema.jsonNames[fi]] = try message(try linked(schema, fi), r, depth: depth + 1)
                        }
                    } else if let v = try scalar(plan.kind, &reader, schema.enumTypes[fi], dropDefault: !plan.explicitPresence) {
                        out[schema.jsonNames[fi]] = v
                    } else {
                        out.removeValue(forKey: schema.jsonNames[fi])
                    }
                case .repeated:
                    if pending != fi {
                        pending = fi
                        if plan.kind == .message { items.reserveCapacity(try runLength(reader, number, wire)) }
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
                        entries.reserveCapacity(try runLength(reader, number, wire))
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
        if pending >= 0 { flush(schema, pending, &out, &items, &entries) }
        for (fi, ranges) in occurrences {
            do throws(ProtobufError) {
                out[schema.jsonNames[fi]] = try message(try linked(schema, fi), ranges[0], Array(ranges.dropFirst()), depth: depth + 1)
            } catch { throw error.within(schema, schema.protoNames[fi]) }
        }
        return out
    }

    /// One pass over a message's keys and lengths: how many runs of equal field numbers it has
    /// (the most keys its JSON object gets), and whether a singular message field occurs more
    /// than once (then it must be merged). It reads exactly the keys the decoding pass reads;
    /// malformed input just ends it, and the decoding pass reports the problem. Throws only when
    /// the task is cancelled.
    mutating func skim(_ schema: MessageSchema, _ range: Range<Int>, _ more: [Range<Int>]) throws(ProtobufError) -> (runs: Int, merging: Bool) {
        var runs = 0, last = -1
        var seen: UInt64 = 0
        var seenBeyond: [Int] = []
        var merging = false
        for piece in 0...more.count {
            var r = ProtoReader(buffer, range: piece == 0 ? range : more[piece - 1])
            while let tag = try? r.readTag() {
                try step()
                if tag.number != last {
                    runs += 1
                    last = tag.number
                }
                if tag.wireType == .lengthDelimited, !merging {
                    if tag.number < 64 {
                        let bit: UInt64 = 1 << UInt64(tag.number)
                        if schema.singularMessageNumbers & bit != 0 {
                            merging = seen & bit != 0
                            seen |= bit
                        }
                    } else if let fi = schema.fieldIndex(number: tag.number), schema.plans[fi].shape == .singular, schema.plans[fi].kind == .message {
                        merging = seenBeyond.contains(tag.number)
                        seenBeyond.append(tag.number)
                    }
                }
                guard (try? r.skip(tag.wireType)) != nil else { return (runs, merging) }
            }
        }
        return (runs, merging)
    }

    /// How many consecutive fields keyed (`number`, `wire`) start at the value `reader` is at
    /// (its key already read): the size of a repeated or map field's run. Throws only when the
    /// task is cancelled.
    mutating func runLength(_ reader: ProtoReader, _ number: Int, _ wire: WireType) throws(ProtobufError) -> Int {
        var r = reader
        var count = 0
        while (try? r.skip(wire)) != nil {
            count += 1
            guard let tag = try? r.readTag(), tag.number == number, tag.wireType == wire else { break }
            try step()
        }
        return count
    }

    /// Stores the collected elements of the repeated or map field `fi` (appending to / merging
    /// with what an earlier run of the same field stored).
    private func flush(
        _ schema: MessageSchema, _ fi: Int, _ out: inout UTF8Dictionary<JSON>, _ items: inout [JSON], _ entries: inout UTF8Dictionary<JSON>
    ) {
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

    /// Decodes one map entry {key = 1, value = 2}; a missing key or value is the type's default,
    /// and a message value that occurs twice in the entry merges like any singular message field
    /// (the entry's key seen again in a later entry replaces the value instead).
    private mutating func mapEntry(_ schema: MessageSchema, _ fi: Int, _ plan: FieldPlan, _ range: Range<Int>, depth: Int) throws(ProtobufError) -> (
        String, JSON
    ) {
        guard depth <= ProtoJSON.maxDepth else { throw ProtobufError("messages nested deeper than \(ProtoJSON.maxDepth) levels") }
        try step()
        let keyType = plan.keyKind, valueType = plan.kind
        var reader = ProtoReader(buffer, range: range)
        var key: JSON?
        var scalarValue: JSON?
        var valueRange: Range<Int>?
        var moreValueRanges: [Range<Int>] = []
        while let (number, wire) = try reader.readTag() {
            try step()
            if number == 1, wire == keyType.wireType {
                key = try scalar(keyType, &reader, nil, dropDefault: false)
            } else if number == 2, wire == valueType.wireType {
                if valueType == .message {
                    let r = try reader.readLengthDelimited()
                    if valueRange == nil { valueRange = r } else { moreValueRanges.append(r) }
                } else {
                    scalarValue = try scalar(valueType, &reader, schema.enumTypes[fi], dropDefault: false)
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
                return (keyString, try message(sub, valueRange ?? range.upperBound..<range.upperBound, moreValueRanges, depth: depth + 1))
            } catch { throw error.underKey(keyString) }
        }
        if let scalarValue { return (keyString, scalarValue) }
        return (keyString, try defaultScalar(valueType, schema.enumTypes[fi]))
    }
}
