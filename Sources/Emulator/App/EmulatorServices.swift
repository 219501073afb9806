import EmulatorAuth
import EmulatorCore

/// The services of one emulator process and what they share. Route registration functions get
/// this bundle; each service issue adds its service here.
public struct EmulatorServices: Sendable {
    /// The effective configuration.
    public let config: EmulatorConfig
    /// Projects with their clocks and id generators.
    public let projects: ProjectRegistry
    /// Process logger.
    public let logger: any LogSink
    /// Named in-memory project snapshots.
    public let snapshots = SnapshotStore()
    /// Injected faults per project.
    public let faults = FaultInjector()
    /// Bound service addresses (filled after listening starts).
    public let directory = ServiceDirectory()
    /// Process start, for `uptimeMs`.
    public let startedAt: Timestamp
    /// The Auth service (users, tokens, keys).
    public let auth: AuthService

    /// Every service whose per-project data can be reset, captured and restored.
    public var participants: [any ProjectStateParticipant] { [auth] }

    /// Builds every service from the configuration.
    public init(config: EmulatorConfig, logger: any LogSink, baseClock: any EmulatorClock = WallClock()) throws {
        self.config = config
        self.logger = logger
        self.projects = ProjectRegistry(defaultProjectId: config.projectId, base: baseClock)
        self.startedAt = WallClock().now()
        self.auth = AuthService(config: try AuthServiceConfig(json: config.auth), environments: projects, logger: logger)
    }
}
