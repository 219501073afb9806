import EmulatorCore

/// Export, import and journal replay: the store's data as JSON, in a documented layout
/// (docs/admin-api.md): `{"databases": {"(default)": {"documents": [Document...]}}}` where each
/// document is its REST form with a database-relative `path` instead of `name`.
extension StoreService: PersistentParticipant {
    /// The JSON form of one document for exports and journals.
    static func exportJSON(_ d: Document) -> JSON {
        var o: UTF8Dictionary<JSON> = [
            "path": .string(d.path), "createTime": .string(d.createTime.rfc3339()), "updateTime": .string(d.updateTime.rfc3339()),
        ]
        if !d.fields.isEmpty { o["fields"] = .object(d.fields.mapValues(\.json)) }
        return .object(o)
    }

    static func importDocument(_ j: JSON) throws -> Document {
        guard let path = j["path"]?.stringValue, let c = j["createTime"]?.stringValue.flatMap({ Timestamp(rfc3339: $0) }),
            let u = j["updateTime"]?.stringValue.flatMap({ Timestamp(rfc3339: $0) })
        else {
            throw EmulatorError.invalidArgument("export document needs path, createTime and updateTime")
        }
        try DocumentName.validateDocumentPath(path)
        return Document(path: path, fields: try Value.decodeFields(j["fields"], field: "fields", depth: 0), createTime: c, updateTime: u)
    }

    /// Every database of `project` as JSON.
    public func exportProject(_ project: String) -> JSON {
        var dbs: UTF8Dictionary<JSON> = [:]
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

    /// Replaces `project`'s data with an export. Validates everything (ids included) before
    /// changing anything; journaled as whole-database replacements when a journal is installed.
    public func importProject(_ project: String, _ json: JSON) throws {
        try ResourceId.project(project)
        var states: [String: DatabaseState] = [:]
        for (db, content) in json["databases"]?.objectValue ?? [:] {
            try ResourceId.database(db)
            states[db] = try Self.state(of: content["documents"]?.arrayValue ?? [])
        }
        try replaceProject(project, with: states)
    }

    /// A database state holding the exported documents `docs`.
    static func state(of docs: [JSON]) throws -> DatabaseState {
        var state = DatabaseState()
        for d in docs {
            let doc = try importDocument(d)
            state.put(doc)
            state.lastCommit = max(state.lastCommit, doc.updateTime)
        }
        return state
    }

    /// The journal form of a committed change batch.
    public static func journalEntry(_ batch: StoreChangeBatch) -> JSON {
        [
            "database": .string(batch.database), "commitTime": .string(batch.commitTime.rfc3339()),
            "changes": .array(
                batch.changes.map { c in
                    c.after.map { ["put": exportJSON($0)] } ?? ["delete": .string(c.path)]
                }),
        ]
    }

    /// The journal form of a whole-database replacement (reset, restore, import): every document
    /// the database holds afterwards.
    static func replaceEntry(database: String, time: Timestamp, documents: some Collection<Document>) -> JSON {
        [
            "database": .string(database), "commitTime": .string(time.rfc3339()),
            "replace": .array(documents.sorted { DocumentName.compareNames($0.path, $1.path) < 0 }.map(exportJSON)),
        ]
    }

    /// Re-applies a journal entry written by `journalEntry` or `replaceEntry` (crash recovery).
    /// Entries name their project and database, so both are checked like any other id.
    public func replay(project: String, entry: JSON) throws {
        guard let db = entry["database"]?.stringValue, let t = entry["commitTime"]?.stringValue.flatMap({ Timestamp(rfc3339: $0) }) else {
            throw EmulatorError.invalidArgument("journal entry needs database and commitTime")
        }
        try ResourceId.project(project)
        try ResourceId.database(db)
        if let docs = entry["replace"]?.arrayValue {
            var state = try Self.state(of: docs)
            state.lastCommit = max(state.lastCommit, t)
            state.historyHorizon = max(state.historyHorizon, t)
            box(project, db).data.withLock {
                $0.state = state
                $0.transactions.removeAll()  // as `replaceState`: they recorded the old state
            }
            return
        }
        try box(project, db).data.withLock { d in
            for c in entry["changes"]?.arrayValue ?? [] {
                if let put = c["put"] {
                    d.state.put(try Self.importDocument(put))
                } else if let p = c["delete"]?.stringValue {
                    d.state.remove(p, at: t)
                }
            }
            d.state.lastCommit = max(d.state.lastCommit, t)
        }
    }

    private func boxes() -> [DatabaseKey: DatabaseBox] { allBoxes() }
}
