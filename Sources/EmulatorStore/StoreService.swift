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
        var transactions = OpenTransactions()
        /// Real-time listener targets: they outlive resets and restores, which reach them as changes.
        var watch = WatchRegistry()

        /// Replaces the documents (reset, restore, import) at a new time on the same time line,
        /// drops open transactions, and tells listeners what changed. The replacement is journaled
        /// first (write-ahead): when that fails nothing changes and the error is thrown.
        mutating func replaceState(_ new: DatabaseState?, now: Timestamp, project: String, database: String, hooks: Hooks) throws {
            let lastCommit = state.lastCommit
            let time = state.nextCommitTime(now)
            var next = new ?? state.emptied(at: time)
            next.lastCommit = max(next.lastCommit, time)
            next.historyHorizon = max(next.historyHorizon, time)
            // An empty database that stays empty changes nothing worth a journal record.
            if let journal = hooks.journal, !(state.docs.isEmpty && next.docs.isEmpty) {
                do { try journal(project, StoreService.replaceEntry(database: database, time: time, documents: next.docs.values)) } catch {
                    state.lastCommit = lastCommit
                    throw error
                }
            }
            state = next
            transactions.removeAll()  // what they recorded (`DatabaseState.mutations`) was of the old state
            watch.reevaluateAll(state: state, project: project, database: database, time: time)
            StoreService.publishFeed(hooks, StoreFeedEvent(project: project, database: database, time: time, paths: [], replaced: true))
        }
    }

    final class DatabaseBox: Sendable {
        let data = Mutex(DatabaseData())
    }

    struct Hooks: Sendable {
        var authorizer: any StoreAuthorizer = AllowAllAuthorizer()
        /// The write-ahead journal: runs inside the database lock before a change becomes visible;
        /// when it throws, the change is undone and the caller gets the error.
        var journal: (@Sendable (_ project: String, _ entry: JSON) throws -> Void)?
        var observer: (@Sendable (StoreChangeBatch) -> Void)?
        /// Change-feed subscribers (the UI's live view), by identity.
        var feed: [ObjectIdentifier: FeedEntry] = [:]
    }

    let environments: any ProjectEnvironmentProvider
    let options: StoreOptions
    let logger: any LogSink
    private let boxes = Mutex<[DatabaseKey: DatabaseBox]>([:])
    let hooks = Mutex(Hooks())

    /// This store instance's identity in listener resume tokens: a token from another instance (an
    /// earlier emulator process) starts its listener over rather than resuming.
    public let epoch: UInt64

    /// Creates the store. `epoch` should differ between processes (the emulator draws it from the
    /// secure random source).
    public init(
        environments: any ProjectEnvironmentProvider, options: StoreOptions = StoreOptions(), logger: any LogSink = NullLogSink(),
        epoch: UInt64 = 1
    ) {
        self.environments = environments
        self.options = options
        self.logger = logger
        self.epoch = epoch
    }

    /// Installs the authorization hook (security rules).
    public func setAuthorizer(_ a: any StoreAuthorizer) { hooks.withLock { $0.authorizer = a } }

    /// Installs the change observer. It runs inside the database lock, in commit order, after the
    /// change is journaled and applied, so it must only enqueue (never block or call back into the store).
    public func setObserver(_ o: @escaping @Sendable (StoreChangeBatch) -> Void) { hooks.withLock { $0.observer = o } }

    /// Installs the write-ahead journal (`--data-dir`). It receives `(project, entry)` for every
    /// change (commits, deletes, resets, restores, imports) inside the database lock, in commit
    /// order, before the change is applied or anyone can see it. When it throws (a full disk), the
    /// change is not made and the error reaches the caller: no listener, trigger or reader ever
    /// sees a write the journal did not take. `replay(project:entry:)` reads the entries back.
    public func setJournal(_ j: (@Sendable (_ project: String, _ entry: JSON) throws -> Void)?) { hooks.withLock { $0.journal = j } }

    /// The database's box, made on first use (a write, a listener, a transaction, an import).
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
    /// Every client operation comes through here, so this is where project and database ids from
    /// requests are checked (`ResourceId`): a database never exists under an id that is not one.
    /// With `wait` false, a database another thread holds locked throws `StoreBusy` at once.
    /// With `keep` false (reads), a database nothing has made yet is not made: `body` sees an
    /// empty one that is dropped afterwards, and the project is not made known either. Reading
    /// made-up ids once kept about 1.5 KB each for the process's life.
    func withDatabase<T>(
        _ project: String, _ database: String, wait: Bool = true, keep: Bool = true,
        _ body: (inout DatabaseData, ProjectEnvironment, Hooks) throws -> T
    ) throws -> T {
        try ResourceId.project(project)
        try ResourceId.database(database)
        let h = hooks.withLock { $0 }
        let existing: DatabaseBox? = keep ? box(project, database) : boxes.withLock { $0[DatabaseKey(project: project, database: database)] }
        let env = keep ? environments.environment(for: project) : environments.peekEnvironment(for: project)
        guard let data = existing?.data else {
            var empty = DatabaseData()
            return try body(&empty, env, h)
        }
        guard !wait else { return try data.withLock { try body(&$0, env, h) } }
        guard let result = try data.withLockIfAvailable({ try body(&$0, env, h) }) else { throw StoreBusy() }
        return result
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
        guard !access.caller.isAdmin else {
            hooks.authorizer.observeAdmin(access)
            return
        }
        try hooks.authorizer.authorize(access)
    }
}

