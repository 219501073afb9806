import EmulatorCore

/// The control plane's operations on every service at once: reset, snapshots, export and import.
/// Each is one function that every caller uses: the `/emulator/v1` routes (thin adapters in
/// `ResetRoutes`/`ExportRoutes`), Firestore's `POST /reset`, start-up (`--import`) and shutdown
/// (`--export-on-exit`). A new service joins by being a `ProjectStateParticipant` (and a
/// `PersistentParticipant` for export and the journal) in `EmulatorServices`; nothing here
/// changes. No HTTP: a value over the immutable service bundle, shared freely.
public struct ControlPlane: Sendable {
    /// The services it acts on.
    let services: EmulatorServices

    /// Clears one project's data everywhere, keeping rules, config, clock, seed and faults; the
    /// id sequence restarts from the seed so a seeded suite replays identically.
    public func resetProject(_ project: String) throws {
        try services.projects.requireKnown(project)
        for participant in services.participants { try participant.resetProject(project) }
        services.noteReplaced(project: project)
        services.projects.restartSequence(of: project)
    }

    /// Removes a project: its data in every service (journaled like a reset), its snapshots,
    /// faults and own rules, and its environment (clock, seed, API key). Test kits give every test
    /// a project of its own and remove it afterwards. The default project cannot be removed (it
    /// answers requests that name no project): reset it instead.
    public func removeProject(_ project: String) throws {
        try services.projects.requireKnown(project)
        guard project != services.projects.defaultProjectId else {
            throw EmulatorError.failedPrecondition(
                "Project '\(project)' is the emulator's default project and cannot be removed; reset it instead (POST /emulator/v1/projects/\(project):reset)."
            )
        }
        for participant in services.participants { try participant.resetProject(project) }
        services.snapshots.clear(projectId: project)
        _ = services.faults.clear(projectId: project)
        services.rules.removeRules(project: project)
        services.noteReplaced(project: project)
        services.projects.remove(project)
    }

    /// Clears every project's data, faults, seeds and frozen clocks.
    public func resetAll() throws {
        let touched = Set(services.persistentParticipants.flatMap(\.projectsWithData) + services.storage.projectsWithData)
        for participant in services.participants { try participant.resetAll() }
        for p in touched { services.noteReplaced(project: p) }
        services.faults.clearAll()
        services.faults.reseed(nil)
        for p in services.projects.projectIds {
            services.projects.setSeed(nil, for: p)
            services.projects.environment(for: p).clock.useSystemTime()
        }
    }

    /// The Firestore emulator's reset (`POST /reset`): every project's documents, nothing else.
    public func resetFirestore() throws {
        let touched = services.store.projectsWithData
        for participant in services.participants where participant.participantName == "firestore" { try participant.resetAll() }
        for p in touched { services.noteReplaced(project: p) }
    }

    /// Deletes every object of one of the project's Storage buckets (the bucket stays); returns
    /// how many objects went.
    public func clearStorageBucket(_ bucket: String, project: String) throws -> Int {
        try services.projects.requireKnown(project)
        guard services.storage.bucketExists(bucket), services.storage.project(ofBucket: bucket) == project else {
            throw EmulatorError.notFound("Project '\(project)' has no bucket '\(bucket)'.")
        }
        let n = try services.storage.clearBucket(bucket)
        services.noteReplaced(project: project)
        return n
    }

    /// Saves the project's state of every service as snapshot `name` (replacing an older one).
    public func saveSnapshot(_ name: String, project: String) throws {
        try services.projects.requireKnown(project)
        let name = try Self.snapshotName(name)
        try services.snapshots.save(
            name: name, projectId: project, participants: services.participants,
            at: services.projects.environment(for: project).clock.now(), seed: services.projects.seed(of: project))
    }

    /// The project's snapshots, by name.
    public func snapshots(project: String) throws -> [(name: String, createdAt: Timestamp)] {
        try services.projects.requireKnown(project)
        return services.snapshots.list(projectId: project)
    }

    /// Restores snapshot `name` into every service.
    public func restoreSnapshot(_ name: String, project: String) throws {
        try services.projects.requireKnown(project)
        try services.snapshots.restore(name: try Self.snapshotName(name), projectId: project, participants: services.participants)
        services.noteReplaced(project: project)
    }

    /// Forgets snapshot `name`; NOT_FOUND when there is none.
    public func deleteSnapshot(_ name: String, project: String) throws {
        try services.projects.requireKnown(project)
        guard services.snapshots.delete(name: name, projectId: project) else {
            throw EmulatorError.notFound("No snapshot '\(name)' in project '\(project)'.")
        }
    }

    /// Writes `project` (nil: every project with data) of every service to the folder `path`,
    /// with Firebase's Auth layout for `project` (the configured project when exporting all).
    /// Refuses, writing nothing, a path that is not a new folder or a previous export of ours.
    public func export(project: String?, to path: String) throws {
        if let project { try services.projects.requireKnown(project) }
        let firebaseProject = project ?? services.config.projectId
        try ExportArchive.write(
            to: path, projects: project.map { [$0] }, participants: services.persistentParticipants,
            firebaseAuthProject: firebaseProject, auth: services.auth, storage: services.storage)
    }

    /// Checks that `path` may receive an export (for `--export-on-exit`, checked at start).
    public func checkExportTarget(_ path: String) throws {
        _ = try ExportArchive.target(path, participants: services.persistentParticipants)
    }

    /// Loads an export folder (ours, or Firebase's `auth_export/` layout for the project):
    /// `project` only, or every project it holds (nil). Returns the projects imported, each
    /// registered and announced as replaced.
    public func importArchive(from path: String, project: String?) async throws -> [String] {
        if let project { try ResourceId.project(project) }
        let path = try ExportArchive.validate(path)
        if let project { try services.projects.register(projectId: project, apiKey: nil) }
        var imported = try ExportArchive.read(from: path, project: project, participants: services.persistentParticipants)
        let authProject = project ?? services.config.projectId
        if !imported.contains(authProject),
            try await FirebaseAuthExport.read(from: path, project: authProject, auth: services.auth, logger: services.logger)
        {
            imported.append(authProject)
        }
        let storageProjects = try FirebaseStorageExport.read(
            from: path, project: project, fallbackProject: authProject, storage: services.storage, logger: services.logger)
        for p in storageProjects where !imported.contains(p) { imported.append(p) }
        for p in imported {
            try services.projects.register(projectId: p, apiKey: nil)
            services.noteReplaced(project: p)
        }
        if let project, !imported.contains(project) { services.noteReplaced(project: project) }
        return imported
    }

    /// A snapshot name: 1-100 ASCII letters, digits, `.`, `_`, `-`, and not `.` or `..` (a URL
    /// path cannot address those: they are dot segments, refused by `RequestPath`).
    static func snapshotName(_ name: String) throws -> String {
        guard !name.isEmpty, name.utf8.count <= 100, name != ".", name != "..",
            name.unicodeScalars.allSatisfy({
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0)
            })
        else {
            throw EmulatorError.invalidArgument("snapshot 'name' must be 1-100 characters of letters, digits, '.', '_' or '-', and not '.' or '..'")
        }
        return name
    }
}

extension EmulatorServices {
    /// Reset, snapshots, export and import for every service.
    public var controlPlane: ControlPlane { ControlPlane(services: self) }
}
