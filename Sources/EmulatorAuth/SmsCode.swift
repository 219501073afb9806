import EmulatorCore

/// A pending SMS verification: a phone sign-in, an MFA enrolment or an MFA sign-in.
public struct SmsCode: Sendable, Equatable {
    /// What an SMS code was sent for.
    public enum Purpose: String, Sendable {
        /// Phone first-factor sign-in (`sendVerificationCode`); also what older iOS SDKs use for
        /// MFA in emulator mode (then the number may be masked).
        case signIn
        /// `mfaEnrollment:start` (phone).
        case mfaEnrollment
        /// `mfaSignIn:start` (phone).
        case mfaSignIn
    }

    /// How long an SMS code is valid (project clock): ten minutes, then `SESSION_EXPIRED`.
    public static let lifetimeSeconds: Int64 = 600

    /// The opaque session handed to the client.
    public var sessionInfo: String
    /// The phone number (for older iOS MFA sign-ins, the masked hint number).
    public var phoneNumber: String
    /// The six digits.
    public var code: String
    /// When it was sent (project clock, seconds); 0 for codes from older journals (never expire).
    public var issuedAt: Int64 = 0
    /// What it was sent for.
    public var purpose: Purpose = .signIn
    /// The user an MFA code belongs to.
    public var localId: String?
    /// The enrolment an `mfaSignIn` code proves.
    public var mfaEnrollmentId: String?
    /// The pending credential an `mfaSignIn` code was started with.
    public var mfaPendingCredential: String?

    /// A code.
    public init(
        sessionInfo: String, phoneNumber: String, code: String, issuedAt: Int64 = 0, purpose: Purpose = .signIn,
        localId: String? = nil, mfaEnrollmentId: String? = nil, mfaPendingCredential: String? = nil
    ) {
        self.sessionInfo = sessionInfo
        self.phoneNumber = phoneNumber
        self.code = code
        self.issuedAt = issuedAt
        self.purpose = purpose
        self.localId = localId
        self.mfaEnrollmentId = mfaEnrollmentId
        self.mfaPendingCredential = mfaPendingCredential
    }

    /// True when the code has expired at `now` (project clock).
    public func isExpired(at now: Timestamp) -> Bool { issuedAt > 0 && now.seconds - issuedAt > Self.lifetimeSeconds }
}
