import EmulatorCore

/// Proto3 JSON → bytes (see `ProtoJSON` for the mapping), written back to front into a
/// `ProtoWriter`: every function here prepends, so fields are visited last-first and a value is
/// written before its key.
struct ProtoEncoder {
    /// The output.
    let w: ProtoWriter

    /// Prepends the contents (no key, no length) of a `schema` message at nesting level `depth`.
    func message(_ json: JSON, _ schema: MessageSchema, depth: Int) throws(ProtobufError) {
        guard depth <= ProtoJSON.maxDepth else {
            throw ProtobufError("messages nested deeper than \(ProtoJSON.maxDepth) levels").inMessage(schema)
        }
        if let wellKnown = schema.wellKnown {
            try self.wellKnown(wellKnown, json, schema, depth: depth)
            return
        }
        guard case .object(let members) = json else {
            throw ProtobufError("expected a JSON object, got \(json.kindName)").inMessage(schema)
        }
        try fields(members, schema, depth: depth, skipping: nil)
    }

    /// Prepends the fields named by `members` in field-number order. Throws on unknown keys, a
    /// field given twice (JSON name and proto name) and two members of one oneof.
    func fields(_ members: UTF8Dictionary<JSON>, _ schema: MessageSchema, depth: Int, skipping skipKey: String?) throws(ProtobufError) {
        if members.isEmpty { return }
        if members.count == 1, skipKey == nil, let (key, value) = members.first {
            // The common case (every Firestore Value): no ordering or oneof bookkeeping.
            guard let fi = schema.nameIndex[key] else { throw unknownField(members, schema, skipping: skipKey) }
            try field(value, fi, schema, depth: depth)
            return
        }
        // At most one slot per declared field: a further key is unknown or a duplicate and throws.
        let capacity = min(members.count, schema.fields.count)
        if capacity == 0 {
            if members.keys.contains(where: { $0 != skipKey }) { throw unknownField(members, schema, skipping: skipKey) }
            return
        }
        try withUnsafeTemporaryAllocation(of: (field: Int, index: UTF8Dictionary<JSON>.Index).self, capacity: capacity) {
            (slots) throws(ProtobufError) in
            var n = 0
            defer { slots.baseAddress!.deinitialize(count: n) }  // trap-ok: capacity is at least 1 here (empty member sets returned above)
            var oneofSet = InlineArray<4, Int16>(repeating: -1)
            var i = members.startIndex
            while i != members.endIndex {
                let (key, value) = members[i]
                let current = i
                members.formIndex(after: &i)
                if key == skipKey { continue }
                guard let fi = schema.nameIndex[key] else { throw unknownField(members, schema, skipping: skipKey) }
                for j in 0..<n where slots[j].field == fi {
                    throw ProtobufError("field \(schema.protoNames[fi]) is given twice (as \(schema.jsonNames[fi]) and \(schema.protoNames[fi]))")
                        .inMessage(schema)
                }
                let k = schema.plans[fi].oneof
                if k >= 0, !isAbsent(value, fi, schema) {
                    let previous = Int(oneofSet[k])
                    if previous >= 0 {
                        throw oneofConflict(members, k, schema)
                    }
                    oneofSet[k] = Int16(fi)
                }
                // Insertion sort by field index (fields are declared by number), descending:
                // the back-to-front writer then emits them in ascending order.
                var j = n
                while j > 0, slots[j - 1].field < fi {
                    (slots.baseAddress! + j).initialize(to: slots[j - 1])  // trap-ok: capacity is at least 1 here (empty member sets returned above)
                    j -= 1
                    (slots.baseAddress! + j).deinitialize(count: 1)  // trap-ok: capacity is at least 1 here (empty member sets returned above)
                }
                (slots.baseAddress! + j).initialize(to: (fi, current))  // trap-ok: capacity is at least 1 here (empty member sets returned above)
                n += 1
            }
            for s in 0..<n {
                try field(members[slots[s].index].value, slots[s].field, schema, depth: depth)
            }
        }
    }

