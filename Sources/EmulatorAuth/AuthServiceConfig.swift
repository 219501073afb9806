import EmulatorCore

/// The `auth` section of the emulator configuration.
public struct AuthServiceConfig: Sendable, Equatable {
    /// Accept unsigned (`alg: none`) ID tokens, as test tooling mints them. Default true.
    public var acceptUnsignedTokens = true
    /// Sign ID tokens and session cookies with RS256 (keys at the JWKS and x509 URLs) for
    /// production-like verification. Off by default: tokens are unsigned (`alg: none`) like
    /// Firebase's emulator mints them, because the Node Admin SDK in emulator mode accepts only
    /// `alg: none` (Python and Go skip the signature and accept either).
    public var signIdTokens = false
    /// PBKDF2-HMAC-SHA256 iterations for passwords set through the emulator. Cheap by default so
    /// thousands of sign-ins per second stay possible; raise it (e.g. 600000) for production strength.
    public var passwordHashCost = 64
    /// When set, anonymous users whose last sign-in is older than this are purged automatically.
    public var anonymousTtlSeconds: Int64?
    /// Service-account key files (JSON, as the Google Cloud console downloads them) whose RS256
    /// custom tokens are accepted when unsigned tokens are refused; paths as given (the
    /// configuration loader makes them absolute). Read by the wiring, not here (no file I/O).
    public var serviceAccounts: [String] = []

    /// The defaults.
    public init() {}

    /// Decodes `{acceptUnsignedTokens, signIdTokens, passwordHashCost, anonymousTtlSeconds, serviceAccounts}`; wrong types are
    /// reported by name rather than ignored.
    public init(json: JSON) throws {
        guard case .object(let o) = json else { throw EmulatorError.invalidArgument("auth config must be an object.") }
        if let v = o["acceptUnsignedTokens"] {
            guard let b = v.boolValue else { throw EmulatorError.invalidArgument("auth.acceptUnsignedTokens must be a boolean.") }
            acceptUnsignedTokens = b
        }
        if let v = o["signIdTokens"] {
            guard let b = v.boolValue else { throw EmulatorError.invalidArgument("auth.signIdTokens must be a boolean.") }
            signIdTokens = b
        }
        if !signIdTokens && !acceptUnsignedTokens {
            throw EmulatorError.invalidArgument(
                "auth.acceptUnsignedTokens=false needs auth.signIdTokens=true: the emulator's own ID tokens are unsigned unless it signs them.")
        }
        if let v = o["passwordHashCost"] {
            guard let i = v.intValue, i >= 1, i <= 10_000_000 else {
                throw EmulatorError.invalidArgument("auth.passwordHashCost must be an integer between 1 and 10000000.")
            }
            passwordHashCost = Int(i)
        }
        if let v = o["serviceAccounts"], !v.isNull {
            guard case .array(let items) = v, let paths = Optional(items.compactMap(\.stringValue)), paths.count == items.count else {
                throw EmulatorError.invalidArgument("auth.serviceAccounts must be an array of file paths.")
            }
            serviceAccounts = paths
        }
        if let v = o["anonymousTtlSeconds"], !v.isNull {
            guard let i = v.intValue, (1...1_000_000_000_000).contains(i) else {
                throw EmulatorError.invalidArgument("auth.anonymousTtlSeconds must be an integer between 1 and 1000000000000.")
            }
            anonymousTtlSeconds = i
        }
    }
}
