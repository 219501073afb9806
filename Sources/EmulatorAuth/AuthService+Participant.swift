import EmulatorCore

extension AuthService: ProjectStateParticipant {
    /// `auth`.
    public var participantName: String { "auth" }

    /// Drops users, codes, tokens and tenants; the project's Auth config is settings, so it stays.
    public func resetProject(_ projectId: String) throws {
        try replaceJournaled(projectId) { $0.clearData() }
    }

    /// Drops every project's data (configs stay).
    public func resetAll() throws {
        for p in projectIdsWithState() { try resetProject(p) }
    }

    /// The project's `AuthProjectState` (a copy-on-write value, tenants included).
    public func captureProject(_ projectId: String) -> any Sendable { snapshot(projectId: projectId) }

    /// Restores a captured `AuthProjectState`.
    public func restoreProject(_ projectId: String, from snapshot: any Sendable) throws {
        guard let st = snapshot as? AuthProjectState else {
            throw EmulatorError.invalidArgument("The snapshot does not hold Auth data.")
        }
        try restore(projectId: projectId, st)
    }
}

extension AuthService: PersistentParticipant {
    /// The project's data (tenants included) plus the process signing key (PEM), so tokens survive restarts.
    public func exportProject(_ projectId: String) -> JSON {
        var e = readProject(projectId) { $0.exported.objectValue ?? [:] }
        if let pem = try? keyring.existingKey?.privateKeyPEM() { e["signingKey"] = .string(pem) }
        return .object(e)
    }

    /// Replaces the project's data (validated first); adopts the exported signing key.
    public func importProject(_ projectId: String, _ json: JSON) throws {
        let st = try AuthProjectState(exported: json)
        try replaceJournaled(projectId, adoptingKey: json["signingKey"]?.stringValue) { $0 = st }
    }

    /// Projects with users, codes, tenants or non-default config.
    public var projectsWithData: [String] { projectIdsWithState().filter { readProject($0) { $0.hasData } }.sorted() }

    /// Applies one journal entry from `setJournal` (a change, or a whole-project `replace`).
    public func replay(project: String, entry: JSON) throws {
        try ResourceId.project(project)
        if let pem = entry["signingKey"]?.stringValue { try keyring.adopt(pem: pem) }
        if let whole = entry["replace"] {
            let st = try AuthProjectState(exported: whole)
            replaceSilently(project) { $0 = st }
            return
        }
        var copy = snapshot(projectId: project)
        try copy.apply(journal: entry)
        replaceSilently(project) { $0 = copy }
    }
}
