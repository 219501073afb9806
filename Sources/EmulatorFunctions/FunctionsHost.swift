import EmulatorCore

/// Runs functions beside the other services: callables and HTTP functions in the request,
/// background events (document and auth triggers) through a per-project queue that delivers at
/// least once, in order, with retries and backoff when a function asks for them, recording every
/// invocation. State is behind a `Mutex`; delivery runs in one task per project, so events for a
/// document are handled in commit order.
public final class FunctionsHost: Sendable {
    struct Registered: Sendable {
        var definition: FunctionDefinition
        var backend: any FunctionBackend
        var codebase: String?
    }

    struct Pending: Sendable {
        var function: String
        var event: BackgroundEvent
        var attempt: Int
        var notBefore: UInt64
    }

    struct ProjectState {
        var functions: [String: Registered] = [:]
        var queue = FIFOQueue<Pending>()
        var running = 0
        var draining = false
        var logs: [InvocationRecord] = []
        /// Tasks waiting for their schedule time before they join the queue.
        var delayed = 0
        /// Per scheduled function: the project time the schedule runner last looked.
        var scheduleCursor: [String: Timestamp] = [:]
        /// What supervised codebases report about themselves (state, errors), by name.
        var codebases: UTF8Dictionary<JSON> = [:]
    }

    let environments: any ProjectEnvironmentProvider
    let logger: any LogSink
    /// Base delay of retry backoff (doubles per attempt).
    public let retryBaseDelay: Double
    /// Attempts before a retried event is given up (and recorded as such).
    public let maxAttempts: Int
    let state = Mutex<[String: ProjectState]>([:])
    private let admin = Mutex<(any FunctionsAdminProvider)?>(nil)
    private let faultHook = Mutex<Callback<@Sendable (String, String) -> HttpsError?>?>(nil)
    /// Told of every registration and schedule run (the Pub/Sub wiring: topics for triggers,
    /// schedule messages); see `setPlatformHooks`.
    let platformHooks = Mutex<FunctionsPlatformHooks?>(nil)
    static let maxLogs = 1000
    /// Invocations whose input (and event) are kept: inputs can be whole documents.
    static let maxInputs = 200

    /// Creates a host.
    /// Changes of codebase reports so far (`statusVersion`); behind its own `Mutex`.
    private let statusChanges = Mutex<UInt64>(0)

    public init(
        environments: any ProjectEnvironmentProvider, logger: any LogSink = NullLogSink(), retryBaseDelay: Double = 0.05, maxAttempts: Int = 8
    ) {
        self.environments = environments
        self.logger = logger
        self.retryBaseDelay = retryBaseDelay
        self.maxAttempts = maxAttempts
    }

    /// Installs the admin handles given to functions.
    public func setAdmin(_ a: any FunctionsAdminProvider) { admin.withLock { $0 = a } }

    /// Installs the fault hook (`(project, function) → error to inject`).
    public func setFaultHook(_ f: @escaping @Sendable (String, String) -> HttpsError?) { faultHook.withLock { $0 = Callback(f) } }

    /// Registers an in-process function.
    public func register(project: String, _ def: FunctionDefinition, _ handler: FunctionHandler) {
        register(project: project, def, backend: InProcessBackend(handler: handler), codebase: nil)
    }

    /// Registers a function served by `backend` (workers use this).
    public func register(project: String, _ def: FunctionDefinition, backend: any FunctionBackend, codebase: String?) {
        state.withLock {
            $0[project, default: ProjectState()].functions[def.name] = Registered(definition: def, backend: backend, codebase: codebase)
        }
        platformHooks.withLock { $0 }?.registered.call(project, def)
    }

    /// Installs the hooks the platform's other services follow registrations and schedule runs with.
    public func setPlatformHooks(_ h: FunctionsPlatformHooks?) { platformHooks.withLock { $0 = h } }

