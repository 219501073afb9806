import EmulatorCore

/// Production's refusal of a query that lacks an index, with its Firebase console link. The
/// link carries a `google.firestore.admin.v1.Index` message (name, query scope, fields),
/// base64url without padding: `create_composite=` for a composite index (name ending in
/// `/indexes/_`), `create_exemption=` for a single-field index (name ending in `/fields/<path>`).
public enum IndexConsoleLink {
    /// What production appends when the query has range filters on several fields.
    static let multipleRangeFieldsNote =
        " .\nThe query contains range and inequality filters on multiple fields, please refer to the documentation for index selection best practices: https://cloud.google.com/firestore/docs/query-data/multiple-range-fields."

    /// The FAILED_PRECONDITION message for `need` in `projects/{project}/databases/{database}`.
    public static func message(for need: IndexNeed, project: String, database: String) -> String {
        let base = "https://console.firebase.google.com/v1/r/project/\(project)/firestore/indexes"
        let prefix = "projects/\(project)/databases/\(database)/collectionGroups/\(need.index.collectionGroup)"
        switch need.kind {
        case .singleField:
            let field = need.index.fields.first ?? IndexField(FieldPath.name.description, .ascending)
            let scope = need.index.queryScope.rawValue
            let blob = encode(name: "\(prefix)/fields/\(field.fieldPath)", scope: need.index.queryScope, fields: [field])
            return
                "The query requires a \(scope)_\(field.mode.shortName) index for collection \(need.index.collectionGroup) and field \(field.fieldPath). You can create it here: \(base)?create_exemption=\(blob)"
        case .composite:
            let blob = encode(name: "\(prefix)/indexes/_", scope: need.index.queryScope, fields: need.index.fields)
            let text = "The query requires an index. You can create it here: \(base)?create_composite=\(blob)"
            return need.multipleInequalities ? text + multipleRangeFieldsNote : text
        }
    }

    /// base64url (unpadded) of the admin.v1 `Index` message: 1 name, 2 query_scope, 3 fields
    /// (`IndexField`: 1 field_path, 2 order, 3 array_config).
    public static func encode(name: String, scope: IndexQueryScope, fields: [IndexField]) -> String {
        var out: [UInt8] = []
        appendBytes(&out, field: 1, Array(name.utf8))
        appendVarint(&out, field: 2, scope.number)
        for f in fields {
            var m: [UInt8] = []
            appendBytes(&m, field: 1, Array(f.fieldPath.utf8))
            switch f.mode {
            case .ascending: appendVarint(&m, field: 2, 1)
            case .descending: appendVarint(&m, field: 2, 2)
            case .contains: appendVarint(&m, field: 3, 1)
            case .vector: break
            }
            appendBytes(&out, field: 3, m)
        }
        return Base64.urlEncode(out)
    }

    /// Appends a protobuf base-128 varint.
    static func varint(_ value: UInt64, into out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        out.append(UInt8(truncatingIfNeeded: v))
    }

    /// Appends a varint field (wire type 0).
    static func appendVarint(_ out: inout [UInt8], field: UInt64, _ value: UInt64) {
        varint(field << 3, into: &out)
        varint(value, into: &out)
    }

    /// Appends a length-delimited field (wire type 2).
    static func appendBytes(_ out: inout [UInt8], field: UInt64, _ bytes: [UInt8]) {
        varint(field << 3 | 2, into: &out)
        varint(UInt64(bytes.count), into: &out)
        out += bytes
    }
}
