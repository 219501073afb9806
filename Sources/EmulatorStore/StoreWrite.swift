import EmulatorCore

/// A write precondition.
public enum Precondition: Sendable, Equatable {
    /// The document must (not) exist.
    case exists(Bool)
    /// The document must exist with exactly this update time.
    case updateTime(Timestamp)

    /// Decodes `{exists}` or `{updateTime}`; nil for absent or empty.
    public init?(json: JSON?) throws {
        guard let json, case .object(let o) = json, !o.isEmpty else { return nil }
        if let e = o["exists"] {
            guard let b = e.boolValue else { throw EmulatorError.invalidArgument("currentDocument.exists must be a boolean.") }
            self = .exists(b)
        } else if let u = o["updateTime"] {
            guard let s = u.stringValue, let t = Timestamp(rfc3339: s) else {
                throw EmulatorError.invalidArgument("currentDocument.updateTime must be an RFC 3339 timestamp.")
            }
            self = .updateTime(t.truncatedToMicroseconds)
        } else {
            throw EmulatorError.invalidArgument("currentDocument must have 'exists' or 'updateTime'.")
        }
    }
}

/// A field transform (write.proto DocumentTransform.FieldTransform).
public struct FieldTransform: Sendable, Equatable {
    /// What the transform does.
    public enum Kind: Sendable, Equatable {
        case serverTime, increment(Value), maximum(Value), minimum(Value), appendMissing([Value]), removeAll([Value])
    }
    /// Target field.
    public var path: FieldPath
    /// Operation.
    public var kind: Kind

    init(json: JSON) throws {
        let path = try FieldPath(parsing: json["fieldPath"]?.stringValue ?? "")
        for segment in path.segments { try FieldPath.validateName(segment) }
        self.path = path
        func number(_ key: String) throws -> Value {
            let v = try Value(json: json[key] ?? .null, field: "\(key) on \(path)")
            guard v.isNumber else { throw EmulatorError.invalidArgument("'\(key)' on '\(path)' needs an integer or double operand.") }
            return v
        }
        func array(_ key: String) throws -> [Value] {
            let v = try Value(json: ["arrayValue": json[key] ?? .null], field: "\(key) on \(path)")
            guard case .array(let a) = v else { return [] }
            return a
        }
        if let s = json["setToServerValue"] {
            guard s.stringValue == "REQUEST_TIME" || s.intValue == 1 else {
                throw EmulatorError.invalidArgument("setToServerValue must be REQUEST_TIME.")
            }
            kind = .serverTime
        } else if json["increment"] != nil {
            kind = .increment(try number("increment"))
        } else if json["maximum"] != nil {
            kind = .maximum(try number("maximum"))
        } else if json["minimum"] != nil {
            kind = .minimum(try number("minimum"))
        } else if json["appendMissingElements"] != nil {
            kind = .appendMissing(try array("appendMissingElements"))
        } else if json["removeAllFromArray"] != nil {
            kind = .removeAll(try array("removeAllFromArray"))
        } else {
            throw EmulatorError.invalidArgument("Field transform on '\(path)' has no operation.")
        }
    }

    /// Applies the transform to the current value; returns the new value and the transform result.
    func apply(to current: Value?, time: Timestamp) -> (Value, Value) {
        switch kind {
        case .serverTime:
            return (.timestamp(time), .timestamp(time))
        case .increment(let op):
            guard let cur = current, cur.isNumber else { return (op, op) }
            let r: Value
            if case .integer(let a) = cur, case .integer(let b) = op {
                let (s, overflow) = a.addingReportingOverflow(b)
                r = .integer(overflow ? (b > 0 ? .max : .min) : s)
            } else {
                r = .double((cur.numericDouble ?? 0) + (op.numericDouble ?? 0))  // both are numbers (checked above)
            }
            return (r, r)
        case .maximum(let op), .minimum(let op):
            guard let cur = current, cur.isNumber else { return (op, op) }
            let isMax: Bool
            if case .maximum = kind { isMax = true } else { isMax = false }
            if cur.isNaN || op.isNaN { return (.double(.nan), .double(.nan)) }
            let c = Value.compare(op, cur)
            let r = (isMax ? c > 0 : c < 0) ? op : cur
            return (r, r)
        case .appendMissing(let items):
            var arr: [Value] = []
            if case .array(let a)? = current { arr = a }
            var seen = ValueSet(arr)
            for i in items where !seen.contains(i) {
                arr.append(i)
                seen.insert(i)
            }
            return (.array(arr), .null)
        case .removeAll(let items):
            var arr: [Value] = []
            if case .array(let a)? = current { arr = a }
            let removed = ValueSet(items)
            arr.removeAll { removed.contains($0) }
            return (.array(arr), .null)
        }
    }
}

