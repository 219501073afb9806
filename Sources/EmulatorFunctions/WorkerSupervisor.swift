import EmulatorCore
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// A functions codebase from the config: a command the host runs as a long-lived worker.
public struct CodebaseConfig: Sendable, Equatable {
    /// Name (for logs and the functions listing).
    public var name: String
    /// Command and arguments.
    public var command: [String]
    /// Working directory (absolute, or relative to the emulator's).
    public var workingDirectory: String?
    /// Extra environment.
    public var environment: [String: String]
    /// A folder whose changes restart the worker.
    public var watch: String?
    /// The project whose functions it serves (default: the emulator's default project).
    public var project: String?

    /// Decodes `{"name", "command": [..], "workingDirectory"?, "env"?, "watch"?, "project"?}`.
    public init(json j: JSON) throws {
        guard let name = j["name"]?.stringValue, !name.isEmpty else { throw HttpsError(.invalidArgument, "functions.codebases[].name is required") }
        guard case .array(let cmd)? = j["command"], !cmd.isEmpty, cmd.allSatisfy({ $0.stringValue != nil }) else {
            throw HttpsError(.invalidArgument, "functions.codebases[\(name)].command must be a non-empty array of strings")
        }
        self.name = name
        command = cmd.compactMap(\.stringValue)
        workingDirectory = j["workingDirectory"]?.stringValue
        environment = (j["env"]?.objectValue ?? [:]).compactMapValues(\.stringValue).dictionary
        watch = j["watch"]?.stringValue
        project = j["project"]?.stringValue
    }
}

/// Starts a codebase's worker, registers what its manifest declares, restarts it when it exits
/// (in-flight calls fail with UNAVAILABLE instead of hanging) or when its watched folder changes.
/// State is behind a `Mutex`.
public final class WorkerSupervisor: Sendable {
    struct State {
        var process: ChildProcess?
        var port: Int?
        var stopped = false
        var generation = 0
        var watchStamp = ""
    }

    /// The codebase it runs.
    public let config: CodebaseConfig
    let project: String
    let host: FunctionsHost
    let transport: any WorkerTransport
    let environment: [String: String]
    let logger: any LogSink
    private let state = Mutex(State())

    /// Creates a supervisor; call `start()`.
    public init(
        config: CodebaseConfig, project: String, host: FunctionsHost, transport: any WorkerTransport,
        environment: [String: String], logger: any LogSink
    ) {
        self.config = config
        self.project = project
        self.host = host
        self.transport = transport
        self.environment = environment
        self.logger = logger
    }

    /// The worker's current port, when ready.
    public var port: Int? { state.withLock { $0.port } }

    /// Starts the worker (and the folder watcher).
    public func start() {
        launch()
        if let dir = config.watch {
            state.withLock { $0.watchStamp = Self.stamp(dir) }
            BackgroundThread.detach(name: "functions-watch") { [self] in
                while !state.withLock({ $0.stopped }) {
                    sleep(1)
                    let now = Self.stamp(dir)
                    let changed = state.withLock { s -> Bool in
                        defer { s.watchStamp = now }
                        return s.watchStamp != now
                    }
                    if changed {
                        logger.log(.info, "functions", "\(config.name): \(dir) changed; restarting the worker")
                        state.withLock { $0.process }?.terminate()
                    }
                }
            }
        }
    }

