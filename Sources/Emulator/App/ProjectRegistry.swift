import EmulatorCore

/// Every project the process knows: its environment (clock, ids) and its API key. Projects are
/// created on first use, as in Firebase's emulators. Only `ResourceId` project ids are ever
/// registered, so every id the control plane lists, snapshots or exports is a valid one (an
/// invalid id gets a throwaway environment: the service it reached refuses it). State is behind
/// a `Mutex`.
public final class ProjectRegistry: ProjectEnvironmentProvider {
    struct Entry {
        var environment: ProjectEnvironment
        var apiKey: String?
        var seed: UInt64?
    }

    /// The project used when a request names none (and for unknown API keys).
    public let defaultProjectId: String
    private let base: any EmulatorClock
    private let entries: Mutex<[String: Entry]> = Mutex([:])

    /// Creates a registry whose clocks sit on `base`.
    public init(defaultProjectId: String, base: any EmulatorClock = WallClock()) {
        self.defaultProjectId = defaultProjectId
        self.base = base
        _ = environment(for: defaultProjectId)
    }

    /// The environment of `projectId`, created on first use (not kept for an invalid id).
    public func environment(for projectId: String) -> ProjectEnvironment {
        entries.withLock { e in
            if let x = e[projectId] { return x.environment }
            let env = ProjectEnvironment(projectId: projectId, clock: ProjectClock(base: base))
            if ResourceId.isProjectId(projectId) { e[projectId] = Entry(environment: env, apiKey: nil, seed: nil) }
            return env
        }
    }

    /// Registers (or updates) a project and its optional API key; INVALID_ARGUMENT for an id that
    /// is not a project id.
    @discardableResult
    public func register(projectId: String, apiKey: String?) throws -> ProjectEnvironment {
        try ResourceId.project(projectId)
        let env = environment(for: projectId)
        if let apiKey { entries.withLock { $0[projectId]?.apiKey = apiKey } }
        return env
    }

    /// The project an API key selects; unknown or missing keys select the default project.
    public func projectId(forAPIKey key: String?) -> String {
        guard let key else { return defaultProjectId }
        return entries.withLock { e in e.first { $0.value.apiKey == key }?.key } ?? defaultProjectId
    }

    /// Seeds the project's id generator (nil = system randomness) and remembers the seed, so a
    /// reset can restart the same sequence.
    public func setSeed(_ seed: UInt64?, for projectId: String) {
        let env = environment(for: projectId)
        entries.withLock { $0[projectId]?.seed = seed }
        env.ids.reseed(seed)
    }

    /// The seed last set for the project.
    public func seed(of projectId: String) -> UInt64? { entries.withLock { $0[projectId]?.seed } }

    /// The API key registered for the project.
    public func apiKey(of projectId: String) -> String? { entries.withLock { $0[projectId]?.apiKey } }

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
            throw EmulatorError.notFound("Project '\(projectId)' is unknown: register it with POST /emulator/v1/projects or use it first.")
        }
    }

    /// Forgets a project: its environment (clock, seed, ids) and API key. Its next use starts afresh.
    public func remove(_ projectId: String) { entries.withLock { _ = $0.removeValue(forKey: projectId) } }

    /// True when the project has been used or registered.
    public func contains(_ projectId: String) -> Bool { entries.withLock { $0[projectId] != nil } }

    /// Known project ids, sorted.
    public var projectIds: [String] { entries.withLock { $0.keys.sorted() } }
}
