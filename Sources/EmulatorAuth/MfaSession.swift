import EmulatorCore

/// Server-side MFA state a client holds a handle to: a first-factor sign-in waiting for its
/// second factor (handle: `mfaPendingCredential`), or a TOTP enrolment waiting for its first code
/// (handle: `sessionInfo`, holding the shared secret).
public struct MfaSession: Sendable, Equatable {
    /// What the session is.
    public enum Kind: String, Sendable {
        /// First factor done, second factor pending.
        case signIn
        /// TOTP secret issued, enrolment not finalized.
        case totpEnrollment
    }

    /// Sessions and pending credentials expire ten minutes after issue (project clock).
    public static let lifetimeSeconds: Int64 = 600

    /// The handle (pending credential or TOTP `sessionInfo`).
    public var id: String
    /// What it is.
    public var kind: Kind
    /// The user.
    public var localId: String
    /// First factor's `sign_in_provider` (sign-in).
    public var provider: String?
    /// First factor's sign-in method as blocking functions see it (sign-in).
    public var method: String?
    /// The shared secret (TOTP enrolment).
    public var secret: [UInt8]?
    /// Issue time (project clock, seconds).
    public var issuedAt: Int64

    /// A session.
    public init(id: String, kind: Kind, localId: String, provider: String? = nil, method: String? = nil, secret: [UInt8]? = nil, issuedAt: Int64) {
        self.id = id
        self.kind = kind
        self.localId = localId
        self.provider = provider
        self.method = method
        self.secret = secret
        self.issuedAt = issuedAt
    }

    /// True when expired at `now`.
    public func isExpired(at now: Timestamp) -> Bool { now.seconds - issuedAt > Self.lifetimeSeconds }
}
