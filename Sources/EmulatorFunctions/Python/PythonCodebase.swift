import Dispatch
import EmulatorCore
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// Serves one Python codebase written with the official SDK: creates its venv when missing,
/// starts its launcher, discovers its functions as the Firebase CLI does (a checked-in
/// `functions.yaml`, else the SDK's admin server), registers them with the host, starts one
/// functions-framework process per function on its first call (or at discovery with `prestart`),
/// supervises them (a crashed or timed-out process is replaced on the next call; the launcher is
/// restarted if it dies) and reloads everything when the source folder changes.
///
/// State is behind a `Mutex`; launcher events arrive on the launcher's reader thread and only
/// touch that state (waiters are resumed outside the lock). The function-process half lives in
/// `PythonCodebase+Processes.swift`.
public final class PythonCodebase: Sendable {
    /// Where the codebase is in its life.
    public enum Phase: String, Sendable {
        case installing, starting, discovering, ready, failed, stopped
    }

    /// One function of the manifest and its current process.
    struct FunctionSlot {
        var endpoint: ManifestEndpoint
        /// The current process: spawn id, and its port once it has started.
        var spawn: String?
        var port: Int?
        /// Callers waiting for the process to start, by ticket (so a cancelled one can leave).
        var waiters: [Int: CheckedContinuation<(String, Int), any Error>] = [:]
    }

    /// One forked child (a function process or the admin server) and what it wrote lately.
    struct Spawn {
        var function: String?
        var pid: Int32 = 0
        var adminPort: Int?
        var port: Int?
        var exit: String?
        /// Deaths of its server's worker process (gunicorn replaces them), newest last.
        var workerDeaths: [String] = []
        var tail: [String] = []
        var open: [String: InvocationOutput] = [:]
        var startedAt = MonotonicClock.nanoseconds()
    }

    /// Everything that changes, behind `state`.
    struct State {
        var phase = Phase.starting
        var error: String?
        var stopped = false
        var launcher: (any LauncherChannel)?
        var generation = 0
        var launcherReady = false
        var launcherInfo = ""
        var launcherFailures = 0
        var environment: FunctionEnvironment
        var functions: [String: FunctionSlot] = [:]
        var spawns: [String: Spawn] = [:]
        var yaml: [String: Result<JSON, HttpsError>] = [:]
        var counter = 0
        var discoveryMs: Double?
    }

    /// The configuration it serves.
    public let config: PythonCodebaseConfig
    let project: String
    let host: FunctionsHost
    let transport: any WorkerTransport
    let logger: any LogSink
    let makeLauncher: @Sendable (_ python: String, _ environment: [String: String], _ prefork: Bool) -> any LauncherChannel
    let documentEncoder: (any DocumentEventEncoder)?
    let state: Mutex<State>
    var label: String { "functions[\(config.name)]" }

    /// Creates the supervisor; `start()` runs it. `environment` carries the emulator hosts and the
    /// credentials; `launcher` makes the launcher channel (default: a real process).
    public init(
        config: PythonCodebaseConfig, project: String, host: FunctionsHost, transport: any WorkerTransport,
        environment: FunctionEnvironment, logger: any LogSink, documentEncoder: (any DocumentEventEncoder)? = nil,
        launcher: (@Sendable (_ python: String, _ environment: [String: String], _ prefork: Bool) -> any LauncherChannel)? = nil
    ) {
        self.config = config
        self.project = project
        self.host = host
        self.transport = transport
        self.logger = logger
        self.documentEncoder = documentEncoder
        state = Mutex(State(environment: environment))
        let source = config.source, label = "functions[\(config.name)]"
        self.makeLauncher =
            launcher ?? { python, env, prefork in
                LauncherProcess(python: python, workingDirectory: source, environment: env, prefork: prefork, logger: logger, label: label)
            }
    }

    /// The phase and, when failed, why.
    public var status: (phase: Phase, error: String?) { state.withLock { ($0.phase, $0.error) } }

    /// How long the last discovery took (milliseconds), for the listing and benchmarks.
    public var discoveryMilliseconds: Double? { state.withLock { $0.discoveryMs } }

    /// Boots in the background: venv, launcher, discovery, registration, watcher.
    public func start() {
        Task.detached { [self] in
            await boot(reason: nil)
            if config.watch { startWatching() }
        }
    }

    /// Waits until the codebase is ready or failed (true when ready), at most `timeout` seconds.
    public func waitUntilSettled(timeout: Double) async -> Bool {
        let deadline = MonotonicClock.deadline(afterSeconds: timeout)
        while MonotonicClock.nanoseconds() < deadline {
            switch status.phase {
            case .ready: return true
            case .failed, .stopped: return false
            default: try? await Task.sleep(nanoseconds: 10_000_000)
            }
        }
        return false
    }

