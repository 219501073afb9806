import EmulatorCore

/// A stored document. `path` is database-relative (`tasks/t1`).
///
/// A document made by `init` carries an empty `encodings` cache, which every copy of the value
/// shares (the store keeps one version in its map and its read-time history, and reads hand out
/// copies). Changing any property of a copy drops the cache from that copy (`encodings` becomes
/// nil), so a changed value is never answered with the bytes of the version it came from.
public struct Document: Sendable, Equatable {
    /// Same path (by bytes), fields and times (the encodings cache is not compared).
    public static func == (a: Document, b: Document) -> Bool {
        a.path.utf8Equals(b.path) && a.createTime == b.createTime && a.updateTime == b.updateTime && a.fields == b.fields
    }

    /// Database-relative path.
    public var path: String { didSet { encodings = nil } }
    /// Top-level fields (names compared by bytes).
    public var fields: FieldMap { didSet { encodings = nil } }
    /// When the document was created (reset by delete + recreate).
    public var createTime: Timestamp { didSet { encodings = nil } }
    /// When it last changed.
    public var updateTime: Timestamp { didSet { encodings = nil } }
    /// The wire encodings of this version, made on first read (`DocumentEncodings`); nil once the
    /// value has been changed after `init`.
    public private(set) var encodings: DocumentEncodings?

    /// Creates a document.
    public init(path: String, fields: FieldMap, createTime: Timestamp, updateTime: Timestamp) {
        self.path = path
        self.fields = fields
        self.createTime = createTime
        self.updateTime = updateTime
        self.encodings = DocumentEncodings()
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
