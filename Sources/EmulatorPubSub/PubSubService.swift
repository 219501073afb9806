import EmulatorCore

/// The Pub/Sub service: topics, subscriptions, snapshots and message delivery per project, with
/// one function per google.pubsub.v1 RPC taking and returning the proto3 JSON messages (the gRPC
/// and REST adapters in `Emulator` decode into them). Time (publish times, ack deadlines,
/// retention, backoff, seek) comes from each project's clock and message ids from its id
/// generator (`ProjectEnvironment`).
///
/// State: every project's `PubSubProjectState` behind one `EmulatorCore.Mutex`. Each change is
/// handed to the write-ahead journal hook inside the lock before it is applied (a refused append
/// changes nothing and the request fails with UNAVAILABLE); published messages are then handed to
/// the observer, in publish order, inside the lock, so it must only enqueue.
public final class PubSubService: Sendable {
    /// Hooks installed by the wiring layer.
    struct Hooks {
        /// Write-ahead journal.
        var journal: (@Sendable (_ project: String, _ entry: JSON) throws -> Void)?
        /// Receives every publish (after journaling), in order: the functions host's triggers.
        var observer: Callback<@Sendable (_ project: String, _ topicId: String, _ messages: [PublishedMessage]) -> Void>?
    }

    let environments: any ProjectEnvironmentProvider
    let state = Mutex<[String: PubSubProjectState]>([:])
    let hooks = Mutex(Hooks())
    let wakeups = PubSubWakeups()
    /// How much one subscription may hold.
    let limits: PubSubLimits

    /// Creates the service over the projects' environments.
    public init(environments: any ProjectEnvironmentProvider, limits: PubSubLimits = .standard) {
        self.environments = environments
        self.limits = limits
    }

    /// Installs the write-ahead journal (`--data-dir`); `replay(project:entry:)` reads its entries.
    public func setJournal(_ j: (@Sendable (_ project: String, _ entry: JSON) throws -> Void)?) { hooks.withLock { $0.journal = j } }

    /// Installs the publish observer. It runs inside the service's lock, in publish order, so it
    /// must only enqueue (never call back into the service).
    public func setObserver(_ o: (@Sendable (_ project: String, _ topicId: String, _ messages: [PublishedMessage]) -> Void)?) {
        hooks.withLock { $0.observer = o.map(Callback.init) }
    }

    /// The project's clock reading.
    func now(_ project: String) -> Timestamp { environments.environment(for: project).clock.now() }

    /// Runs `body` on the project's state under the lock. `body` validates, then calls `commit`
    /// with its journal entry before changing anything; `commit` throws when the journal refuses.
    func mutate<R>(_ project: String, _ body: (inout PubSubProjectState, _ commit: (JSON) throws -> Void) throws -> R) throws -> R {
        let journal = hooks.withLock { $0.journal }
        return try state.withLock { all in
            var ps = all.removeValue(forKey: project) ?? PubSubProjectState()
            defer { if ps.hasData || ps.lastSerial > 0 { all[project] = ps } }
            return try body(&ps) { entry in try journal?(project, entry) }
        }
    }

    /// Reads the project's state under the lock.
    func read<R>(_ project: String, _ body: (PubSubProjectState) throws -> R) rethrows -> R {
        try state.withLock { all in try body(all[project] ?? PubSubProjectState()) }
    }

    /// Projects that have any Pub/Sub state.
    public var projectIds: [String] { state.withLock { Array($0.keys).sorted() } }

    /// The project's whole state (the UI, tests).
    public func snapshot(project: String) -> PubSubProjectState { read(project) { $0 } }
}
