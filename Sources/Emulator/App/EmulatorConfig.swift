import EmulatorCore
import EmulatorHTTP
import EmulatorPubSub

/// The effective configuration of one emulator process: defaults, then a config file
/// (`emulator.json` or a Firebase `firebase.json`), then command-line flags.
public struct EmulatorConfig: Sendable, Equatable {
    /// The default project (`demo-project`).
    public var projectId: String = "demo-project"
    /// The host every listener binds (`127.0.0.1`).
    public var host: String = "127.0.0.1"
    /// When set, every API is served on this one port only (0 = ephemeral).
    public var singlePort: Int?
    /// Per-service ports (Firebase's defaults); each port serves every API.
    public var ports: [String: Int] = ["hub": 4400, "auth": 9099, "firestore": 8080, "functions": 5001, "storage": 9199, "pubsub": 8085]
    /// Firestore rules file, if any (absolute, or relative to the working directory).
    public var rulesPath: String?
    /// Storage rules file (`service firebase.storage`), if any; none: open rules, as Firebase's
    /// emulator without `storage.rules`.
    public var storageRulesPath: String?
    /// Per-bucket Storage rules files (bucket name → absolute path), from firebase.json's `storage`
    /// list (`{"bucket"|"target", "rules"}`); buckets not named use `storageRulesPath`.
    public var storageBucketRulesPaths: [String: String] = [:]
    /// Log threshold.
    public var logLevel: LogLevel = .info
    /// Required for `/emulator/v1/*` when set; mandatory for non-loopback hosts.
    public var adminToken: String?
    /// Extra names the server answers to besides loopback names, IP addresses and `host`
    /// (`--allowed-host`, `allowedHosts`; `.example.test` also allows its subdomains, `*` any name).
    /// Every other `Host` is refused (DNS rebinding).
    public var allowedHosts: [String] = []
    /// Browser origins trusted like the emulator's own UI (`--allowed-origin`, `allowedOrigins`):
    /// they may call the control plane and send `Bearer owner` (`*` = any origin).
    public var allowedOrigins: [String] = []
    /// Raw `auth` section, decoded by the Auth service.
    public var auth: JSON = .object([:])
    /// Firestore's index file (`firestore.indexes.json`; `--indexes`, `firestore.indexes` in
    /// emulator.json or firebase.json), absolute. Read for enforcement and suggestions.
    public var indexesPath: String?
    /// Refuse queries that need an index the index file lacks, as production does
    /// (`--strict-indexes`, `firestore.strictIndexes`, firebase.json `emulators.firestore.strictIndexes`).
    public var strictIndexes = false
    /// Raw `firestore` section, decoded by the document store.
    public var firestore: JSON = .object([:])
    /// Raw `functions` section, decoded by the functions host.
    public var functions: JSON = .object([:])
    /// Raw `storage` section (`maxObjectBytes`, `maxTotalBytes`, `signedUrls`), decoded by Storage.
    public var storage: JSON = .object([:])
    /// Durable data directory (journal + snapshot); nil = in memory.
    public var dataDir: String?
    /// When journal appends are forced to disk (`--data-dir`).
    public var fsync: DataDirectory.FsyncPolicy = .interval
    /// Export directory to import at start.
    public var importDir: String?
    /// Export directory written on clean exit.
    public var exportOnExit: String?
    /// The HTTP server's limits on connections, streams and unread output, its event-loop
    /// count, and the Pub/Sub project budget (`limits` in emulator.json; `--max-connections`,
    /// `--max-streams-per-connection`, `--event-loops`).
    public var limits = Limits()

    /// Limits that keep one client from taking what the others need (docs/robustness.md, "Limits").
    public struct Limits: Sendable, Equatable {
        /// Connections open at once; nil = 1,024, or three quarters of the open-file limit when
        /// that is lower. A connection beyond it is answered 503 and closed.
        public var maxConnections: Int?
        /// HTTP/2 streams open at once on one connection (SETTINGS_MAX_CONCURRENT_STREAMS).
        public var maxStreamsPerConnection = 1000
        /// HTTP/2 streams open at once on all connections together.
        public var maxStreams = 10_000
        /// Unsent output one connection may hold before the server stops reading from it.
        public var outputBufferBytes = 1 << 20
        /// Request-body bytes buffered for handlers on all connections together; a body that
        /// would pass it is answered 503 (gRPC `UNAVAILABLE`) with `Retry-After: 1`.
        public var maxBufferedBodyBytes = 512 << 20
        /// Event-loop threads; each serves its share of the connections and answers what it can
        /// itself. One by default: on two cores shared with the client, a second loop gained a
        /// little throughput and lost latency (bench/RESULTS.md); more pay with cores to spare.
        public var eventLoops = 1
        /// Unacknowledged message entries all Pub/Sub subscriptions of one project hold together
        /// (a message counts once per subscription it reaches); a publish that would pass it is
        /// refused `RESOURCE_EXHAUSTED` (`PubSubLimits.maxProjectMessages`).
        public var pubsubMaxProjectMessages = PubSubLimits.standard.maxProjectMessages
        /// Bytes of those entries, each counting its message's size (`PubSubLimits.maxProjectBytes`).
        public var pubsubMaxProjectBytes = PubSubLimits.standard.maxProjectBytes
        /// The defaults.
        public init() {}

        /// The Pub/Sub service's limits: the standard ones with the project budget set here.
        var pubsub: PubSubLimits {
            var l = PubSubLimits.standard
            l.maxProjectMessages = pubsubMaxProjectMessages
            l.maxProjectBytes = pubsubMaxProjectBytes
            return l
        }

        /// The accepted range of each key, for errors that say what would be accepted.
        static let ranges: [String: ClosedRange<Int>] = [
            "maxConnections": 1...1_000_000, "maxStreamsPerConnection": 1...1_000_000,
            "maxStreams": 1...10_000_000, "outputBufferBytes": 16_384...(1 << 30),
            "maxBufferedBodyBytes": (1 << 20)...(1 << 40),
            "eventLoops": 1...HTTPServerConfiguration.maxEventLoops,
            "pubsubMaxProjectMessages": 1...1_000_000_000, "pubsubMaxProjectBytes": 1...(1 << 40),
        ]
    }

    /// The built-in defaults.
    public init() {}

    /// The service names in display order.
    public static let serviceNames = ["hub", "auth", "firestore", "functions", "storage", "pubsub"]
}

/// A service's advertised address (after binding, so port 0 shows the real port).
public struct ServiceAddress: Sendable, Equatable {
    /// `auth`, `firestore`, `functions`, `storage`, `pubsub` or `hub`.
    public var name: String
    /// Host.
    public var host: String
    /// Port.
    public var port: Int
}
