import EmulatorCore
import Synchronization

/// Every project the process knows: its environment (clock, ids) and its API key. Projects are
/// created on first use, as in Firebase's emulators. State is behind a `Mutex`.
public final class ProjectRegistry: ProjectEnvironmentProvider {
    struct Entry {
        var environment: ProjectEnvironment
        var apiKey: String?
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

    /// The environment of `projectId`, created on first use.
    public func environment(for projectId: String) -> ProjectEnvironment {
        entries.withLock { e in
            if let x = e[projectId] { return x.environment }
            let env = ProjectEnvironment(projectId: projectId, clock: ProjectClock(base: base))
            e[projectId] = Entry(environment: env, apiKey: nil)
            return env
        }
    }

    /// Registers (or updates) a project and its optional API key.
    @discardableResult
    public func register(projectId: String, apiKey: String?) -> ProjectEnvironment {
        let env = environment(for: projectId)
        if let apiKey { entries.withLock { $0[projectId]?.apiKey = apiKey } }
        return env
    }

    /// The project an API key selects; unknown or missing keys select the default project.
    public func projectId(forAPIKey key: String?) -> String {
        guard let key else { return defaultProjectId }
        return entries.withLock { e in e.first { $0.value.apiKey == key }?.key } ?? defaultProjectId
    }

    /// True when the project has been used or registered.
    public func contains(_ projectId: String) -> Bool { entries.withLock { $0[projectId] != nil } }

    /// Known project ids, sorted.
    public var projectIds: [String] { entries.withLock { $0.keys.sorted() } }
}
