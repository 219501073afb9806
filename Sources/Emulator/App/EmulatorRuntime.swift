import EmulatorCore
import EmulatorFunctions
import EmulatorHTTP

/// A running emulator: the services, the request pipeline and the listening server.
/// This is also the embedding API: a Swift program or test suite calls `start` (with port 0
/// for ephemeral ports) and `stop`. Immutable after `start`.
public final class EmulatorRuntime: Sendable {
    /// The request pipeline (routes can be called directly with `app.handle(_:)` in tests).
    public let app: EmulatorApp
    /// Where each service ended up listening (`auth`, `firestore`, `functions`, `hub`).
    public let addresses: [ServiceAddress]
    private let server: HTTPServer
    /// Supervisors of the configured functions codebases.
    public let workers: [WorkerSupervisor]
    /// The Python codebases (official SDK) being served.
    public let pythonCodebases: [PythonCodebase]
    private let credentials: DummyCredentials

    private init(
        app: EmulatorApp, server: HTTPServer, addresses: [ServiceAddress], workers: [WorkerSupervisor],
        pythonCodebases: [PythonCodebase] = [], credentials: DummyCredentials = DummyCredentials()
    ) {
        self.app = app
        self.server = server
        self.addresses = addresses
        self.workers = workers
        self.pythonCodebases = pythonCodebases
        self.credentials = credentials
    }

    /// The services (for registering in-process functions, reading state in tests, ...).
    public var services: EmulatorServices { app.services }

    /// The address of one service.
    public func address(of service: String) -> ServiceAddress? { addresses.first { $0.name == service } }

    /// Validates the configuration, builds the services and binds every listener.
    /// A single port (`singlePort`) serves every API; otherwise each service port does (and
    /// every one of them still answers every API, so one port is always enough).
    public static func start(config: EmulatorConfig, logger: any LogSink) async throws -> EmulatorRuntime {
        if !isLoopback(config.host) && config.adminToken == nil {
            throw CLIError(
                "refusing to listen on non-loopback host '\(config.host)' without --admin-token: anyone on the network could read and reset your data; pass --admin-token TOKEN (then /emulator/v1/* requires 'Authorization: Bearer TOKEN')"
            )
        }
        let services = try EmulatorServices(config: config, logger: logger)
        let control = services.controlPlane
        if let dir = config.exportOnExit {
            // Checked now, not only at exit: finding out then that the folder may not be replaced
            // would lose the run's data. Checked again at exit (the folder may change meanwhile).
            do { try control.checkExportTarget(dir) } catch let e as EmulatorError {
                throw CLIError("--export-on-exit '\(dir)': \(e.message)")
            }
        }
        if let dir = config.importDir {
            do {
                let imported = try await control.importArchive(from: dir, project: nil)
                logger.log(.info, "emulator", "imported \(imported.count) project(s) from \(dir)")
            } catch let e as EmulatorError {
                throw CLIError("--import '\(dir)': \(e.message)")
            }
        }
        let app = EmulatorApp(services: services)
        // One listener per distinct port, in a fixed order so results map back to services.
        var ports: [Int] = []
        var serviceForPort: [(String, Int)] = []
        for name in EmulatorConfig.serviceNames {
            let p = config.singlePort ?? config.ports[name] ?? 0
            serviceForPort.append((name, p))
            if p == 0 && config.singlePort == nil { ports.append(0) } else if !ports.contains(p) { ports.append(p) }
        }
        var serverConfig = HTTPServerConfiguration(listeners: ports.map { .init(host: config.host, port: $0) })
        serverConfig.maxBodyBytes = 32 * 1024 * 1024
        serverConfig.streamingPolicy = StorageRoutes.streamingPolicy(services.storage)
        serverConfig.maxConnections = config.limits.maxConnections
        serverConfig.maxStreams = config.limits.maxStreams
        serverConfig.outputBudget = config.limits.outputBufferBytes
        serverConfig.maxBufferedBodyBytes = config.limits.maxBufferedBodyBytes
        serverConfig.http2.maxConcurrentStreams = config.limits.maxStreamsPerConnection
        serverConfig.eventLoops = config.limits.eventLoops
        let grpc = GRPCServices(services: services)
        let server = HTTPServer(
            configuration: serverConfig, responder: { [app] in await app.handle($0) }, inline: { [app] in app.handleInline($0) },
            grpc: { await grpc.handle($0) }, grpcInline: grpc.inline)
        let bound = try server.start()
        var addresses: [ServiceAddress] = []
        var zeroIndex = 0
        for (name, p) in serviceForPort {
            let index: Int
            if config.singlePort != nil {
                index = 0
            } else if p == 0 {
                index = ports.indices.filter { ports[$0] == 0 }[zeroIndex]
                zeroIndex += 1
            } else {
                index = ports.firstIndex(of: p) ?? 0
            }  // every port in serviceForPort is in ports
            addresses.append(ServiceAddress(name: name, host: config.host, port: bound[index].port))
        }
        services.directory.set(addresses)
        services.rules.startWatching()
        services.storageRules.startWatching()
        startAnonymousPurge(services)
        PubSubPushDelivery.start(services)
        let runtime = EmulatorRuntime(app: app, server: server, addresses: addresses, workers: [])
        let workers = try startWorkers(config: config, services: services, environment: runtime.clientEnvironment)
        let credentials = DummyCredentials(signers: services.auth.customTokenSigners)
        let python = try PythonCodebases.start(
            config: config, services: services, addresses: addresses, hostPort: runtime.hostPort,
            credentials: credentials)
        for w in workers where !(await w.waitUntilReady(timeout: 120)) {
            logger.log(
                .error, "functions", "\(w.config.name): the worker did not report ready within 120 s; its functions are unavailable until it does")
        }
        // Discovery takes a second or two; creating a missing venv a minute (its progress is shown).
        for c in python where !(await c.waitUntilSettled(timeout: 900)) {
            logger.log(
                .error, "functions",
                "functions[\(c.config.name)]: not serving (\(c.status.error ?? c.status.phase.rawValue)); the emulator runs on and retries when the source changes"
            )
        }
        if config.functions["runSchedules"]?.boolValue == true { startScheduleRunner(services) }
        return EmulatorRuntime(app: app, server: server, addresses: addresses, workers: workers, pythonCodebases: python, credentials: credentials)
    }

