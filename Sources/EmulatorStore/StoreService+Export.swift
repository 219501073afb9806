import EmulatorCore

/// Export, import and journal replay: the store's data as JSON, in a documented layout
/// (docs/admin-api.md): `{"databases": {"(default)": {"documents": [Document...]}}}` where each
/// document is its REST form with a database-relative `path` instead of `name`.
extension StoreService: PersistentParticipant {
    /// The JSON form of one document for exports and journals.
    static func exportJSON(_ d: Document) -> JSON {
        var o: [String: JSON] = ["path": .string(d.path), "createTime": .string(d.createTime.rfc3339()), "updateTime": .string(d.updateTime.rfc3339())]
        if !d.fields.isEmpty { o["fields"] = .object(d.fields.mapValues(\.json)) }
        return .object(o)
    }

    static func importDocument(_ j: JSON) throws -> Document {
        guard let path = j["path"]?.stringValue, let c = j["createTime"]?.stringValue.flatMap({ Timestamp(rfc3339: $0) }),
              let u = j["updateTime"]?.stringValue.flatMap({ Timestamp(rfc3339: $0) }) else {
            throw EmulatorError.invalidArgument("export document needs path, createTime and updateTime")
        }
        try DocumentName.validateDocumentPath(path)
        return Document(path: path, fields: try Value.decodeFields(j["fields"], field: "fields", depth: 0), createTime: c, updateTime: u)
    }

    /// Every database of `project` as JSON.
    public func exportProject(_ project: String) -> JSON {
        var dbs: [String: JSON] = [:]
        for db in databases(of: project) {
            let docs = box(project, db).data.withLock { $0.state.docs.values.sorted { DocumentName.compareNames($0.path, $1.path) < 0 } }
            if !docs.isEmpty { dbs[db] = ["documents": .array(docs.map(Self.exportJSON))] }
        }
        return ["databases": .object(dbs)]
    }

    /// Projects that hold documents.
    public var projectsWithData: [String] {
        Array(Set(boxes().filter { !$0.value.data.withLock { $0.state.docs.isEmpty } }.map(\.key.project))).sorted()
    }

    /// Replaces `project`'s data with an export. Validates everything before changing anything.
    public func importProject(_ project: String, _ json: JSON) throws {
        var states: [String: DatabaseState] = [:]
        for (db, content) in json["databases"]?.objectValue ?? [:] {
            var state = DatabaseState()
            for d in content["documents"]?.arrayValue ?? [] {
                let doc = try Self.importDocument(d)
                state.put(doc)
                state.lastCommit = max(state.lastCommit, doc.updateTime)
            }
            states[db] = state
        }
        replaceProject(project, with: states)
    }

    /// The journal form of a committed change batch.
    public static func journalEntry(_ batch: StoreChangeBatch) -> JSON {
        ["database": .string(batch.database), "commitTime": .string(batch.commitTime.rfc3339()),
         "changes": .array(batch.changes.map { c in
             c.after.map { ["put": exportJSON($0)] } ?? ["delete": .string(c.path)]
         })]
    }

    /// Re-applies a journal entry written by `journalEntry` (crash recovery).
    public func replay(project: String, entry: JSON) throws {
        guard let db = entry["database"]?.stringValue, let t = entry["commitTime"]?.stringValue.flatMap({ Timestamp(rfc3339: $0) }) else {
            throw EmulatorError.invalidArgument("journal entry needs database and commitTime")
        }
        try box(project, db).data.withLock { d in
            for c in entry["changes"]?.arrayValue ?? [] {
                if let put = c["put"] { d.state.put(try Self.importDocument(put)) } else if let p = c["delete"]?.stringValue { d.state.remove(p, at: t) }
            }
            d.state.lastCommit = max(d.state.lastCommit, t)
        }
    }

    private func boxes() -> [DatabaseKey: DatabaseBox] { allBoxes() }
}
