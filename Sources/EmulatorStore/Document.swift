import EmulatorCore

/// A stored document. `path` is database-relative (`tasks/t1`).
public struct Document: Sendable, Equatable {
    /// Database-relative path.
    public var path: String
    /// Top-level fields.
    public var fields: [String: Value]
    /// When the document was created (reset by delete + recreate).
    public var createTime: Timestamp
    /// When it last changed.
    public var updateTime: Timestamp

    /// Creates a document.
    public init(path: String, fields: [String: Value], createTime: Timestamp, updateTime: Timestamp) {
        self.path = path
        self.fields = fields
        self.createTime = createTime
        self.updateTime = updateTime
    }

    /// The document id (last path segment).
    public var id: String { DocumentName.lastSegment(path) }

    /// The REST form, optionally limited to `mask` fields.
    public func json(project: String, database: String, mask: [FieldPath]? = nil) -> JSON {
        var out: [String: JSON] = [
            "name": .string(DocumentName.full(project: project, database: database, path: path)),
            "createTime": .string(createTime.rfc3339()),
            "updateTime": .string(updateTime.rfc3339()),
        ]
        var f = fields
        if let mask {
            f = [:]
            for p in mask where !p.isName { if let v = p.get(in: fields) { p.set(v, in: &f) } }
        }
        if !f.isEmpty { out["fields"] = .object(f.mapValues(\.json)) }
        return .object(out)
    }

    /// Firestore's storage size estimate (name + fields + 32), for the 1 MiB limit.
    var storageSize: Int { path.utf8.count + 16 + fields.reduce(0) { $0 + $1.key.utf8.count + 1 + $1.value.storageSize } + 32 }
}
