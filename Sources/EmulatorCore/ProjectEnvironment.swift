/// The injected inputs of one project: its clock and its id generator. Services receive one per
/// project from the wiring layer, so the admin API can freeze time or seed ids per project.
public struct ProjectEnvironment: Sendable {
    /// The project id.
    public let projectId: String
    /// The project's clock.
    public let clock: ProjectClock
    /// The project's id/random source.
    public let ids: IDGenerator

    /// Creates an environment.
    public init(projectId: String, clock: ProjectClock = ProjectClock(), ids: IDGenerator = IDGenerator()) {
        self.projectId = projectId
        self.clock = clock
        self.ids = ids
    }
}

/// Hands out the environment of a project, creating it on first use. Implemented by `Emulator`.
public protocol ProjectEnvironmentProvider: Sendable {
    /// The environment of `projectId`, kept from now on (the project is known).
    func environment(for projectId: String) -> ProjectEnvironment

    /// The environment of `projectId` without making the project known: the kept one if there is
    /// one, else a fresh one that is not kept. Reads use it, so reading made-up project ids costs
    /// the process nothing.
    func peekEnvironment(for projectId: String) -> ProjectEnvironment
}

extension ProjectEnvironmentProvider {
    /// Keeps the environment, for providers that keep every project.
    public func peekEnvironment(for projectId: String) -> ProjectEnvironment { environment(for: projectId) }
}

/// A simple provider for tests and single-service use: one environment per project, created lazily.
public final class LocalEnvironmentProvider: ProjectEnvironmentProvider {
    private let envs: Mutex<[String: ProjectEnvironment]> = Mutex([:])
    private let base: any EmulatorClock

    /// Creates a provider whose clocks sit on `base`.
    public init(base: any EmulatorClock = WallClock()) { self.base = base }

    /// The environment of `projectId`.
    public func environment(for projectId: String) -> ProjectEnvironment {
        envs.withLock { envs in
            if let e = envs[projectId] { return e }
            let e = ProjectEnvironment(projectId: projectId, clock: ProjectClock(base: base))
            envs[projectId] = e
            return e
        }
    }
}
