import EmulatorCore

/// What a refresh token stands for. Kept server-side so revocation (`validSince`) can apply.
public struct RefreshRecord: Sendable, Equatable {
    /// The user.
    public var localId: String
    /// Sign-in provider to put in refreshed ID tokens.
    public var provider: String
    /// Extra claims (custom-token claims or session claims) carried over to refreshed tokens.
    public var extraClaims: UTF8Dictionary<JSON>
    /// Issue time (Unix seconds); revoked when older than the user's `validSince`.
    public var issuedAt: Int64
    /// The second factor of the sign-in, carried to refreshed ID tokens.
    public var secondFactor: SecondFactor?

    /// A record.
    public init(localId: String, provider: String, extraClaims: UTF8Dictionary<JSON>, issuedAt: Int64, secondFactor: SecondFactor? = nil) {
        self.localId = localId
        self.provider = provider
        self.extraClaims = extraClaims
        self.issuedAt = issuedAt
        self.secondFactor = secondFactor
    }
}

/// The second factor a sign-in completed: `firebase.sign_in_second_factor` (`phone`/`totp`)
/// and `firebase.second_factor_identifier` (the enrolment id) in ID tokens.
public struct SecondFactor: Sendable, Equatable {
    /// `phone` or `totp`.
    public var kind: String
    /// The enrolment's `mfaEnrollmentId`.
    public var enrollmentId: String

    /// A second factor.
    public init(kind: String, enrollmentId: String) {
        self.kind = kind
        self.enrollmentId = enrollmentId
    }
}
