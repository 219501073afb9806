import EmulatorCore

/// Options from the config file's `firestore` section.
public struct StoreOptions: Sendable, Equatable {
    /// Idle read-write transactions expire after this many seconds of emulator time.
    public var transactionIdleSeconds: Double = 60
    /// Transactions expire this many seconds of emulator time after they began, however busy
    /// (production's limit is 270 s).
    public var transactionLifetimeSeconds: Double = 270
    /// At most this many transactions are open per database; a begin past it is refused with
    /// RESOURCE_EXHAUSTED. Far above any client's concurrency, and each open transaction holds
    /// what it read until it ends or expires.
    public var maxOpenTransactions = 10_000
    /// At most this many queries per transaction: its commit may run each again inside the
    /// database lock (when what it covers changed since), so this bounds how long a commit holds it.
    public var transactionMaxQueries = 100
    /// At most this many documents read per transaction: its commit checks each again inside the
    /// database lock, and each is kept until the transaction ends.
    public var transactionMaxReads = 10_000

    /// The keys `init(json:)` knows.
    static let keys = ["transactionIdleSeconds", "transactionLifetimeSeconds", "maxOpenTransactions", "transactionMaxQueries", "transactionMaxReads"]

    /// Defaults.
    public init() {}

    /// Decodes `{"transactionIdleSeconds": 60, "transactionLifetimeSeconds": 270,
    /// "maxOpenTransactions": 10000, "transactionMaxQueries": 100, "transactionMaxReads": 10000}`;
    /// unknown keys are errors.
    public init(json: JSON) throws {
        guard case .object(let o) = json else { throw EmulatorError.invalidArgument("'firestore' must be an object") }
        for (k, v) in o {
            switch k {
            case "transactionIdleSeconds":
                transactionIdleSeconds = try Self.seconds(k, v)
            case "transactionLifetimeSeconds":
                transactionLifetimeSeconds = try Self.seconds(k, v)
            case "maxOpenTransactions":
                maxOpenTransactions = try Self.count(k, v, max: 1_000_000)
            case "transactionMaxQueries":
                transactionMaxQueries = try Self.count(k, v, max: 100_000)
            case "transactionMaxReads":
                transactionMaxReads = try Self.count(k, v, max: 10_000_000)
            default:
                throw EmulatorError.invalidArgument("unknown key 'firestore.\(k)' (known: \(Self.keys.joined(separator: ", ")))")
            }
        }
    }

    /// A duration option: a year at most (a value of 1e300 once trapped converting an expiry to a time).
    private static func seconds(_ key: String, _ v: JSON) throws -> Double {
        guard let s = v.doubleValue, s > 0, s <= 31_536_000 else {
            throw EmulatorError.invalidArgument("firestore.\(key) must be a number of seconds in (0, 31536000]")
        }
        return s
    }

    /// A count option, in [1, max].
    private static func count(_ key: String, _ v: JSON, max: Int64) throws -> Int {
        guard let n = v.intValue, n >= 1, n <= max else {
            throw EmulatorError.invalidArgument("firestore.\(key) must be an integer in [1, \(max)]")
        }
        return Int(n)
    }
}

/// How a read picks its data.
public enum ReadConsistency: Sendable, Equatable {
    /// The latest committed data.
    case latest
    /// Inside an open transaction (id bytes).
    case transaction([UInt8])
    /// Start a transaction and read in it.
    case newTransaction(readOnly: Bool, readTime: Timestamp?)
    /// A snapshot at a past time.
    case readTime(Timestamp)

    /// True when the read begins a transaction, which its database must keep.
    var beginsTransaction: Bool {
        if case .newTransaction = self { return true }
        return false
    }
}
