import EmulatorCore

/// Every project the process knows: its environment (clock, ids) and its API key. Projects are
/// created on first use, as in Firebase's emulators; reading a project that nothing has written
/// does not make it known (`peekEnvironment`). Only `ResourceId` project ids are ever
/// registered, so every id the control plane lists, snapshots or exports is a valid one (an
/// invalid id gets a throwaway environment: the service it reached refuses it). State is behind
/// a `Mutex`.
public final class ProjectRegistry: ProjectEnvironmentProvider {
    struct Entry {
        var environment: ProjectEnvironment
        var apiKey: String?
        var seed: UInt64?
    }

    /// The projects, and the project each API key selects (kept with the entries so a key lookup
    /// is one hash, not a scan of every project under the lock: with 125,000 projects a keyed
    /// `accounts:lookup` took 55 ms, and every other keyed request waited behind it).
    struct Table {
        var entries: [String: Entry] = [:]
        var byKey: [String: String] = [:]

        /// Gives `projectId` the key `apiKey` (the last project given a key owns it).
        mutating func setKey(_ apiKey: String, of projectId: String) {
            if let old = entries[projectId]?.apiKey, byKey[old] == projectId { byKey[old] = nil }
            entries[projectId]?.apiKey = apiKey
            byKey[apiKey] = projectId
        }

        /// Forgets the project and its key.
        mutating func remove(_ projectId: String) {
            if let key = entries.removeValue(forKey: projectId)?.apiKey, byKey[key] == projectId { byKey[key] = nil }
        }
    }

    /// The project used when a request names none (and for unknown API keys).
    public let defaultProjectId: String
    private let base: any EmulatorClock
    private let table: Mutex<Table> = Mutex(Table())

    /// Creates a registry whose clocks sit on `base`.
    public init(defaultProjectId: String, base: any EmulatorClock = WallClock()) {
        self.defaultProjectId = defaultProjectId
        self.base = base
        _ = environment(for: defaultProjectId)
    }

    /// The environment of `projectId`, created on first use (not kept for an invalid id).
    public func environment(for projectId: String) -> ProjectEnvironment {
        table.withLock { t in
            if let x = t.entries[projectId] { return x.environment }
            let env = ProjectEnvironment(projectId: projectId, clock: ProjectClock(base: base))
            if ResourceId.isProjectId(projectId) { t.entries[projectId] = Entry(environment: env, apiKey: nil, seed: nil) }
            return env
        }
    }

    /// The kept environment of `projectId`, or a fresh one that is not kept (a read of a project
    /// nothing has written leaves no entry).
    public func peekEnvironment(for projectId: String) -> ProjectEnvironment {
        table.withLock { $0.entries[projectId]?.environment } ?? ProjectEnvironment(projectId: projectId, clock: ProjectClock(base: base))
    }

    /// Registers (or updates) a project and its optional API key; INVALID_ARGUMENT for an id that
    /// is not a project id.
    @discardableResult
    public func register(projectId: String, apiKey: String?) throws -> ProjectEnvironment {
        try ResourceId.project(projectId)
        let env = environment(for: projectId)
        if let apiKey { table.withLock { $0.setKey(apiKey, of: projectId) } }
        return env
    }

    /// The project an API key selects (the last registered with it); unknown or missing keys
    /// select the default project.
    public func projectId(forAPIKey key: String?) -> String {
        guard let key else { return defaultProjectId }
        return table.withLock { $0.byKey[key] } ?? defaultProjectId
    }

    /// Seeds the project's id generator (nil = system randomness) and remembers the seed, so a
    /// reset can restart the same sequence.
    public func setSeed(_ seed: UInt64?, for projectId: String) {
        let env = environment(for: projectId)
        table.withLock { $0.entries[projectId]?.seed = seed }
        env.ids.reseed(seed)
    }

    /// The seed last set for the project.
    public func seed(of projectId: String) -> UInt64? { table.withLock { $0.entries[projectId]?.seed } }

    /// The API key registered for the project.
    public func apiKey(of projectId: String) -> String? { table.withLock { $0.entries[projectId]?.apiKey } }

    /// Restarts the project's id sequence from its seed (reset keeps the seed).
    public func restartSequence(of projectId: String) {
        let env = environment(for: projectId)
        env.ids.reseed(seed(of: projectId))
    }

    /// Throws INVALID_ARGUMENT for an id that is not a project id, NOT_FOUND for a project never
    /// used nor registered (admin endpoints answer 400 and 404).
    public func requireKnown(_ projectId: String) throws {
        try ResourceId.project(projectId)
        guard contains(projectId) else {
            throw EmulatorError.notFound("Project '\(projectId)' is unknown: register it with POST /emulator/v1/projects or write to it first.")
        }
    }

    /// Forgets a project: its environment (clock, seed, ids) and API key. Its next use starts afresh.
    public func remove(_ projectId: String) { table.withLock { $0.remove(projectId) } }

    /// True when the project has been used or registered.
    public func contains(_ projectId: String) -> Bool { table.withLock { $0.entries[projectId] != nil } }

    /// Known project ids, sorted.
    public var projectIds: [String] { table.withLock { $0.entries.keys.sorted() } }
}
