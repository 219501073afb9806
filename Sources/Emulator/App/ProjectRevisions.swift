import EmulatorCore

/// A counter per project that changes whenever the project's documents do (a commit, a subtree
/// delete, a reset, a snapshot restore, an import), and with each Pub/Sub publish and Storage change. The UI polls it (`GET
/// /emulator/v1/projects/{p}/revision`) to refresh an open page; the store's change feed will
/// replace the polling. State is behind a `Mutex` that is a leaf (the store's observer bumps it
/// inside the database lock).
public final class ProjectRevisions: Sendable {
    private let state = Mutex<[String: Int64]>([:])

    /// Creates the counters (every project starts at 0).
    public init() {}

    /// Records a change of `project`.
    public func bump(_ project: String) { state.withLock { $0[project, default: 0] += 1 } }

    /// The project's current revision.
    public func revision(of project: String) -> Int64 { state.withLock { $0[project] ?? 0 } }
}
