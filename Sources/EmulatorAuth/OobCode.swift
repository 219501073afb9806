import EmulatorCore

/// A pending out-of-band action code (email verification, password reset, email sign-in, ...).
public struct OobCode: Sendable, Equatable {
    /// The code.
    public var code: String
    /// `VERIFY_EMAIL`, `PASSWORD_RESET`, `EMAIL_SIGNIN`, `VERIFY_AND_CHANGE_EMAIL`.
    public var requestType: String
    /// The email the code was sent to.
    public var email: String
    /// New email for `VERIFY_AND_CHANGE_EMAIL`.
    public var newEmail: String?
    /// The account it applies to, when one existed.
    public var localId: String?
    /// The link the email would contain.
    public var oobLink: String
    /// When it was issued (project clock, seconds); 0 for codes from older journals (never expire).
    public var issuedAt: Int64 = 0

    /// How long a code of this type stays valid, as production's action links:
    /// password reset and email change 1 hour, email sign-in 6 hours, email verification 3 days.
    public var lifetimeSeconds: Int64 {
        switch requestType {
        case "VERIFY_EMAIL": return 3 * 86_400
        case "EMAIL_SIGNIN": return 6 * 3600
        default: return 3600
        }
    }

    /// True when the code has expired at `now` (project clock).
    public func isExpired(at now: Timestamp) -> Bool { issuedAt > 0 && now.seconds - issuedAt > lifetimeSeconds }
}
