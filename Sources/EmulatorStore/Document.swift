import EmulatorCore

/// A stored document. `path` is database-relative (`tasks/t1`).
///
/// Memory: the value is one reference. A version's path, fields and times live in one immutable
/// object (`Document.Storage`, allocated by `init`), which every copy shares (the store keeps a
/// version in its map and its read-time history, and reads hand out copies) and which also holds
/// the version's encoding slots (`DocumentEncodings`): empty until a first read fills one, so an
/// unread version costs no encodings and no second object.
///
/// Changing any property of a copy gives that copy a new storage object without a cache
/// (`encodings` becomes nil), so a changed value is never answered with the bytes of the version
/// it came from.
public struct Document: Sendable, Equatable {
    /// The contents of one version and its encoding slots. Immutable: a change makes a new one.
    final class Storage: DocumentEncodings, @unchecked Sendable {
        // Sendable: every stored property is a `let` of a Sendable type; the inherited slots are
        // atomic set-once references.
        let path: String
        let fields: FieldMap
        let createTime: Timestamp
        let updateTime: Timestamp
        /// False for a value changed after `init`: it has no cache.
        let isVersion: Bool

        init(path: String, fields: FieldMap, createTime: Timestamp, updateTime: Timestamp, isVersion: Bool) {
            self.path = path
            self.fields = fields
            self.createTime = createTime
            self.updateTime = updateTime
            self.isVersion = isVersion
        }
    }

    private var storage: Storage

    /// Same path (by bytes), fields and times (the encodings cache is not compared).
    public static func == (a: Document, b: Document) -> Bool {
        if a.storage === b.storage { return true }
        return a.path.utf8Equals(b.path) && a.createTime == b.createTime && a.updateTime == b.updateTime && a.fields == b.fields
    }

    /// A copy of the contents with one property replaced, without a cache.
    private mutating func change(
        path: String? = nil, fields: FieldMap? = nil, createTime: Timestamp? = nil, updateTime: Timestamp? = nil
    ) {
        storage = Storage(
            path: path ?? storage.path, fields: fields ?? storage.fields, createTime: createTime ?? storage.createTime,
            updateTime: updateTime ?? storage.updateTime, isVersion: false)
    }

    /// Database-relative path.
    public var path: String {
        get { storage.path }
        set { change(path: newValue) }
    }
    /// Top-level fields (names compared by bytes).
    public var fields: FieldMap {
        get { storage.fields }
        set { change(fields: newValue) }
    }
    /// When the document was created (reset by delete + recreate).
    public var createTime: Timestamp {
        get { storage.createTime }
        set { change(createTime: newValue) }
    }
    /// When it last changed.
    public var updateTime: Timestamp {
        get { storage.updateTime }
        set { change(updateTime: newValue) }
    }
    /// The wire encodings of this version, filled on first read (`DocumentEncodings`); nil once
    /// the value has been changed after `init`. Copies of one version share it.
    public var encodings: DocumentEncodings? { storage.isVersion ? storage : nil }

    /// Creates a document.
    public init(path: String, fields: FieldMap, createTime: Timestamp, updateTime: Timestamp) {
        storage = Storage(path: path, fields: fields, createTime: createTime, updateTime: updateTime, isVersion: true)
    }

    /// Creates a document from a Swift dictionary of fields.
    public init(path: String, fields: [String: Value], createTime: Timestamp, updateTime: Timestamp) {
        self.init(path: path, fields: FieldMap(fields), createTime: createTime, updateTime: updateTime)
    }

    /// The document id (last path segment).
    public var id: String { DocumentName.lastSegment(path) }

    /// The REST form, optionally limited to `mask` fields (an empty mask: no fields at all).
    public func json(project: String, database: String, mask: FieldMask? = nil) -> JSON {
        var out: UTF8Dictionary<JSON> = [
            "name": .string(DocumentName.full(project: project, database: database, path: path)),
            "createTime": .string(createTime.rfc3339()),
            "updateTime": .string(updateTime.rfc3339()),
        ]
        let f = mask?.apply(to: fields) ?? fields
        if !f.isEmpty { out["fields"] = .object(f.mapValues(\.json)) }
        return .object(out)
    }

    /// Firestore's storage size estimate (name + fields + 32), for the 1 MiB limit.
    var storageSize: Int { path.utf8.count + 16 + fields.storage.reduce(0) { $0 + $1.key.string.utf8.count + 1 + $1.value.storageSize } + 32 }
}
