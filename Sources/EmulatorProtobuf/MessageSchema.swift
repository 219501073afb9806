/// A message type: its full name, fields and oneofs, with lookup tables prepared once.
///
/// Declared as data (see `Schemas/`), then linked by a `SchemaRegistry`, which resolves the
/// message and enum types its fields name. Linking writes the resolved types once, inside the
/// registry's initializer, before the schema can be reached by any other thread; afterwards the
/// schema is never mutated, which is why it is `@unchecked Sendable`. A schema belongs to one
/// registry and lives as long as the process (schemas reference each other in cycles).
public final class MessageSchema: @unchecked Sendable {
    /// The full name (`google.firestore.v1.Document`).
    public let fullName: String
    /// The fields, by ascending number.
    public let fields: [FieldSchema]
    /// The oneof names, in order of first appearance; `FieldSchema.oneofIndex` indexes this.
    public let oneofs: [String]
    /// The special proto3 JSON mapping of a google.protobuf well-known type, if this is one.
    let wellKnown: WellKnownType?

    /// Field index by number when numbers are small (-1 = none), else `sparseNumberIndex`.
    private let denseNumberIndex: [Int16]
    private let sparseNumberIndex: [Int: Int]
    /// Field index by JSON name and by proto name.
    let nameIndex: [String: Int]
    /// Per field (same order as `fields`): the codec's plain view of it.
    let plans: [FieldPlan]
    /// Per field: the JSON name (kept apart so the loops do not copy whole `FieldSchema`s).
    let jsonNames: [String]
    /// Per field: the proto name.
    let protoNames: [String]
    /// Bit n is set when field number n (below 64) is a singular message field: the decoder's
    /// skimming pass spots one that occurs twice (and so must be merged) with one test per key.
    let singularMessageNumbers: UInt64

    /// Resolved message type of each field (its value type for maps), set by the registry.
    /// Written once before the schema is shared, so the runtime exclusivity check on every read
    /// (a measurable cost in the decode loop) is turned off.
    @exclusivity(unchecked) private(set) var messageTypes: [MessageSchema?]
    /// Resolved enum type of each field (its value type for maps), set by the registry.
    @exclusivity(unchecked) private(set) var enumTypes: [EnumSchema?]
    /// The registry that linked this schema (resolves `google.protobuf.Any` type URLs).
    private(set) weak var registry: SchemaRegistry?

    /// Declares a message. Fields may be given in any order; oneofs are collected from them.
    public init(_ fullName: String, _ fields: [FieldSchema]) {
        self.fullName = fullName
        var sorted = fields.sorted { $0.number < $1.number }
        var oneofs: [String] = []
        for i in sorted.indices {
            if let o = sorted[i].oneof {
                if let k = oneofs.firstIndex(of: o) {
                    sorted[i].oneofIndex = k
                } else {
                    sorted[i].oneofIndex = oneofs.count
                    oneofs.append(o)
                }
            }
        }
        self.fields = sorted
        self.oneofs = oneofs
        self.wellKnown = WellKnownType(fullName: fullName)
        let maxNumber = sorted.last?.number ?? 0
        if maxNumber <= 1024 {
            var dense = [Int16](repeating: -1, count: maxNumber + 1)
            for (i, f) in sorted.enumerated() { dense[f.number] = Int16(i) }
            denseNumberIndex = dense
            sparseNumberIndex = [:]
        } else {
            denseNumberIndex = []
            sparseNumberIndex = Dictionary(sorted.enumerated().map { ($1.number, $0) }, uniquingKeysWith: { a, _ in a })
        }
        var names: [String: Int] = [:]
        for (i, f) in sorted.enumerated() {
            names[f.name] = names[f.name] ?? i
            names[f.jsonName] = names[f.jsonName] ?? i
        }
        nameIndex = names
        plans = sorted.map(FieldPlan.init)
        jsonNames = sorted.map(\.jsonName)
        protoNames = sorted.map(\.name)
        var singularMessages: UInt64 = 0
        for (f, plan) in zip(sorted, plans) where plan.shape == .singular && plan.kind == .message && f.number < 64 {
            singularMessages |= 1 << UInt64(f.number)
        }
        singularMessageNumbers = singularMessages
        messageTypes = Array(repeating: nil, count: sorted.count)
        enumTypes = Array(repeating: nil, count: sorted.count)
    }

    /// The field with this number, if declared.
    public func field(number: Int) -> FieldSchema? {
        fieldIndex(number: number).map { fields[$0] }
    }

    /// The field with this JSON name or proto name, if declared.
    public func field(named name: String) -> FieldSchema? {
        nameIndex[name].map { fields[$0] }
    }

    /// The message type of a message-typed field (the value type of a map), once linked.
    public func messageType(of field: FieldSchema) -> MessageSchema? {
        fieldIndex(number: field.number).flatMap { messageTypes[$0] }
    }

    /// The enum type of an enum-typed field (the value type of a map), once linked.
    public func enumType(of field: FieldSchema) -> EnumSchema? {
        fieldIndex(number: field.number).flatMap { enumTypes[$0] }
    }

    /// Index into `fields` of the field with this number.
    @inline(__always)
    func fieldIndex(number: Int) -> Int? {
        if number < denseNumberIndex.count {
            let i = denseNumberIndex[number]
            return i >= 0 ? Int(i) : nil
        }
        return sparseNumberIndex.isEmpty ? nil : sparseNumberIndex[number]
    }

    /// Resolves the referenced types through `registry`. Called once by the registry.
    func link(_ registry: SchemaRegistry) throws(ProtobufError) {
        guard self.registry == nil || self.registry === registry else {
            throw ProtobufError("message \(fullName) is already linked into another registry")
        }
        self.registry = registry
        for (i, f) in fields.enumerated() {
            if case .map(let key, _) = f.cardinality {
                switch key {
                case .double, .float, .bytes, .enumeration, .message:
                    throw ProtobufError("map field \(fullName).\(f.name) has an invalid key type \(key.descriptorName)")
                default: break
                }
            }
            switch f.type {
            case .message(let name):
                guard let m = registry.message(named: name) else {
                    throw ProtobufError("field \(fullName).\(f.name) names unknown message \(name)")
                }
                messageTypes[i] = m
            case .enumeration(let name):
                guard let e = registry.enumeration(named: name) else {
                    throw ProtobufError("field \(fullName).\(f.name) names unknown enum \(name)")
                }
                enumTypes[i] = e
            default: break
            }
        }
        if oneofs.count > MessageSchema.maxOneofs {
            throw ProtobufError("message \(fullName) has more than \(MessageSchema.maxOneofs) oneofs")
        }
    }

    /// The most oneofs a message may have (the codec tracks them in a fixed-size inline array).
    static let maxOneofs = 4
}
