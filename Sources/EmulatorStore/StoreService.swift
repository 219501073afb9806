import EmulatorCore

/// The Firestore-style document store: every project's databases, created on first use.
///
/// Concurrency: one `Mutex` per database (`DatabaseBox`) guards its documents and open
/// transactions; a small outer `Mutex` only finds or creates boxes. Every operation runs
/// entirely under its database's lock, so there is no lock waiting beyond one operation: a
/// transaction that lost a race fails at once with ABORTED (optimistic concurrency).
public final class StoreService: Sendable {
    struct DatabaseKey: Hashable, Sendable {
        var project: String
        var database: String
    }

    struct DatabaseData: Sendable {
        var state = DatabaseState()
        var transactions: [String: StoreTransaction] = [:]
    }

    final class DatabaseBox: Sendable {
        let data = Mutex(DatabaseData())
    }

    struct Hooks: Sendable {
        var authorizer: any StoreAuthorizer = AllowAllAuthorizer()
        var observer: (@Sendable (StoreChangeBatch) -> Void)?
    }

    let environments: any ProjectEnvironmentProvider
    let options: StoreOptions
    let logger: any LogSink
    private let boxes = Mutex<[DatabaseKey: DatabaseBox]>([:])
    private let hooks = Mutex(Hooks())

    /// Creates the store.
    public init(environments: any ProjectEnvironmentProvider, options: StoreOptions = StoreOptions(), logger: any LogSink = NullLogSink()) {
        self.environments = environments
        self.options = options
        self.logger = logger
    }

    /// Installs the authorization hook (security rules).
    public func setAuthorizer(_ a: any StoreAuthorizer) { hooks.withLock { $0.authorizer = a } }

    /// Installs the change observer. It runs inside the database lock, in commit order, so it
    /// must only enqueue (never block or call back into the store).
    public func setObserver(_ o: @escaping @Sendable (StoreChangeBatch) -> Void) { hooks.withLock { $0.observer = o } }

    func box(_ project: String, _ database: String) -> DatabaseBox {
        boxes.withLock { b in
            let key = DatabaseKey(project: project, database: database)
            if let x = b[key] { return x }
            let x = DatabaseBox()
            b[key] = x
            return x
        }
    }

    /// Runs `body` with the database's data locked, plus the project's environment and hooks.
    func withDatabase<T>(_ project: String, _ database: String,
                         _ body: (inout DatabaseData, ProjectEnvironment, Hooks) throws -> T) throws -> T {
        let env = environments.environment(for: project)
        let h = hooks.withLock { $0 }
        return try box(project, database).data.withLock { try body(&$0, env, h) }
    }

    /// Every database box (for exports).
    func allBoxes() -> [DatabaseKey: DatabaseBox] { boxes.withLock { $0 } }

    /// Databases of a project that have been used.
    func databases(of project: String) -> [String] {
        boxes.withLock { $0.keys.filter { $0.project == project }.map(\.database).sorted() }
    }

    /// Throws PERMISSION_DENIED-style errors from the hook for non-admin callers; admin accesses
    /// are only shown to the hook.
    func authorize(_ hooks: Hooks, _ access: StoreAccess) throws {
        guard !access.caller.isAdmin else { hooks.authorizer.observeAdmin(access); return }
        try hooks.authorizer.authorize(access)
    }
}

extension StoreService: ProjectStateParticipant {
    /// `firestore`.
    public var participantName: String { "firestore" }

    /// Drops the project's documents and open transactions.
    public func resetProject(_ projectId: String) {
        for db in databases(of: projectId) { box(projectId, db).data.withLock { $0 = DatabaseData() } }
    }

    /// Drops every project's data.
    public func resetAll() { boxes.withLock { $0 = [:] } }

    /// Copy-on-write copies of each database state.
    public func captureProject(_ projectId: String) -> any Sendable {
        var out: [String: DatabaseState] = [:]
        for db in databases(of: projectId) { out[db] = box(projectId, db).data.withLock { $0.state } }
        return out
    }

    /// Puts captured states back (open transactions are dropped).
    public func restoreProject(_ projectId: String, from snapshot: any Sendable) throws {
        guard let states = snapshot as? [String: DatabaseState] else { throw EmulatorError.internal("snapshot is not a firestore snapshot") }
        resetProject(projectId)
        for (db, state) in states {
            box(projectId, db).data.withLock { d in
                // Keep time moving forward across restores: updateTime never goes backwards.
                let last = max(d.state.lastCommit, state.lastCommit)
                d = DatabaseData(state: state, transactions: [:])
                d.state.lastCommit = last
            }
        }
    }
}
