import EmulatorCore

/// A stored document. `path` is database-relative (`tasks/t1`).
public struct Document: Sendable, Equatable {
    /// Same path (by bytes), fields and times.
    public static func == (a: Document, b: Document) -> Bool {
        a.path.utf8Equals(b.path) && a.createTime == b.createTime && a.updateTime == b.updateTime && a.fields == b.fields
    }

    /// Database-relative path.
    public var path: String
    /// Top-level fields (names compared by bytes).
    public var fields: FieldMap
    /// When the document was created (reset by delete + recreate).
    public var createTime: Timestamp
    /// When it last changed.
    public var updateTime: Timestamp

    /// Creates a document.
    public init(path: String, fields: FieldMap, createTime: Timestamp, updateTime: Timestamp) {
        self.path = path
        self.fields = fields
        self.createTime = createTime
        self.updateTime = updateTime
    }

    /// Creates a document from a Swift dictionary of fields.
    public init(path: String, fields: [String: Value], createTime: Timestamp, updateTime: Timestamp) {
        self.init(path: path, fields: FieldMap(fields), createTime: createTime, updateTime: updateTime)
    }

    /// The document id (last path segment).
    public var id: String { DocumentName.lastSegment(path) }

    /// The REST form, optionally limited to `mask` fields (an empty mask: no fields at all).
    public func json(project: String, database: String, mask: [FieldPath]? = nil) -> JSON {
        var out: UTF8Dictionary<JSON> = [
            "name": .string(DocumentName.full(project: project, database: database, path: path)),
            "createTime": .string(createTime.rfc3339()),
            "updateTime": .string(updateTime.rfc3339()),
        ]
        var f = fields
        if let mask {
            f = FieldMap()
            for p in mask where !p.isName { if let v = p.get(in: fields) { p.set(v, in: &f) } }
        }
        if !f.isEmpty { out["fields"] = .object(f.mapValues(\.json)) }
        return .object(out)
    }

    /// Firestore's storage size estimate (name + fields + 32), for the 1 MiB limit.
    var storageSize: Int { path.utf8.count + 16 + fields.storage.reduce(0) { $0 + $1.key.string.utf8.count + 1 + $1.value.storageSize } + 32 }
}