    /// The error for two members of oneof `k` in `members`, naming the first two by field number
    /// (dictionary order differs from run to run).
    func oneofConflict(_ members: UTF8Dictionary<JSON>, _ k: Int, _ schema: MessageSchema) -> ProtobufError {
        let present = members.compactMap { key, value -> Int? in
            guard let fi = schema.nameIndex[key], schema.plans[fi].oneof == k, !isAbsent(value, fi, schema) else { return nil }
            return fi
        }.sorted()
        let names = present.prefix(2).map { schema.jsonNames[$0] }
        return ProtobufError("oneof \(schema.oneofs[k]) has two members, \(names.first ?? "?") and \(names.last ?? "?")").inMessage(schema)
    }

    /// Whether a member's JSON value leaves its field unset: `null`, except for fields whose
    /// type gives `null` a meaning (google.protobuf.Value, NullValue).
    func isAbsent(_ value: JSON, _ fi: Int, _ schema: MessageSchema) -> Bool {
        guard case .null = value else { return false }
        if schema.plans[fi].shape != .singular { return true }
        if let e = schema.enumTypes[fi], e.isNullValue { return false }
        if let m = schema.messageTypes[fi], m.wellKnown == .value { return false }
        return true
    }

    /// The error for the first (in key order, so the message is the same on every run) member
    /// of `members` that `schema` does not declare.
    func unknownField(_ members: UTF8Dictionary<JSON>, _ schema: MessageSchema, skipping skipKey: String? = nil) -> ProtobufError {
        let key = members.keys.filter { $0 != skipKey && schema.nameIndex[$0] == nil }.min() ?? ""
        return ProtobufError("unknown field \(JSON.string(key))").inMessage(schema)
    }

    /// Prepends field `fi` (value and key; every element of a repeated field, every map entry).
    func field(_ value: JSON, _ fi: Int, _ schema: MessageSchema, depth: Int) throws(ProtobufError) {
        let f = schema.plans[fi]
        if isAbsent(value, fi, schema) { return }
        do throws(ProtobufError) {
            switch f.shape {
            case .singular:
                if f.kind == .message {
                    let mark = w.count
                    try message(value, try linked(schema, fi), depth: depth + 1)
                    w.prependLength(since: mark)
                    w.prependKey(f.number, .lengthDelimited)
                } else if try scalarValue(value, f.kind, schema.enumTypes[fi], omitDefault: !f.explicitPresence) {
                    w.prependKey(f.number, f.kind.wireType)
                }
            case .repeated:
                try repeated(value, f, fi, schema, depth: depth)
            case .map:
                try map(value, f, fi, schema, depth: depth)
            }
        } catch {
            throw error.within(schema, schema.protoNames[fi], component: schema.jsonNames[fi])
        }
    }

    /// The linked message type of field `fi`.
    @inline(__always)
    func linked(_ schema: MessageSchema, _ fi: Int) throws(ProtobufError) -> MessageSchema {
        guard let m = schema.messageTypes[fi] else { throw ProtobufError("schema \(schema.fullName) is not linked into a registry") }
        return m
    }

    /// Prepends a repeated field: scalars packed into one length-delimited run, strings, bytes
    /// and messages one key each.
    func repeated(_ value: JSON, _ f: FieldPlan, _ fi: Int, _ schema: MessageSchema, depth: Int) throws(ProtobufError) {
        guard case .array(let elements) = value else { throw ProtobufError("expected a JSON array, got \(value.kindName)") }
        if elements.isEmpty { return }
        let packed = f.kind.isPackable
        let mark = w.count
        var j = elements.count - 1
        while j >= 0 {
            let element = elements[j]
            do throws(ProtobufError) {
                if f.kind == .message {
                    let sub = try linked(schema, fi)
                    if case .null = element, sub.wellKnown != .value { throw ProtobufError("null is not allowed in a repeated field") }
                    let elementMark = w.count
                    try message(element, sub, depth: depth + 1)
                    w.prependLength(since: elementMark)
                    w.prependKey(f.number, .lengthDelimited)
                } else {
                    if case .null = element { throw ProtobufError("null is not allowed in a repeated field") }
                    _ = try scalarValue(element, f.kind, schema.enumTypes[fi], omitDefault: false)
                    if !packed { w.prependKey(f.number, f.kind.wireType) }
                }
            } catch {
                var e = error
                e.pendingSubscript = "[\(j)]"
                throw e
            }
            j -= 1
        }
        if packed {
            w.prependLength(since: mark)
            w.prependKey(f.number, .lengthDelimited)
        }
    }