    /// Stops every process for good and unregisters the functions.
    public func stop() {
        let (launcher, waiters) = state.withLock { s -> ((any LauncherChannel)?, [CheckedContinuation<(String, Int), any Error>]) in
            s.stopped = true
            s.phase = .stopped
            let w = s.functions.values.flatMap(\.waiters.values)
            for k in s.functions.keys { s.functions[k]?.waiters = [:] }
            defer { s.launcher = nil }
            return (s.launcher, w)
        }
        for w in waiters { w.resume(throwing: HttpsError(.unavailable, "the emulator is stopping")) }
        launcher?.stop()
        host.unregister(codebase: config.name)
        publishStatus()
    }

    /// Moves to `phase` (not once stopped) and republishes the status.
    func setPhase(_ phase: Phase, error: String? = nil) {
        state.withLock { s in
            guard !s.stopped else { return }
            s.phase = phase
            s.error = error
        }
        publishStatus()
    }

    /// Tells the host what the listing should show for this codebase.
    func publishStatus() {
        let (phase, error, count, ms, info) = state.withLock { ($0.phase, $0.error, $0.functions.count, $0.discoveryMs, $0.launcherInfo) }
        var o: UTF8Dictionary<JSON> = [
            "name": .string(config.name), "runtime": .string(config.runtime ?? "python"), "source": .string(config.source),
            "state": .string(phase.rawValue), "functions": .int(Int64(count)), "prefork": .bool(config.prefork),
            "documentEvents": .bool(documentEncoder != nil),
        ]
        if let error { o["error"] = .string(error) }
        if let ms { o["discoveryMs"] = .double((ms * 10).rounded() / 10) }
        if !info.isEmpty { o["launcher"] = .string(info) }
        host.setCodebaseStatus(project: project, codebase: config.name, .object(o))
    }

    /// Installs (when needed and allowed), (re)starts the launcher and discovers; `reason` is
    /// logged on reloads.
    func boot(reason: String?) async {
        if let reason { logger.log(.info, "functions", "\(label): \(reason); reloading") }
        let python = config.venv + "/bin/python"
        if access(python, X_OK) != 0 {
            guard config.installDependencies else {
                fail(
                    "\(config.venv) is missing: create it with '\(config.interpreter) -m venv venv && venv/bin/pip install -r requirements.txt' in \(config.source), or let the emulator do it (remove 'installDependencies: false' / '--functions-install never')"
                )
                return
            }
            setPhase(.installing)
            logger.log(
                .warning, "functions",
                "\(label): \(config.venv) is missing; creating it and installing requirements.txt (set installDependencies to false or pass --functions-install never to turn this off)"
            )
            let env = state.withLock { $0.environment.common }
            let label = self.label
            do {
                try await Self.onThread {
                    try VenvInstaller.install(source: self.config.source, interpreter: self.config.interpreter, environment: env) { line in
                        printProgress("info functions: \(label): \(line)")
                    }
                }
            } catch let e as HttpsError {
                fail(e.message)
                return
            } catch {
                fail("\(error)")
                return
            }
        }
        loadUserEnvironment()
        setPhase(.starting)
        guard await restartLauncher() else { return }
        setPhase(.discovering)
        let t0 = MonotonicClock.nanoseconds()
        let manifest: FunctionManifest
        do {
            manifest = try await discover()
        } catch {
            host.unregister(codebase: config.name)
            let message = (error as? HttpsError)?.message ?? "\(error)"
            let orphans = replaceSlots([:])
            for w in orphans { w.resume(throwing: HttpsError(.unavailable, "codebase \(config.name) failed to load")) }
            fail(message)
            return
        }
        state.withLock { $0.discoveryMs = Double(MonotonicClock.elapsed(since: t0, MonotonicClock.nanoseconds())) / 1e6 }
        if let conflict = host.blockingConflict(project: project, codebase: config.name, manifest.endpoints.map(\.definition)) {
            host.unregister(codebase: config.name)
            for w in replaceSlots([:]) { w.resume(throwing: HttpsError(.unavailable, "codebase \(config.name) failed to load")) }
            fail(conflict)
            return
        }
        register(manifest)
        setPhase(.ready)
        if config.prestart { for e in manifest.endpoints { Task.detached { [self] in _ = try? await ensureRunning(e.definition.name) } } }
    }

    /// Logs `message` and marks the codebase failed.
    func fail(_ message: String) {
        logger.log(.error, "functions", "\(label): \(message)")
        setPhase(.failed, error: message)
    }

