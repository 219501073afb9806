import EmulatorCore

/// Which collections an index serves: one collection under a given parent (`COLLECTION`), or
/// every collection with the id (`COLLECTION_GROUP`), as `google.firestore.admin.v1.Index.QueryScope`.
public enum IndexQueryScope: String, Sendable, Hashable, Comparable {
    /// Queries on one collection (`collection(...)`).
    case collection = "COLLECTION"
    /// Collection-group queries (`collection_group(...)`).
    case collectionGroup = "COLLECTION_GROUP"

    /// The proto enum number (admin.v1 `Index.QueryScope`).
    var number: UInt64 { self == .collection ? 1 : 2 }

    /// Collection scope first, as listings show them.
    public static func < (a: Self, b: Self) -> Bool { a == .collection && b == .collectionGroup }
}

/// How one field takes part in an index: ordered, array-contains, or a vector.
public enum IndexFieldMode: Sendable, Hashable {
    /// `"order": "ASCENDING"`.
    case ascending
    /// `"order": "DESCENDING"`.
    case descending
    /// `"arrayConfig": "CONTAINS"`.
    case contains
    /// `"vectorConfig": {"dimension": n, "flat": {}}`.
    case vector(dimension: Int)

    /// The suffix production puts in a single-field index's name (`COLLECTION_ASC`...).
    var shortName: String {
        switch self {
        case .ascending: "ASC"
        case .descending: "DESC"
        case .contains: "CONTAINS"
        case .vector: "VECTOR"
        }
    }
}

/// One field of an index definition.
public struct IndexField: Sendable, Hashable {
    /// The field path as written in `firestore.indexes.json` (`a.b`, `` `odd name` ``, `__name__`).
    public var fieldPath: String
    /// Its mode.
    public var mode: IndexFieldMode

    /// Creates a field.
    public init(_ fieldPath: String, _ mode: IndexFieldMode) {
        self.fieldPath = fieldPath
        self.mode = mode
    }

    /// The `firestore.indexes.json` form: `{"fieldPath", "order" | "arrayConfig" | "vectorConfig"}`.
    public var json: JSON {
        var o: UTF8Dictionary<JSON> = ["fieldPath": .string(fieldPath)]
        switch mode {
        case .ascending: o["order"] = "ASCENDING"
        case .descending: o["order"] = "DESCENDING"
        case .contains: o["arrayConfig"] = "CONTAINS"
        case .vector(let d): o["vectorConfig"] = ["dimension": .int(Int64(d)), "flat": .object([:])]
        }
        return .object(o)
    }

    /// Decodes one entry of an index's `fields` (vector dimensions 1-2048, as production
    /// accepts); `context` names it in errors.
    init(json: JSON, context: String) throws {
        guard case .object(let o) = json else { throw EmulatorError.invalidArgument("\(context) must be an object") }
        guard let path = o["fieldPath"]?.stringValue, !path.isEmpty else {
            throw EmulatorError.invalidArgument("\(context).fieldPath must be a non-empty string")
        }
        _ = try FieldPath(parsing: path)
        fieldPath = path
        let modes = ["order", "arrayConfig", "vectorConfig"].filter { o[$0] != nil && o[$0]?.isNull == false }
        guard modes.count == 1 else {
            throw EmulatorError.invalidArgument("\(context) ('\(path)') needs exactly one of order, arrayConfig or vectorConfig")
        }
        switch modes[0] {
        case "order":
            switch o["order"]?.stringValue {
            case "ASCENDING": mode = .ascending
            case "DESCENDING": mode = .descending
            default: throw EmulatorError.invalidArgument("\(context).order must be ASCENDING or DESCENDING")
            }
        case "arrayConfig":
            guard o["arrayConfig"]?.stringValue == "CONTAINS" else { throw EmulatorError.invalidArgument("\(context).arrayConfig must be CONTAINS") }
            mode = .contains
        default:
            let d = o["vectorConfig"]?["dimension"]
            guard let n = d?.intValue ?? d?.stringValue.flatMap({ Int64($0) }), (1...2048).contains(n) else {
                throw EmulatorError.invalidArgument("\(context).vectorConfig.dimension must be an integer from 1 to 2048")
            }
            mode = .vector(dimension: Int(n))
        }
    }
}

/// A composite index of `firestore.indexes.json` (`indexes[]`): a collection group, a scope and
/// an ordered list of fields.
public struct CompositeIndex: Sendable, Hashable {
    /// The collection id.
    public var collectionGroup: String
    /// Collection or collection-group scope.
    public var queryScope: IndexQueryScope
    /// The fields in index order (a trailing `__name__` is optional).
    public var fields: [IndexField]

    /// Creates an index.
    public init(collectionGroup: String, queryScope: IndexQueryScope, fields: [IndexField]) {
        self.collectionGroup = collectionGroup
        self.queryScope = queryScope
        self.fields = fields
    }

    /// The `firestore.indexes.json` form.
    public var json: JSON {
        ["collectionGroup": .string(collectionGroup), "queryScope": .string(queryScope.rawValue), "fields": .array(fields.map(\.json))]
    }
}

/// One single-field index setting of a `fieldOverrides` entry: a mode in a scope.
public struct SingleFieldIndex: Sendable, Hashable {
    /// The scope the index serves.
    public var queryScope: IndexQueryScope
    /// Ascending, descending or array-contains.
    public var mode: IndexFieldMode

    /// Creates one.
    public init(queryScope: IndexQueryScope, mode: IndexFieldMode) {
        self.queryScope = queryScope
        self.mode = mode
    }
}

/// A `fieldOverrides` entry: the single-field indexes of one field of one collection group,
/// replacing the automatic ones (an empty list exempts the field from indexing).
public struct FieldOverride: Sendable, Hashable {
    /// The collection id.
    public var collectionGroup: String
    /// The field path as written.
    public var fieldPath: String
    /// The enabled single-field indexes.
    public var indexes: [SingleFieldIndex]

    /// Creates an override.
    public init(collectionGroup: String, fieldPath: String, indexes: [SingleFieldIndex]) {
        self.collectionGroup = collectionGroup
        self.fieldPath = fieldPath
        self.indexes = indexes
    }

    /// The `firestore.indexes.json` form.
    public var json: JSON {
        [
            "collectionGroup": .string(collectionGroup), "fieldPath": .string(fieldPath),
            "indexes": .array(
                indexes.map { i in
                    var o = IndexField(fieldPath, i.mode).json.objectValue ?? [:]
                    o["fieldPath"] = nil
                    o["queryScope"] = .string(i.queryScope.rawValue)
                    return .object(o)
                }),
        ]
    }
}
