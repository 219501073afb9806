import EmulatorAuth
import EmulatorCore
import EmulatorFunctions
import EmulatorPubSub
import EmulatorRules
import EmulatorStorage
import EmulatorStore
import FoundationEssentials

/// The services of one emulator process and what they share. Route registration functions get
/// this bundle; each service issue adds its service here.
///
/// Immutable (every property is a `let`), so shared across threads freely. A class, not a struct:
/// the API layers hold it and pass it on every request, and a struct of some thirty references
/// cost thirty retains and releases per copy (measured: about 5% of a gRPC GetDocument's
/// instructions, bench/RESULTS.md).
public final class EmulatorServices: Sendable {
    /// The effective configuration.
    public let config: EmulatorConfig
    /// Projects with their clocks and id generators.
    public let projects: ProjectRegistry
    /// Process logger.
    public let logger: any LogSink
    /// Named in-memory project snapshots.
    public let snapshots = SnapshotStore()
    /// Injected faults per project.
    public let faults = FaultInjector()
    /// Bound service addresses (filled after listening starts).
    public let directory = ServiceDirectory()
    /// The status route's serialized body, per directory and functions state.
    let statusCache = StatusBodyCache()
    /// The document store.
    public let store: StoreService
    /// Cloud Storage for Firebase (buckets, objects, uploads).
    public let storage: StorageService
    /// Storage's change observer: the functions host's triggers, then the UI's event streams.
    let storageFeed: StorageFeed
    /// Where Storage keeps object bytes: files under `<data-dir>/storage/blobs`, or a private
    /// temporary directory (removed when the runtime stops).
    public let storageBlobs: DiskBlobStore
    /// Process start, for `uptimeMs`.
    public let startedAt: Timestamp
    /// The Auth service (users, tokens, keys).
    public let auth: AuthService
    /// Security Rules per project.
    public let rules: RulesRegistry
    /// Storage rules (`--storage-rules`, firebase.json `storage.rules` or per-bucket entries),
    /// judged on the Firebase API.
    public let storageRules: StorageRulesets
    /// The functions host.
    public let functions: FunctionsHost
    /// Pub/Sub topics, subscriptions and delivery.
    public let pubsub: PubSubService
    /// Encodes document changes as protobuf CloudEvent bodies for Python Firestore triggers.
    public let documentEventEncoder: (any DocumentEventEncoder)? = ProtobufDocumentEventEncoder()
    /// Every store access with its rules verdict, per project (the UI's Requests page).
    public let rulesLog = RulesEvaluationLog()
    /// Per-project change counters the UI polls for live updates (`GET .../revision`).
    public let revisions = ProjectRevisions()

    /// Index enforcement (`--strict-indexes`) and suggestions for Firestore queries.
    public let indexes: IndexEnforcement

    /// Timings of Firestore's WebChannel transport (`firestore.webChannel`).
    public let webChannel: FirestoreWebChannelOptions

    /// Background loops to cancel when the runtime stops.
    public let backgroundTasks = Mutex<[Task<Void, Never>]>([])
    /// Durable storage when `--data-dir` is set.
    public let dataDirectory: DataDirectory?

    /// Every service whose per-project data can be reset, captured and restored.
    public var participants: [any ProjectStateParticipant] { [store, auth, pubsub, functions, rulesLog, indexes, storage] }

    /// Every service whose data can be exported, imported and journaled.
    public var persistentParticipants: [any PersistentParticipant] { [store, auth, pubsub] }

    /// After a reset, restore or import: tells the UI the project changed wholesale. (The services
    /// journal their own replacements, write-ahead, through the hooks installed below.)
    public func noteReplaced(project: String) {
        revisions.bump(project)
    }

