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
    private let journalHook: Mutex<Callback<@Sendable (String, JSON) throws -> Void>?> = Mutex(nil)
    private let keyJournaled = Mutex<Bool>(false)
    /// ID tokens whose signature already verified (the checks that can change are never cached).
    let verifiedTokens = VerifiedTokenCache()
    /// Service-account keys whose RS256 custom tokens are accepted in strict mode.
    public let customTokenSigners = CustomTokenSigners()

    /// Creates the service. Key generation starts in the background when tokens are signed and no
    /// `keyring` is given.
    public init(
        config: AuthServiceConfig = AuthServiceConfig(), environments: any ProjectEnvironmentProvider,
        logger: any LogSink = NullLogSink(), keyring: TokenKeyring? = nil
    ) {
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

    /// Mutates a project's state, write-ahead: what changed is handed to the journal (when one is
    /// installed) inside the lock, so journal order is commit order, and only then does anyone see
    /// it. When the journal refuses (a full disk), every change the closure made is rolled back and
    /// the journal's error (UNAVAILABLE) is thrown: the write never happened. Otherwise a thrown
    /// error from the closure keeps what it changed first (e.g. a revoked refresh token is deleted).
    /// The project id is checked here, so no state ever exists under an id that is not one.
    func writeProject<T>(_ projectId: String, _ body: (inout AuthProjectState) throws -> T) throws -> T {
        try ResourceId.project(projectId)
        return try states.withLock { s in
            // Mutate in place: taking the state out of the dictionary keeps it uniquely referenced,
            // so a write costs what it changes (a copy would duplicate every user per sign-in).
            // The mutators record first-touch values, so a refused write can still be undone.
            var st = s.removeValue(forKey: projectId) ?? AuthProjectState()
            let outcome: Result<T, any Error>
            do { outcome = .success(try body(&st)) } catch { outcome = .failure(error) }
            do {
                try journal(projectId, st)
            } catch {
                st.rollBack()
                st.forgetWriteChanges()
                s[projectId] = st
                throw error
            }
            st.forgetWriteChanges()
            s[projectId] = st
            return try outcome.get()
        }
    }

    /// Mutates one pool (see `writeProject`).
    func write<T>(_ scope: AuthScope, _ body: (inout AuthPool) throws -> T) throws -> T {
        try writeProject(scope.projectId) { st in try st.withPool(scope.tenantId, body) }
    }

    /// Hands what changed to the journal (inside the lock: journal order is commit order). Throws
    /// the journal's error; the caller rolls back.
    private func journal(_ projectId: String, _ st: AuthProjectState) throws {
        guard let append = journalHook.withLock({ $0 })?.call, let entry = st.journalEntry() else { return }
        try appendCarryingKey(append, projectId, entry)
    }

    /// Appends `entry`; the first entry after the signing key exists carries it, so signed tokens
    /// outlive restarts (an unsigned-mode process that never made a key journals none). The key
    /// counts as journaled only once an append that carried it succeeded.
    private func appendCarryingKey(_ append: @Sendable (String, JSON) throws -> Void, _ projectId: String, _ entry: JSON) throws {
        var entry = entry
        let pem = keyJournaled.withLock { $0 } ? nil : try? keyring.existingKey?.privateKeyPEM()
        if let pem, case .object(var o) = entry {
            o["signingKey"] = .string(pem)
            entry = .object(o)
        }
        try append(projectId, entry)
        if pem != nil { keyJournaled.withLock { $0 = true } }
    }

    /// Installs the write-ahead journal (`--data-dir`): it receives `(projectId, entry)` for every
    /// change, inside the lock and before the change is visible; when it throws, the change is
    /// rolled back and the caller gets the error. `replay(project:entry:)` reads entries back.
    public func setJournal(_ f: (@Sendable (String, JSON) throws -> Void)?) { journalHook.withLock { $0 = f.map(Callback.init) } }

    /// Replaces the project's state with `transform` of it (reset, restore, import), journaled
    /// first as one whole-project record when a journal is installed (`{"replace": <export>,
    /// "signingKey"}`: the key the process signs with afterwards, `adoptingKey` when given).
    /// When the journal refuses, nothing changes (the key is not adopted) and its error is thrown.
    func replaceJournaled(_ projectId: String, adoptingKey pem: String? = nil, _ transform: (inout AuthProjectState) throws -> Void) throws {
        try ResourceId.project(projectId)
        let key = try pem.map { try TokenKeyring.parse(pem: $0) }  // checked before it is journaled
        try states.withLock { s in
            let old = s[projectId]
            var st = old ?? AuthProjectState()
            try transform(&st)
            st.forgetChanges()
            if let append = journalHook.withLock({ $0 })?.call, old?.hasData == true || st.hasData || pem != nil {
                var entry: UTF8Dictionary<JSON> = ["replace": st.exported]
                if let key = pem ?? (try? keyring.existingKey?.privateKeyPEM()) { entry["signingKey"] = .string(key) }
                try append(projectId, .object(entry))
                if entry["signingKey"] != nil { keyJournaled.withLock { $0 = true } }
            }
            if let key { keyring.adopt(key) }
            s[projectId] = st
        }
    }

    /// Replaces state without journaling (journal replay and snapshot loading at start).
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

    /// Replaces the project's state (restore a snapshot, or reset with `AuthProjectState()`),
    /// journaled first (see `replaceJournaled`).
    public func restore(projectId: String, _ state: AuthProjectState) throws { try replaceJournaled(projectId) { $0 = state } }

    /// Projects that have Auth state.
    func projectIdsWithState() -> [String] { states.withLock { Array($0.keys) } }

    /// Logs the unsigned-token warning the first time only, and only when the emulator signs its
    /// own tokens (unsigned is the default and then nothing to warn about).
    func warnUnsignedOnce() {
        guard config.signIdTokens else { return }
        if !warnedUnsigned.withLock({ v in
            defer { v = true }
            return v
        }) {
            logger.log(.warning, "auth", "accepting unsigned (alg: none) ID tokens; set auth.acceptUnsignedTokens=false to require RS256 signatures")
        }
    }
}