    /// Reads `.env`, `.env.<project>`, `.env.local` and `.secret.local` (a bad file is reported and skipped).
    func loadUserEnvironment() {
        func read(_ file: String) -> [String: String]? {
            let path = config.source + "/" + file
            guard let data = FileManager.default.contents(atPath: path) else { return nil }
            do { return try DotEnv.parse(String(decoding: data, as: UTF8.self)) } catch let e as HttpsError {
                logger.log(.error, "functions", "\(label): \(file) is not loaded: \(e.message)")
            } catch {}
            return nil
        }
        let user = FunctionEnvironment.mergeUserEnv(dotEnv: read(".env"), projectEnv: read(".env.\(project)"), localEnv: read(".env.local"))
        let secrets = read(".secret.local") ?? [:]
        state.withLock { s in
            s.environment.userEnv = user
            s.environment.secrets = secrets
            s.environment.configured = config.environment
        }
    }

    /// Registers the manifest's endpoints (replacing the previous ones) and sets the parameters'
    /// defaults into the environment.
    func register(_ manifest: FunctionManifest) {
        for w in manifest.warnings { logger.log(.warning, "functions", "\(label): \(w) (not served)") }
        let env = state.withLock { $0.environment }
        var defaults: [String: String] = [:]
        for p in manifest.params where env.userEnv[p.name] == nil && env.secrets[p.name] == nil {
            if p.type != "secret", let d = p.defaultValue {
                defaults[p.name] = d
            } else {
                logger.log(
                    .warning, "functions",
                    "\(label): parameter \(p.name) has no value; set it in .env\(p.type == "secret" ? " (secrets: .secret.local)" : "")")
            }
        }
        state.withLock { $0.environment.paramDefaults = defaults }
        var slots: [String: FunctionSlot] = [:]
        for e in manifest.endpoints { slots[e.definition.name] = FunctionSlot(endpoint: e) }
        for w in replaceSlots(slots) { w.resume(throwing: HttpsError(.notFound, "the function is gone from codebase \(config.name) after a reload")) }
        host.unregister(codebase: config.name)
        for e in manifest.endpoints {
            host.register(project: project, e.definition, backend: PythonBackend(codebase: self, endpoint: e), codebase: config.name)
        }
        logger.log(
            .info, "functions",
            "\(label): serving \(manifest.endpoints.count) function(s): \(manifest.endpoints.map(\.definition.name).joined(separator: ", "))")
    }

    /// Installs new function slots. A function that is still there keeps its process and its
    /// waiting callers; the waiters of a function that is gone are returned to be failed, and its
    /// process is stopped.
    func replaceSlots(_ new: [String: FunctionSlot]) -> [CheckedContinuation<(String, Int), any Error>] {
        let (orphans, stale) = state.withLock { s -> ([CheckedContinuation<(String, Int), any Error>], [String]) in
            var slots = new
            var orphans: [CheckedContinuation<(String, Int), any Error>] = []
            var stale: [String] = []
            for (name, old) in s.functions {
                if slots[name] != nil {
                    slots[name]?.waiters = old.waiters
                    slots[name]?.spawn = old.spawn
                    slots[name]?.port = old.port
                } else {
                    orphans += old.waiters.values
                    if let sp = old.spawn { stale.append(sp) }
                }
            }
            s.functions = slots
            return (orphans, stale)
        }
        for id in stale { signal(id, SIGKILL) }
        return orphans
    }

    /// Polls the source folder every second; a change reboots the codebase (new launcher, new
    /// discovery, fresh processes).
    func startWatching() {
        BackgroundThread.detach(name: "py-watch") { [self] in
            var last = SourceStamp.of(config.source, ignore: config.ignore)
            while !state.withLock({ $0.stopped }) {
                sleep(1)
                let now = SourceStamp.of(config.source, ignore: config.ignore)
                guard now != last else { continue }
                // Let an editor finish writing (several files, or write-then-rename) first.
                usleep(200_000)
                last = SourceStamp.of(config.source, ignore: config.ignore)
                let done = DispatchSemaphore(value: 0)
                Task.detached { [self] in
                    await boot(reason: "\(config.source) changed")
                    done.signal()
                }
                done.wait()
            }
        }
    }

    /// Runs blocking work on a thread of its own.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { c in
            BackgroundThread.detach(name: "py-blocking") { c.resume(with: Result { try body() }) }
        }
    }
}

/// Writes a progress line to the terminal (stderr) whatever the log level: installing a venv
/// takes a minute and the user should see why the emulator is not ready yet.
func printProgress(_ line: String) {
    let text = line + "\n"
    _ = text.utf8CString.withUnsafeBufferPointer { p in write(2, p.baseAddress, p.count - 1) }
}