/// One write of a commit or batch.
public struct StoreWrite: Sendable, Equatable {
    /// The operation.
    public enum Operation: Sendable, Equatable {
        /// Set (with `updateMask`: merge) the fields.
        case update(FieldMap)
        /// Delete the document.
        case delete
        /// Only apply `transforms`.
        case transform
        /// Only check the precondition (`Write.verify`, which mobile SDKs send in transactions
        /// though the published protos lack it): nothing is written, nothing is created.
        case verify

        /// Set from a Swift dictionary of fields.
        public static func update(_ fields: [String: Value]) -> Operation { .update(FieldMap(fields)) }
    }

    /// Database-relative document path.
    public var path: String
    /// The operation.
    public var operation: Operation
    /// Fields to write (update with mask).
    public var updateMask: [FieldPath]?
    /// Transforms applied after the update.
    public var transforms: [FieldTransform]
    /// Precondition.
    public var precondition: Precondition?

    /// Creates a write.
    public init(
        path: String, operation: Operation, updateMask: [FieldPath]? = nil, transforms: [FieldTransform] = [], precondition: Precondition? = nil
    ) {
        self.path = path
        self.operation = operation
        self.updateMask = updateMask
        self.transforms = transforms
        self.precondition = precondition
    }

    /// Decodes a REST `Write`; document names must belong to `project`/`database`.
    public init(json: JSON, project: String, database: String) throws {
        func relative(_ name: JSON?) throws -> String {
            guard let n = name?.stringValue, let p = DocumentName.parse(n) else {
                throw EmulatorError.invalidArgument("Write needs a document name projects/{project}/databases/{database}/documents/{path}.")
            }
            guard p.project == project, p.database == database else {
                throw EmulatorError.invalidArgument("Document '\(n)' is not in database projects/\(project)/databases/\(database).")
            }
            try DocumentName.validateDocumentPath(p.path)
            return p.path
        }
        transforms = try (json["updateTransforms"]?.arrayValue ?? []).map { try FieldTransform(json: $0) }
        precondition = try Precondition(json: json["currentDocument"])
        if let u = json["update"] {
            path = try relative(u["name"])
            operation = .update(try Value.decodeFields(u["fields"], field: "fields", depth: 0))
        } else if let d = json["delete"] {
            path = try relative(d)
            operation = .delete
        } else if let t = json["transform"] {
            path = try relative(t["document"])
            operation = .transform
            transforms += try (t["fieldTransforms"]?.arrayValue ?? []).map { try FieldTransform(json: $0) }
        } else if let v = json["verify"] {
            // SDKs send an unpublished `verify` in transactions: a precondition-only write.
            path = try relative(v)
            operation = .verify
        } else {
            throw EmulatorError.invalidArgument("A write needs one of update, delete or transform.")
        }
        if case .object(let m)? = json["updateMask"] {
            updateMask = try (m["fieldPaths"]?.arrayValue ?? []).map { try FieldPath(parsing: $0.stringValue ?? "") }
        }
        if transforms.count > 500 { throw EmulatorError.invalidArgument("A write may have at most 500 field transforms.") }
        // One field and a field inside it cannot both be transformed (the same field twice can).
        for (i, a) in transforms.enumerated() {
            for b in transforms[(i + 1)...] where a.path != b.path && (a.path.isPrefix(of: b.path) || b.path.isPrefix(of: a.path)) {
                let parent = a.path.isPrefix(of: b.path) ? a.path : b.path
                throw EmulatorError.invalidArgument("Cannot transform property \(parent) and its nested property at the same time.")
            }
        }
    }
}