extension StoreService: ProjectStateParticipant {
    /// `firestore`.
    public var participantName: String { "firestore" }

    /// Drops the project's documents and open transactions; listeners see every document go.
    public func resetProject(_ projectId: String) throws {
        let now = environments.environment(for: projectId).clock.now()
        let h = hooks.withLock { $0 }
        for db in databases(of: projectId) {
            try box(projectId, db).data.withLock { try $0.replaceState(nil, now: now, project: projectId, database: db, hooks: h) }
        }
    }

    /// Drops every project's data (databases nobody listens to are forgotten altogether).
    public func resetAll() throws {
        let h = hooks.withLock { $0 }
        for (key, b) in allBoxes() {
            let now = environments.environment(for: key.project).clock.now()
            try b.data.withLock { try $0.replaceState(nil, now: now, project: key.project, database: key.database, hooks: h) }
        }
        boxes.withLock { all in all = all.filter { !$0.value.data.withLock { $0.watch.isEmpty && $0.state.docs.isEmpty } } }
    }

    /// Copy-on-write copies of each database state.
    public func captureProject(_ projectId: String) -> any Sendable {
        var out: [String: DatabaseState] = [:]
        for db in databases(of: projectId) { out[db] = box(projectId, db).data.withLock { $0.state } }
        return out
    }

    /// Puts captured states back (open transactions are dropped); listeners see the differences as
    /// ordinary changes, and time keeps moving forward (update times never go backwards).
    public func restoreProject(_ projectId: String, from snapshot: any Sendable) throws {
        guard let states = snapshot as? [String: DatabaseState] else { throw EmulatorError.internal("snapshot is not a firestore snapshot") }
        try replaceProject(projectId, with: states)
    }

    /// Replaces every database of a project with `states` (absent ones become empty), one database
    /// at a time (each journaled first; a refusal stops there and is thrown).
    func replaceProject(_ projectId: String, with states: [String: DatabaseState]) throws {
        try ResourceId.project(projectId)
        for db in states.keys { try ResourceId.database(db) }
        let now = environments.environment(for: projectId).clock.now()
        let h = hooks.withLock { $0 }
        for db in Set(databases(of: projectId)).union(states.keys).sorted() {
            try box(projectId, db).data.withLock { try $0.replaceState(states[db], now: now, project: projectId, database: db, hooks: h) }
        }
    }
}

/// Thrown instead of waiting when a read asked not to wait (`waitForLock: false`) finds its
/// database locked by another thread (a commit or a long query). Nothing was read or changed; the
/// caller asks again the ordinary way.
public struct StoreBusy: Error, Sendable {
    /// Creates the error.
    public init() {}
}