    /// Removes every function of a codebase (a worker restarting re-registers its manifest).
    public func unregister(codebase: String) {
        state.withLock { s in
            for k in s.keys { if let fns = s[k]?.functions { s[k]?.functions = fns.filter { $0.value.codebase != codebase } } }
        }
    }

    /// Records what a codebase reports about itself (shown by the functions listing).
    public func setCodebaseStatus(project: String, codebase: String, _ status: JSON) {
        state.withLock { $0[project, default: ProjectState()].codebases[codebase] = status }
        statusChanges.withLock { $0 += 1 }
    }

    /// Counts the changes of codebase reports (`setCodebaseStatus` calls), for caches of what is
    /// derived from them (the status route's body). Read after a change, it is already counted.
    public var statusVersion: UInt64 { statusChanges.withLock { $0 } }

    /// Every project's codebase reports (with `project`), sorted by project and name.
    public func allCodebaseStatuses() -> [JSON] {
        state.withLock { s in
            s.sorted { $0.key < $1.key }.flatMap { project, p in
                p.codebases.sorted { $0.key < $1.key }.map { _, status -> JSON in
                    var o = status.objectValue ?? [:]
                    o["project"] = .string(project)
                    return .object(o)
                }
            }
        }
    }

    /// True when no codebase is still installing, starting or discovering (ready, failed or
    /// stopped ones are settled: a request now gets the same answer as later).
    public var codebasesSettled: Bool {
        allCodebaseStatuses().allSatisfy { !["installing", "starting", "discovering"].contains($0["state"]?.stringValue ?? "") }
    }

    /// The codebase reports of a project, sorted by name.
    public func codebaseStatuses(project: String) -> [JSON] {
        state.withLock { s in (s[project]?.codebases ?? [:]).sorted { $0.key < $1.key }.map(\.value) }
    }

    /// Registered definitions of a project, sorted by name.
    public func functions(project: String) -> [FunctionDefinition] {
        state.withLock { ($0[project]?.functions.values.map(\.definition) ?? []).sorted { $0.name < $1.name } }
    }

    func lookup(_ project: String, _ name: String) -> Registered? { state.withLock { $0[project]?.functions[name] } }

    /// The project's functions, by name (a stable order, never the dictionary's).
    func registered(_ project: String) -> [Registered] {
        state.withLock { ($0[project]?.functions ?? [:]).sorted { $0.key < $1.key }.map(\.value) }
    }

    func context(_ project: String, _ logs: LogBuffer) -> FunctionContext {
        let a = admin.withLock { $0 }
        let env = environments.environment(for: project)
        return FunctionContext(
            projectId: project, auth: a?.adminAuth(project) ?? NoAdmin(), store: a?.adminStore(project) ?? NoAdmin(),
            clock: env.clock, logLines: logs)
    }

    func record(_ project: String, _ r: InvocationRecord) {
        state.withLock { s in
            var logs = s[project, default: ProjectState()].logs
            s[project]?.logs = []  // keeps the array uniquely referenced while it is edited
            logs.append(r)
            if logs.count > Self.maxLogs { logs.removeFirst(logs.count - Self.maxLogs) }
            let n = logs.count
            if n > Self.maxInputs {
                logs[n - Self.maxInputs - 1].input = nil
                logs[n - Self.maxInputs - 1].event = nil
            }
            s[project]?.logs = logs
        }
        logger.log(
            r.outcome == "ok" ? .debug : .warning, "functions",
            "\(r.function) [\(r.trigger)] attempt \(r.attempt): \(r.outcome)\(r.error.map { " — \($0)" } ?? "")")
    }