    /// Runs scheduled functions on their schedules, judged on each project's clock once a second
    /// of wall time (`functions.runSchedules` / `--functions-schedules clock`).
    static func startScheduleRunner(_ services: EmulatorServices) {
        let task = Task.detached { [weak functions = services.functions] in
            while !Task.isCancelled {
                guard let functions else { return }
                functions.tickSchedules()
                try? await Task.sleep(nanoseconds: 1_000_000_000)
            }
        }
        services.backgroundTasks.withLock { $0.append(task) }
    }

    /// Stops accepting, finishes in-flight requests (bounded), and releases the ports.
    public func stop() async {
        for w in workers { w.stop() }
        await withTaskGroup(of: Void.self) { group in
            for c in pythonCodebases { group.addTask { c.stop() } }
        }
        credentials.remove()
        app.services.rules.stopWatching()
        app.services.storageRules.stopWatching()
        for t in app.services.backgroundTasks.withLock({ $0 }) { t.cancel() }
        await server.shutdown()
        let s = app.services
        if let dir = s.config.exportOnExit {
            do {
                try s.controlPlane.export(project: nil, to: dir)
                s.logger.log(.info, "emulator", "exported every project to \(dir)")
            } catch {
                s.logger.log(.error, "emulator", "export on exit to \(dir) failed: \(error)")
            }
        }
        s.dataDirectory?.close()
        // Under --data-dir the files are the data; without it they go with the run.
        if s.dataDirectory == nil { s.storageBlobs.removeEverything() } else { s.storageBlobs.keepFiles() }
    }

    /// The environment a child process needs to talk to this emulator (`exec` sets it).
    public var clientEnvironment: [String: String] {
        func hp(_ s: String) -> String? { address(of: s).map { hostPort($0) } }
        var env: [String: String] = [
            "GCLOUD_PROJECT": app.services.config.projectId,
            "GOOGLE_CLOUD_PROJECT": app.services.config.projectId,
        ]
        env["FIREBASE_AUTH_EMULATOR_HOST"] = hp("auth")
        env["FIRESTORE_EMULATOR_HOST"] = hp("firestore")
        env["FIREBASE_FIRESTORE_EMULATOR_ADDRESS"] = hp("firestore")
        env["FIREBASE_EMULATOR_HUB"] = hp("hub")
        env["FUNCTIONS_EMULATOR_HOST"] = hp("functions")
        // google-cloud-storage and firebase-admin read the first (with its scheme); Firebase's
        // SDKs and tools the second (host:port), as the Firebase CLI sets them.
        env["STORAGE_EMULATOR_HOST"] = hp("storage").map { "http://" + $0 }
        env["FIREBASE_STORAGE_EMULATOR_HOST"] = hp("storage")
        env["PUBSUB_EMULATOR_HOST"] = hp("pubsub")
        return env
    }

    func hostPort(_ a: ServiceAddress) -> String {
        let host = a.host == "0.0.0.0" ? "127.0.0.1" : (a.host == "::" ? "::1" : a.host)
        return host.contains(":") ? "[\(host)]:\(a.port)" : "\(host):\(a.port)"
    }

    /// Applies `auth.anonymousTtlSeconds` every few seconds of wall time to every project, so
    /// anonymous accounts expire even when nobody signs up (judged on each project's clock).
    static func startAnonymousPurge(_ services: EmulatorServices) {
        guard let ttl = services.auth.config.anonymousTtlSeconds else { return }
        let interval = UInt64(max(1, min(ttl, 5))) * 1_000_000_000
        let task = Task.detached { [weak auth = services.auth, weak projects = services.projects] in
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: interval)
                guard let auth, let projects else { return }
                for p in projects.projectIds { await auth.purgeExpiredAnonymous(projectId: p) }
            }
        }
        services.backgroundTasks.withLock { $0.append(task) }
    }

    /// Starts one supervised worker per `functions.codebases` entry.
    static func startWorkers(config: EmulatorConfig, services: EmulatorServices, environment: [String: String]) throws -> [WorkerSupervisor] {
        guard let list = config.functions["codebases"]?.arrayValue?.filter({ $0["command"] != nil || $0["source"] == nil }) else { return [] }
        var env = environment
        env["FUNCTIONS_EMULATOR"] = "true"
        return try list.map { item in
            let cb: CodebaseConfig
            do { cb = try CodebaseConfig(json: item) } catch let e as HttpsError { throw CLIError("config: \(e.message)") }
            if let p = cb.project, let problem = ResourceId.projectProblem(p) {
                throw CLIError("config: functions codebase '\(cb.name)': project '\(ResourceId.shown(p))' is not a valid project id: \(problem)")
            }
            let w = WorkerSupervisor(
                config: cb, project: cb.project ?? config.projectId, host: services.functions,
                transport: HTTPWorkerTransport(), environment: env, logger: services.logger)
            w.start()
            return w
        }
    }

    /// Loopback names and addresses (`localhost`, `127.0.0.0/8` as a dotted quad, `::1`). A DNS
    /// name that merely starts with `127.` (`127.0.0.1.example.test`) can resolve anywhere.
    public static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || (host.hasPrefix("127.") && BrowserPolicy.isIPv4(host))
    }
}