    /// Prepends a map field: one entry message {key = 1, value = 2} per member, in key order.
    /// Both key and value are always written (as protobuf's own encoders do for map entries).
    func map(_ value: JSON, _ f: FieldPlan, _ fi: Int, _ schema: MessageSchema, depth: Int) throws(ProtobufError) {
        guard case .object(let members) = value else { throw ProtobufError("expected a JSON object, got \(value.kindName)") }
        if members.isEmpty { return }
        guard depth + 1 <= ProtoJSON.maxDepth else { throw ProtobufError("messages nested deeper than \(ProtoJSON.maxDepth) levels") }
        let valueType = f.kind, keyType = f.keyKind
        let sub = schema.messageTypes[fi]
        let enumType = schema.enumTypes[fi]
        try ProtoEncoder.forEachSortedDescending(members) { (key, element) throws(ProtobufError) in
            do throws(ProtobufError) {
                let entryMark = w.count
                if valueType == .message {
                    guard let sub else { throw ProtobufError("schema \(schema.fullName) is not linked into a registry") }
                    if case .null = element, sub.wellKnown != .value { throw ProtobufError("null is not allowed as a map value") }
                    let valueMark = w.count
                    try message(element, sub, depth: depth + 2)
                    w.prependLength(since: valueMark)
                    w.prependKey(2, .lengthDelimited)
                } else {
                    if case .null = element { throw ProtobufError("null is not allowed as a map value") }
                    _ = try scalarValue(element, valueType, enumType, omitDefault: false)
                    w.prependKey(2, valueType.wireType)
                }
                try mapKey(key, keyType)
                w.prependKey(1, keyType.wireType)
                w.prependLength(since: entryMark)
                w.prependKey(f.number, .lengthDelimited)
            } catch {
                throw error.underKey(key)
            }
        }
    }

    /// Prepends a map key given as a JSON object key (numbers and booleans as their text).
    private func mapKey(_ key: String, _ keyType: ScalarKind) throws(ProtobufError) {
        switch keyType {
        case .string:
            let mark = w.count
            w.prependString(key)
            w.prependLength(since: mark)
        case .bool:
            guard key == "true" || key == "false" else { throw ProtobufError("map key \(JSON.string(key)) is not true or false") }
            w.prependVarint(key == "true" ? 1 : 0)
        default:
            _ = try scalarValue(.string(key), keyType, nil, omitDefault: false)
        }
    }

    /// Calls `body` for each member in descending key order (the writer reverses it), without
    /// building a sorted copy of the dictionary.
    static func forEachSortedDescending(_ members: UTF8Dictionary<JSON>, _ body: (String, JSON) throws(ProtobufError) -> Void) throws(ProtobufError) {
        if members.isEmpty { return }
        if members.count == 1, let (k, v) = members.first {
            try body(k, v)
            return
        }
        /// A position in `members`.
        typealias Index = UTF8Dictionary<JSON>.Index
        try withUnsafeTemporaryAllocation(of: Index.self, capacity: members.count) { (slots) throws(ProtobufError) in
            var n = 0
            defer { slots.baseAddress!.deinitialize(count: n) }  // trap-ok: capacity is at least 1 here (empty member sets returned above)
            var i = members.startIndex
            while i != members.endIndex {
                (slots.baseAddress! + n).initialize(to: i)  // trap-ok: capacity is at least 1 here (empty member sets returned above)
                n += 1
                members.formIndex(after: &i)
            }
            // Byte order of the keys (map keys are byte strings: two spellings of "é" are two
            // keys, both written).
            var sortable = slots
            sortable.sort { a, b in members[b].key.utf8Compare(members[a].key) < 0 }
            for s in 0..<n {
                let (k, v) = members[slots[s]]
                try body(k, v)
            }
        }
    }
}