    /// Builds every service from the configuration.
    public init(config: EmulatorConfig, logger: any LogSink, baseClock: any EmulatorClock = WallClock()) throws {
        if let problem = ResourceId.projectProblem(config.projectId) {
            throw CLIError("project '\(ResourceId.shown(config.projectId))' is not a valid project id: \(problem)")
        }
        self.config = config
        self.logger = logger
        self.projects = ProjectRegistry(defaultProjectId: config.projectId, base: baseClock)
        let storeOptions: StoreOptions
        do {
            let (storeSection, webChannel) = try FirestoreWebChannelOptions.split(config.firestore)
            storeOptions = try StoreOptions(json: storeSection)
            self.webChannel = webChannel
        } catch let e as EmulatorError { throw CLIError("config: \(e.message)") }
        let store = StoreService(environments: projects, options: storeOptions, logger: logger)
        self.store = store
        self.indexes = try IndexEnforcement(path: config.indexesPath, strict: config.strictIndexes, logger: logger)
        let rules = try RulesRegistry(filePath: config.rulesPath, logger: logger)
        self.rules = rules
        store.setAuthorizer(RulesAuthorizer(registry: rules, log: rulesLog))
        let auth: AuthService
        do { auth = AuthService(config: try AuthServiceConfig(json: config.auth), environments: projects, logger: logger) } catch let e
            as EmulatorError
        {
            throw CLIError("config: \(e.message)")
        }
        self.auth = auth
        for path in auth.config.serviceAccounts {
            do {
                let text = try String(contentsOfFile: path, encoding: .utf8)
                try auth.customTokenSigners.trust(serviceAccount: try JSON.parse(text))
            } catch let e as EmulatorError {
                throw CLIError("auth.serviceAccounts: '\(path)': \(e.message)")
            } catch {
                throw CLIError("auth.serviceAccounts: cannot read '\(path)'")
            }
        }
        let functions = FunctionsHost(
            environments: projects, logger: logger,
            retryBaseDelay: config.functions["retryBaseDelaySeconds"]?.doubleValue ?? 0.05)
        self.functions = functions
        functions.setAdmin(ServiceAdmin(auth: auth, store: store))
        auth.setHooks(FunctionsAuthHooks(host: functions, projects: projects))
        let faults = self.faults
        functions.setFaultHook { project, name in
            guard let rule = faults.fire(projectId: project, target: FaultTarget(service: "functions", method: "invoke", path: name, function: name)),
                let e = rule.error
            else { return nil }
            return HttpsError(e.code, e.message)
        }
        let storageOptions: StorageOptions
        do { storageOptions = try StorageOptions(json: config.storage) } catch let e as EmulatorError { throw CLIError("config: \(e.message)") }
        do {
            if let dir = config.dataDir {
                // The journal names these files; loading adopts the ones it names and deletes the rest.
                storageBlobs = try DiskBlobStore(
                    directory: FilePathText.appending(FilePathText.appending(dir, "storage"), "blobs"), durable: config.fsync != .never)
            } else {
                storageBlobs = try DiskBlobStore.temporary()
            }
        } catch {
            throw CLIError("storage: \(error.description)")
        }
        let storage = StorageService(environments: projects, defaultProject: config.projectId, blobs: storageBlobs, options: storageOptions)
        self.storage = storage
        let storageRules = try StorageRulesets(filePath: config.storageRulesPath, bucketPaths: config.storageBucketRulesPaths, logger: logger)
        self.storageRules = storageRules
        storage.setAuthorizer(StorageRulesAuthorizer(rulesets: storageRules, log: rulesLog, store: store))
        let pubsub = PubSubService(environments: projects, limits: config.limits.pubsub)
        self.pubsub = pubsub
        PubSubWiring.connect(pubsub: pubsub, functions: functions, revisions: revisions)
        if let dir = config.dataDir {
            let d = try DataDirectory(path: dir, participants: [store, auth, pubsub, storage], logger: logger, policy: config.fsync)
            storage.beginLoading()
            try d.load()
            let report = storage.finishLoading()
            if report.orphansRemoved > 0 {
                logger.log(
                    .info, "persistence",
                    "storage: deleted \(report.orphansRemoved) stored file(s) no journal record refers to (uploads that were never acknowledged)")
            }
            for object in report.missing {
                logger.log(.error, "persistence", "storage: \(object) was dropped: its stored file is missing or shorter than recorded")
            }
            self.dataDirectory = d
        } else {
            self.dataDirectory = nil
        }
        let journal = dataDirectory
        if let journal {
            // Write-ahead (docs/robustness.md, "Durability"): each service hands every change to the
            // journal inside its lock before the change is visible; a failed append undoes it and
            // the request gets UNAVAILABLE. Installed after `load()`, so loading is not journaled again.
            // Weak: the data directory holds the services as participants (a strong capture is a cycle).
            store.setJournal { [weak journal] project, entry in try journal?.append(participant: "firestore", project: project, entry: entry) }
            auth.setJournal { [weak journal] project, entry in try journal?.append(participant: "auth", project: project, entry: entry) }
            pubsub.setJournal { [weak journal] project, entry in try journal?.append(participant: "pubsub", project: project, entry: entry) }
            storage.setJournal { [weak journal] project, entry in try journal?.append(participant: "storage", project: project, entry: entry) }
        }
        // Weak: the functions host reaches the store through its admin context, and a strong
        // capture here would make a cycle that outlives the services (embedding, tests).
        let revisions = self.revisions
        store.setObserver { [weak functions] batch in
            revisions.bump(batch.project)
            // Asked first: the event JSON of every change is built only when a trigger can use it.
            guard batch.database == "(default)", let functions, functions.hasDocumentTriggers(project: batch.project) else { return }
            let principal: (type: String, id: String)
            switch batch.caller {
            case .admin?: principal = ("service_account", "firebase-adminsdk-emulator@\(batch.project).iam.gserviceaccount.com")
            case .user(let a)?: principal = ("app_user", a.uid)
            case .unauthenticated?: principal = ("unauthenticated", "")
            case nil: principal = ("system", "")
            }
            functions.documentsChanged(
                project: batch.project, time: batch.commitTime,
                changes: batch.changes.map {
                    (
                        $0.path, $0.before?.json(project: batch.project, database: batch.database),
                        $0.after?.json(project: batch.project, database: batch.database)
                    )
                }, principal: principal)
        }
        let storageFeed = StorageFeed(next: StorageTriggers(functions: functions), revisions: revisions)
        self.storageFeed = storageFeed
        storage.setObserver(storageFeed)
        for p in store.projectsWithData + auth.projectsWithData + pubsub.projectsWithData + storage.projectsWithData {
            _ = projects.environment(for: p)
        }
        self.startedAt = WallClock().now()
    }
}
