import EmulatorCore

/// The index needs seen for one database, in the order first seen, and the
/// `firestore.indexes.json` that adds the missing ones. A value type (its owner keeps it behind
/// a lock); bounded at `limit` needs so a query generator cannot grow it without end.
public struct IndexSuggestions: Sendable, Equatable {
    /// The needs in first-seen order.
    public private(set) var needs: [IndexNeed] = []
    /// Most needs kept per database.
    public static let limit = 1_000

    /// An empty record.
    public init() {}

    /// Records `need`; true when it was not seen before (and was kept).
    public mutating func record(_ need: IndexNeed) -> Bool {
        guard needs.count < Self.limit, !needs.contains(need) else { return false }
        needs.append(need)
        return true
    }

    /// The index file: `configured` plus every recorded need it does not serve (composite
    /// indexes as `indexes`, single-field ones as `fieldOverrides` that keep the field's other
    /// indexes); only the additions when `missingOnly`.
    public func file(configured: IndexConfiguration, missingOnly: Bool) -> IndexConfiguration {
        var out = missingOnly ? IndexConfiguration() : configured
        for need in needs where !configured.serves(need) {
            switch need.kind {
            case .composite:
                if !out.indexes.contains(need.index) { out.indexes.append(need.index) }
            case .singleField:
                guard let field = need.index.fields.first else { continue }
                let wanted = SingleFieldIndex(queryScope: need.index.queryScope, mode: field.mode)
                let group = need.index.collectionGroup
                if let i = out.fieldOverrides.lastIndex(where: { $0.collectionGroup == group && $0.fieldPath == field.fieldPath }) {
                    if !out.fieldOverrides[i].indexes.contains(wanted) { out.fieldOverrides[i].indexes.append(wanted) }
                    continue
                }
                // An override replaces the field's automatic indexes: keep the ones it has now.
                let parsed = try? FieldPath(parsing: field.fieldPath)
                let current =
                    configured.fieldOverrides.last(where: { o in
                        o.collectionGroup == group && parsed.map { IndexConfiguration.samePath(o.fieldPath, $0) } == true
                    })?.indexes ?? [.ascending, .descending, .contains].map { SingleFieldIndex(queryScope: .collection, mode: $0) }
                out.fieldOverrides.append(FieldOverride(collectionGroup: group, fieldPath: field.fieldPath, indexes: current + [wanted]))
            }
        }
        return out
    }
}
