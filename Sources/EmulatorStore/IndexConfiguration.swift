import EmulatorCore

/// The indexes a project declares in `firestore.indexes.json` (`indexes` and `fieldOverrides`),
/// the file `firebase deploy --only firestore:indexes` reads and `firebase firestore:indexes`
/// writes. Unknown keys are refused so a typo does not silently drop an index.
public struct IndexConfiguration: Sendable, Equatable {
    /// Composite indexes.
    public var indexes: [CompositeIndex]
    /// Single-field index overrides and exemptions.
    public var fieldOverrides: [FieldOverride]

    /// At most this many entries are read from one file (production allows 200 composite
    /// indexes and 200 overrides per database; the margin keeps a hostile file bounded).
    static let maxEntries = 1_000

    /// Creates a configuration.
    public init(indexes: [CompositeIndex] = [], fieldOverrides: [FieldOverride] = []) {
        self.indexes = indexes
        self.fieldOverrides = fieldOverrides
    }

    /// Decodes the file's JSON object. Errors name the entry and the key.
    public init(json: JSON) throws {
        guard case .object(let root) = json else {
            throw EmulatorError.invalidArgument("an index file must hold a JSON object with 'indexes' and 'fieldOverrides'")
        }
        for k in root.keys.sorted() where !["indexes", "fieldOverrides"].contains(k) {
            throw EmulatorError.invalidArgument("unknown key '\(k)' (known: fieldOverrides, indexes)")
        }
        let rawIndexes = try Self.list(root["indexes"], "indexes")
        let rawOverrides = try Self.list(root["fieldOverrides"], "fieldOverrides")
        indexes = try rawIndexes.enumerated().map { i, entry in try Self.composite(entry, "indexes[\(i)]") }
        fieldOverrides = try rawOverrides.enumerated().map { i, entry in try Self.override(entry, "fieldOverrides[\(i)]") }
    }

    /// Parses file text.
    public init(text: [UInt8]) throws {
        let json: JSON
        do { json = try JSON.parse(text) } catch { throw EmulatorError.invalidArgument("not valid JSON: \(error)") }
        try self.init(json: json)
    }

    /// The `firestore.indexes.json` form (always both keys, as the Firebase CLI writes them).
    public var json: JSON {
        ["indexes": .array(indexes.map(\.json)), "fieldOverrides": .array(fieldOverrides.map(\.json))]
    }

    /// An optional array member (absent or null = empty), bounded at `maxEntries`.
    static func list(_ v: JSON?, _ key: String) throws -> [JSON] {
        guard let v, !v.isNull else { return [] }
        guard case .array(let a) = v else { throw EmulatorError.invalidArgument("'\(key)' must be an array") }
        guard a.count <= maxEntries else { throw EmulatorError.invalidArgument("'\(key)' has \(a.count) entries; at most \(maxEntries) are read") }
        return a
    }

    /// An entry's `collectionGroup` (`collectionId`, the older spelling, also read).
    static func collectionGroup(_ o: UTF8Dictionary<JSON>, _ context: String) throws -> String {
        guard let g = o["collectionGroup"]?.stringValue ?? o["collectionId"]?.stringValue, !g.isEmpty, !g.contains("/") else {
            throw EmulatorError.invalidArgument("\(context).collectionGroup must be a collection id")
        }
        return g
    }

    /// A `queryScope` (absent = `COLLECTION`, as the Firebase CLI defaults it).
    static func scope(_ v: JSON?, _ context: String) throws -> IndexQueryScope {
        guard let v, !v.isNull else { return .collection }
        guard let s = v.stringValue, let scope = IndexQueryScope(rawValue: s) else {
            throw EmulatorError.invalidArgument("\(context).queryScope must be COLLECTION or COLLECTION_GROUP")
        }
        return scope
    }

    /// One `indexes` entry.
    static func composite(_ entry: JSON, _ context: String) throws -> CompositeIndex {
        guard case .object(let o) = entry else { throw EmulatorError.invalidArgument("\(context) must be an object") }
        let group = try collectionGroup(o, context)
        guard case .array(let fs)? = o["fields"], !fs.isEmpty, fs.count <= 100 else {
            throw EmulatorError.invalidArgument("\(context).fields must be a non-empty array (at most 100 fields)")
        }
        let fields = try fs.enumerated().map { i, f in try IndexField(json: f, context: "\(context).fields[\(i)]") }
        return CompositeIndex(collectionGroup: group, queryScope: try scope(o["queryScope"], context), fields: fields)
    }

    /// One `fieldOverrides` entry (its `indexes` entries carry a mode and a `queryScope`).
    static func override(_ entry: JSON, _ context: String) throws -> FieldOverride {
        guard case .object(let o) = entry else { throw EmulatorError.invalidArgument("\(context) must be an object") }
        let group = try collectionGroup(o, context)
        guard let path = o["fieldPath"]?.stringValue, !path.isEmpty else {
            throw EmulatorError.invalidArgument("\(context).fieldPath must be a non-empty string")
        }
        _ = try FieldPath(parsing: path)
        let raw = try list(o["indexes"], "\(context).indexes")
        let indexes = try raw.enumerated().map { i, r -> SingleFieldIndex in
            let c = "\(context).indexes[\(i)]"
            guard case .object(var io) = r else { throw EmulatorError.invalidArgument("\(c) must be an object") }
            let s = try scope(io["queryScope"], c)
            io["queryScope"] = nil
            io["fieldPath"] = .string(path)
            let field = try IndexField(json: .object(io), context: c)
            if case .vector = field.mode { throw EmulatorError.invalidArgument("\(c): vector indexes are composite indexes, not field overrides") }
            return SingleFieldIndex(queryScope: s, mode: field.mode)
        }
        return FieldOverride(collectionGroup: group, fieldPath: path, indexes: indexes)
    }

    /// Whether the single-field index `mode` of `field` in `group` is enabled for `scope`:
    /// an override for the field decides; otherwise production's automatic indexing applies
    /// (ascending, descending and array-contains in collection scope; nothing in
    /// collection-group scope).
    public func singleFieldIndexEnabled(group: String, field: FieldPath, scope: IndexQueryScope, mode: IndexFieldMode) -> Bool {
        if field.isName { return true }
        if let o = fieldOverrides.last(where: { $0.collectionGroup == group && Self.samePath($0.fieldPath, field) }) {
            return o.indexes.contains { $0.queryScope == scope && $0.mode == mode }
        }
        return scope == .collection
    }

    /// Whether a written path names `field` (written paths may quote segments).
    static func samePath(_ written: String, _ field: FieldPath) -> Bool {
        (try? FieldPath(parsing: written)) == field
    }
}
