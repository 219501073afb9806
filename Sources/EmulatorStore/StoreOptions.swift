import EmulatorCore

/// Options from the config file's `firestore` section.
public struct StoreOptions: Sendable, Equatable {
    /// Idle read-write transactions expire after this many seconds of emulator time.
    public var transactionIdleSeconds: Double = 60

    /// Defaults.
    public init() {}

    /// Decodes `{"transactionIdleSeconds": 60}`; unknown keys are errors.
    public init(json: JSON) throws {
        guard case .object(let o) = json else { throw EmulatorError.invalidArgument("'firestore' must be an object") }
        for (k, v) in o {
            switch k {
            case "transactionIdleSeconds":
                // A year at most: a value of 1e300 once trapped converting the expiry to a time.
                guard let s = v.doubleValue, s > 0, s <= 31_536_000 else {
                    throw EmulatorError.invalidArgument("firestore.transactionIdleSeconds must be a number of seconds in (0, 31536000]")
                }
                transactionIdleSeconds = s
            default:
                throw EmulatorError.invalidArgument("unknown key 'firestore.\(k)' (known: transactionIdleSeconds)")
            }
        }
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
}
