import EmulatorCore

/// The Auth service: users, providers, linking rules, tokens. One instance per process.
///
/// Every project's `AuthProjectState` lives in one `Mutex`-guarded dictionary; operations copy
/// what they need out, do slow work (hashing, signing, blocking hooks) outside the lock, and
/// commit in a second short critical section. Time and ids come from each project's
/// `ProjectEnvironment`.
public final class AuthService: Sendable {
    /// Service-wide settings (`auth` config section).
    public let config: AuthServiceConfig
    /// The process's signing key.
    public let keyring: TokenKeyring
    /// Per-project clocks and id generators.
    let environments: any ProjectEnvironmentProvider
    /// Where warnings and OOB links go.
    let logger: any LogSink
    private let states: Mutex<[String: AuthProjectState]> = Mutex([:])
    private let hooksBox: Mutex<any AuthHooks> = Mutex(NoAuthHooks())
    private let warnedUnsigned = Mutex<Bool>(false)
    private let observer: Mutex<Callback<@Sendable (String, JSON) -> Void>?> = Mutex(nil)
    private let keyJournaled = Mutex<Bool>(false)
    /// ID tokens whose signature already verified (the checks that can change are never cached).
    let verifiedTokens = VerifiedTokenCache()
    /// Service-account keys whose RS256 custom tokens are accepted in strict mode.
    public let customTokenSigners = CustomTokenSigners()

    /// Creates the service. Key generation starts in the background when tokens are signed and no
    /// `keyring` is given.
    public init(config: AuthServiceConfig = AuthServiceConfig(), environments: any ProjectEnvironmentProvider,
                logger: any LogSink = NullLogSink(), keyring: TokenKeyring? = nil)
    {
        self.config = config
        self.environments = environments
        self.logger = logger
        self.keyring = keyring ?? TokenKeyring(generateInBackground: config.signIdTokens)
    }

    /// Installs the functions host's hooks.
    public func setHooks(_ hooks: any AuthHooks) { hooksBox.withLock { $0 = hooks } }

    /// The hooks currently installed.
    var hooks: any AuthHooks { hooksBox.withLock { $0 } }

    /// The project's environment.
    func env(_ projectId: String) -> ProjectEnvironment { environments.environment(for: projectId) }

    /// The project's current time.
    func now(_ projectId: String) -> Timestamp { env(projectId).clock.now() }

    /// The scope's project's current time.
    func now(_ scope: AuthScope) -> Timestamp { env(scope.projectId).clock.now() }

    /// Reads a project's whole state.
    func readProject<T>(_ projectId: String, _ body: (AuthProjectState) throws -> T) rethrows -> T {
        try states.withLock { s in try body(s[projectId] ?? AuthProjectState()) }
    }

    /// Reads one pool (an empty one when the tenant does not exist).
    func read<T>(_ scope: AuthScope, _ body: (AuthPool) throws -> T) rethrows -> T {
        try states.withLock { s in try body(s[scope.projectId]?.pool(scope.tenantId) ?? AuthPool(tenantId: scope.tenantId)) }
    }

    /// Mutates a project's state; a thrown error leaves it unchanged unless the closure changed
    /// something first. What changed is handed to the persistence observer inside the lock, so
    /// journal order is commit order.
    func writeProject<T>(_ projectId: String, _ body: (inout AuthProjectState) throws -> T) rethrows -> T {
        try states.withLock { s in
            // Mutate in place: taking the state out of the dictionary keeps it uniquely referenced,
            // so a write costs what it changes (a copy would duplicate every user per sign-in).
            // Write closures validate before they mutate; what they did change is kept and
            // journaled even when they then throw (e.g. a revoked refresh token is deleted).
            var st = s.removeValue(forKey: projectId) ?? AuthProjectState()
            defer {
                journal(projectId, &st)
                s[projectId] = st
            }
            return try body(&st)
        }
    }

    /// Mutates one pool (see `writeProject`).
    func write<T>(_ scope: AuthScope, _ body: (inout AuthPool) throws -> T) rethrows -> T {
        try writeProject(scope.projectId) { st in try st.withPool(scope.tenantId, body) }
    }

    /// Hands what changed to the persistence observer (inside the lock: journal order is commit order).
    private func journal(_ projectId: String, _ st: inout AuthProjectState) {
        if let obs = observer.withLock({ $0 })?.call {
            if var entry = st.takeJournalEntry() {
                // The first entry after the key exists carries it, so signed tokens outlive restarts
                // (an unsigned-mode process that never made a key journals none).
                if let k = keyring.existingKey, !keyJournaled.withLock({ v in defer { v = true }; return v }), let pem = try? k.privateKeyPEM(),
                   case .object(var o) = entry
                {
                    o["signingKey"] = .string(pem)
                    entry = .object(o)
                }
                obs(projectId, entry)
            }
        } else {
            st.forgetChanges()
        }
    }

    /// Receives `(projectId, journal entry)` after every committed change (for `--data-dir`).
    public func setObserver(_ f: (@Sendable (String, JSON) -> Void)?) { observer.withLock { $0 = f.map(Callback.init) } }

    /// Replaces state without journaling (imports and journal replay).
    func replaceSilently(_ projectId: String, _ body: (inout AuthProjectState) throws -> Void) rethrows {
        try states.withLock { s in
            var st = s[projectId] ?? AuthProjectState()
            try body(&st)
            st.forgetChanges()
            s[projectId] = st
        }
    }

    /// A copy of the project's state (O(1): copy-on-write), for snapshots and persistence.
    public func snapshot(projectId: String) -> AuthProjectState { readProject(projectId) { $0 } }

    /// Replaces the project's state (restore a snapshot, or reset with `AuthProjectState()`).
    public func restore(projectId: String, _ state: AuthProjectState) { replaceSilently(projectId) { $0 = state } }

    /// Projects that have Auth state.
    func projectIdsWithState() -> [String] { states.withLock { Array($0.keys) } }

    /// Logs the unsigned-token warning the first time only, and only when the emulator signs its
    /// own tokens (unsigned is the default and then nothing to warn about).
    func warnUnsignedOnce() {
        guard config.signIdTokens else { return }
        if !warnedUnsigned.withLock({ v in defer { v = true }; return v }) {
            logger.log(.warning, "auth", "accepting unsigned (alg: none) ID tokens; set auth.acceptUnsignedTokens=false to require RS256 signatures")
        }
    }
}