    /// Runs `body` as a recorded invocation. `failure` judges a returned result (an HTTP function's
    /// 5xx answer is a crash even though it returned): its message marks the record an error.
    func invoke<T: Sendable>(
        _ project: String, _ reg: Registered, trigger: String, eventId: String?, attempt: Int,
        input: JSON? = nil, event: BackgroundEvent? = nil, failure: (@Sendable (T) -> String?)? = nil,
        _ body: @escaping @Sendable (FunctionContext) async throws -> T
    ) async throws -> T {
        let env = environments.environment(for: project)
        let logs = LogBuffer()
        let ctx = context(project, logs)
        let start = env.clock.now()
        let t0 = ContinuousClock.now
        var rec = InvocationRecord(
            id: env.ids.string(length: 16, alphabet: IDGenerator.alphanumerics), function: reg.definition.name,
            trigger: trigger, eventId: eventId, attempt: attempt, start: start, durationMs: 0, outcome: "ok", error: nil, logs: [],
            input: input, event: event)
        do {
            if let injected = faultHook.withLock({ $0 })?.call(project, reg.definition.name) { throw injected }
            try await reg.backend.prepare(reg.definition)
            let result = try await withTimeout(reg.definition.timeoutSeconds) { try await body(ctx) }
            rec.durationMs = Self.ms(since: t0)
            rec.logs = logs.all
            if let message = failure?(result) {
                rec.outcome = "error"
                rec.error = message
            }
            record(project, rec)
            return result
        } catch {
            rec.durationMs = Self.ms(since: t0)
            rec.logs = logs.all
            rec.outcome = "error"
            rec.error = (error as? HttpsError).map { "\($0.code.rawValue): \($0.message)" } ?? String(describing: error)
            record(project, rec)
            throw error
        }
    }

    static func ms(since t0: ContinuousClock.Instant) -> Double {
        let d = ContinuousClock.now - t0
        return Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
    }

    func clear(_ project: String) {
        state.withLock {
            $0[project]?.queue.removeAll()
            $0[project]?.logs = []
        }
    }
    func clearAll() {
        state.withLock { s in
            for k in s.keys {
                s[k]?.queue.removeAll()
                s[k]?.logs = []
            }
        }
    }

    /// Invocation records of a project, oldest first.
    public func logs(project: String) -> [InvocationRecord] { state.withLock { $0[project]?.logs ?? [] } }

    /// One invocation record by id.
    public func invocation(project: String, id: String) -> InvocationRecord? {
        state.withLock { $0[project]?.logs.last { $0.id == id } }
    }

    /// Queues `event` again for `function` as a first attempt (re-running a recorded event from
    /// the UI): delivered in order after what is queued, with the same event id, as a redelivery
    /// would be. False when the function is not registered.
    public func redeliver(project: String, function: String, event: BackgroundEvent) -> Bool {
        guard lookup(project, function) != nil else { return false }
        enqueue(project, [Pending(function: function, event: event, attempt: 1, notBefore: 0)])
        return true
    }
}

/// Stand-in admin handles before the wiring layer installs real ones.
struct NoAdmin: AdminAuth, AdminStore {
    func verifyIDToken(_ token: String) throws -> AuthContext { throw HttpsError(.unavailable, "admin auth is not configured") }
    func getUser(_ uid: String) throws -> JSON { throw HttpsError(.unavailable, "admin auth is not configured") }
    func deleteUser(_ uid: String) async throws { throw HttpsError(.unavailable, "admin auth is not configured") }
    func setCustomClaims(_ uid: String, _ claims: UTF8Dictionary<JSON>?) throws { throw HttpsError(.unavailable, "admin auth is not configured") }
    func get(_ path: String, transaction: [UInt8]?) throws -> JSON? { throw HttpsError(.unavailable, "admin store is not configured") }
    func query(parent: String, _ q: JSON, transaction: [UInt8]?) throws -> [JSON] { throw HttpsError(.unavailable, "admin store is not configured") }
    func commit(_ writes: [JSON], transaction: [UInt8]?) throws { throw HttpsError(.unavailable, "admin store is not configured") }
    func beginTransaction() throws -> [UInt8] { throw HttpsError(.unavailable, "admin store is not configured") }
    func rollback(_ t: [UInt8]) throws {}
}