    /// Waits until the worker has registered its functions (or `timeout` seconds pass).
    public func waitUntilReady(timeout: Double) async -> Bool {
        let deadline = MonotonicClock.deadline(afterSeconds: timeout)
        while MonotonicClock.nanoseconds() < deadline {
            if port != nil { return true }
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
        return false
    }

    /// Stops the worker for good.
    public func stop() {
        let p = state.withLock { s -> ChildProcess? in
            s.stopped = true
            return s.process
        }
        p?.terminate()
        _ = p?.waitUntilExit()
    }

    func launch() {
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        for (k, v) in config.environment { env[k] = v }
        let generation = state.withLock { s -> Int in
            s.generation += 1
            s.port = nil
            return s.generation
        }
        let onExit: @Sendable (ChildProcess.Termination) -> Void = { [self] termination in
            let (again, oldPort) = state.withLock { s -> (Bool, Int?) in
                guard s.generation == generation else { return (false, nil) }
                defer { s.port = nil }
                return (!s.stopped, s.port)
            }
            // Kept-alive connections to the dead worker would otherwise stay open forever.
            if let oldPort { transport.forget(port: oldPort) }
            host.unregister(codebase: config.name)
            guard again else { return }
            logger.log(.warning, "functions", "\(config.name): worker exited (status \(termination.status)); restarting in 1 s")
            BackgroundThread.detach(name: "functions-wait") { [self] in
                sleep(1)
                if !state.withLock({ $0.stopped }) { launch() }
            }
        }
        let p: ChildProcess
        do {
            p = try ChildProcess.start(
                command: config.command, environment: env, workingDirectory: config.workingDirectory,
                captureOutput: true, onExit: onExit)
        } catch {
            logger.log(.error, "functions", "\(config.name): \(error)")
            return
        }
        let stoppedMeanwhile = state.withLock { s -> Bool in
            if s.generation == generation { s.process = p }
            return s.stopped
        }
        if stoppedMeanwhile { p.terminate() }
        BackgroundThread.detach(name: "functions-out") { [self] in
            var buffer: [UInt8] = []
            while true {
                let chunk = p.readOutput()
                if chunk.isEmpty { return }
                buffer.append(contentsOf: chunk)
                while let nl = buffer.firstIndex(of: 10) {
                    let line = String(decoding: buffer[buffer.startIndex..<nl], as: UTF8.self)
                    buffer.removeSubrange(buffer.startIndex...nl)
                    if line.hasPrefix("emulator-worker ready port="), let port = Int(line.dropFirst(27)) {
                        Task { await self.ready(port: port, generation: generation) }
                    } else if !line.isEmpty {
                        logger.log(.info, "functions", "\(config.name): \(line)")
                    }
                }
            }
        }
    }

    func ready(port: Int, generation: Int) async {
        do {
            let r = try await transport.send(port: port, method: "GET", path: "/__/functions.json", headers: [], body: [], timeout: 10)
            guard let manifest = try? JSON.parse(r.body), case .array(let items)? = manifest["functions"] else {
                logger.log(.error, "functions", "\(config.name): /__/functions.json is not {\"functions\": [...]}")
                return
            }
            host.unregister(codebase: config.name)
            let backend = WorkerBackend(codebase: config.name, port: port, transport: transport)
            var defs: [FunctionDefinition] = []
            for item in items {
                do { defs.append(try FunctionDefinition(manifest: item, project: project)) } catch let e as HttpsError {
                    logger.log(.error, "functions", "\(config.name): \(e.message)")
                }
            }
            if let conflict = host.blockingConflict(project: project, codebase: config.name, defs) {
                logger.log(.error, "functions", "\(config.name): \(conflict) Its functions are not served.")
                return
            }
            for def in defs { host.register(project: project, def, backend: backend, codebase: config.name) }
            state.withLock { s in if s.generation == generation { s.port = port } }
            logger.log(.info, "functions", "\(config.name): serving \(items.count) function(s) on port \(port)")
        } catch {
            logger.log(.error, "functions", "\(config.name): cannot read the manifest: \(error)")
        }
    }

    /// A cheap fingerprint of a folder (paths, sizes and modification times).
    static func stamp(_ dir: String) -> String {
        guard let files = try? FileManager.default.subpathsOfDirectory(atPath: dir) else { return "" }
        var parts: [String] = []
        for f in files {
            if f.hasPrefix(".build") || f.contains("/.build") { continue }
            if let a = try? FileManager.default.attributesOfItem(atPath: dir + "/" + f), let m = a[.modificationDate] as? Date {
                parts.append("\(f):\(a[.size] ?? 0):\(m.timeIntervalSince1970)")
            }
        }
        return parts.sorted().joined(separator: "|")
    }
}
