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
    public init(sessionInfo: String, phoneNumber: String, code: String, issuedAt: Int64 = 0, purpose: Purpose = .signIn,
                localId: String? = nil, mfaEnrollmentId: String? = nil, mfaPendingCredential: String? = nil)
    {
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

/// What a refresh token stands for. Kept server-side so revocation (`validSince`) can apply.
public struct RefreshRecord: Sendable, Equatable {
    /// The user.
    public var localId: String
    /// Sign-in provider to put in refreshed ID tokens.
    public var provider: String
    /// Extra claims (custom-token claims or session claims) carried over to refreshed tokens.
    public var extraClaims: [String: JSON]
    /// Issue time (Unix seconds); revoked when older than the user's `validSince`.
    public var issuedAt: Int64
    /// The second factor of the sign-in, carried to refreshed ID tokens.
    public var secondFactor: SecondFactor?

    /// A record.
    public init(localId: String, provider: String, extraClaims: [String: JSON], issuedAt: Int64, secondFactor: SecondFactor? = nil) {
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

/// One user pool: users with indexes by email, phone and federated identity, OOB and SMS codes,
/// refresh tokens and MFA sessions. A value type (dictionaries only), so snapshots are O(1)
/// copies; `AuthProjectState` holds the project's pool and one per tenant, and `AuthService`
/// guards them with its `Mutex`.
public struct AuthPool: Sendable, Equatable {
    /// The tenant this pool belongs to (nil: the project's own users); stamped on every user put.
    public let tenantId: String?
    /// Users by uid.
    public private(set) var users: [String: AuthUser] = [:]
    /// uid by lower-cased email (top-level email only).
    public private(set) var byEmail: [String: String] = [:]
    /// uid by phone number.
    public private(set) var byPhone: [String: String] = [:]
    /// uid by `providerId\u{0}rawId` for federated identities.
    public private(set) var byFederated: [String: String] = [:]
    /// OOB codes by code.
    public private(set) var oobCodes: [String: OobCode] = [:]
    /// Codes in the order they were issued.
    public private(set) var oobOrder: [String] = []
    /// SMS codes by session.
    public private(set) var smsCodes: [String: SmsCode] = [:]
    /// Sessions in issue order.
    public private(set) var smsOrder: [String] = []
    /// Refresh tokens.
    public private(set) var refreshTokens: [String: RefreshRecord] = [:]
    /// MFA pending credentials and TOTP enrolment sessions by handle.
    public private(set) var mfaSessions: [String: MfaSession] = [:]
    /// What changed since the journal last looked (persistence); not part of the data.
    var changes = AuthChangeSet()

    /// An empty pool.
    public init(tenantId: String? = nil) { self.tenantId = tenantId }

    /// The `byFederated` key of a provider identity.
    static func federatedKey(_ providerId: String, _ rawId: String) -> String { providerId + "\u{0}" + rawId }

    /// The user with `uid`.
    public func user(_ uid: String) -> AuthUser? { users[uid] }
    /// The user holding `email` (case-insensitive).
    public func user(email: String) -> AuthUser? { byEmail[email.lowercased()].flatMap { users[$0] } }
    /// The user holding `phone`.
    public func user(phone: String) -> AuthUser? { byPhone[phone].flatMap { users[$0] } }
    /// The user linked to the federated identity.
    public func user(providerId: String, rawId: String) -> AuthUser? {
        byFederated[Self.federatedKey(providerId, rawId)].flatMap { users[$0] }
    }

    /// True when nothing is stored.
    var isEmpty: Bool { users.isEmpty && oobCodes.isEmpty && smsCodes.isEmpty && refreshTokens.isEmpty && mfaSessions.isEmpty }

    /// Inserts or replaces `user` (stamped with this pool's tenant), keeping every index in step.
    public mutating func put(_ user: AuthUser) {
        var user = user
        user.tenantId = tenantId
        changes.users.insert(user.localId)
        if let old = users[user.localId] { unindex(old) }
        users[user.localId] = user
        if let e = user.email { byEmail[e.lowercased()] = user.localId }
        if let p = user.phoneNumber { byPhone[p] = user.localId }
        for p in user.providers where p.providerId != "password" && p.providerId != "phone" {
            byFederated[Self.federatedKey(p.providerId, p.rawId)] = user.localId
        }
    }

    /// Removes the user and its index entries, refresh tokens and MFA sessions.
    @discardableResult
    public mutating func remove(_ uid: String) -> AuthUser? {
        guard let old = users.removeValue(forKey: uid) else { return nil }
        changes.users.insert(uid)
        unindex(old)
        for (t, r) in refreshTokens where r.localId == uid { setRefresh(t, nil) }
        for (id, s) in mfaSessions where s.localId == uid { setMfaSession(id, nil) }
        return old
    }

    /// Removes every user (codes stay, as in Firebase's emulator).
    public mutating func removeAllUsers() {
        users = [:]; byEmail = [:]; byPhone = [:]; byFederated = [:]; refreshTokens = [:]; mfaSessions = [:]
        changes.all = true
    }

    /// Stores or (with nil) drops a refresh token.
    public mutating func setRefresh(_ token: String, _ record: RefreshRecord?) {
        refreshTokens[token] = record
        changes.refresh.insert(token)
    }

    /// Stores or (with nil) drops an SMS code.
    public mutating func setSms(_ session: String, _ code: SmsCode?) {
        smsCodes[session] = code
        if code == nil { smsOrder.removeAll { $0 == session } } else if !smsOrder.contains(session) { smsOrder.append(session) }
        changes.sms.insert(session)
    }

    /// Stores or (with nil) drops an MFA session.
    public mutating func setMfaSession(_ id: String, _ session: MfaSession?) {
        mfaSessions[id] = session
        changes.mfa.insert(id)
    }

    private mutating func unindex(_ u: AuthUser) {
        if let e = u.email, byEmail[e.lowercased()] == u.localId { byEmail[e.lowercased()] = nil }
        if let p = u.phoneNumber, byPhone[p] == u.localId { byPhone[p] = nil }
        for p in u.providers {
            let k = Self.federatedKey(p.providerId, p.rawId)
            if byFederated[k] == u.localId { byFederated[k] = nil }
        }
    }

    /// Records an OOB code.
    public mutating func addOob(_ c: OobCode) {
        oobCodes[c.code] = c
        oobOrder.append(c.code)
        changes.oob.insert(c.code)
    }

    /// Consumes an OOB code.
    public mutating func takeOob(_ code: String) -> OobCode? {
        guard let c = oobCodes.removeValue(forKey: code) else { return nil }
        oobOrder.removeAll { $0 == code }
        changes.oob.insert(code)
        return c
    }
}

/// Keys touched since the last journal entry. Excluded from equality: it is bookkeeping.
struct AuthChangeSet: Sendable, Equatable {
    /// Touched uids.
    var users: Set<String> = []
    /// Touched refresh tokens.
    var refresh: Set<String> = []
    /// Touched OOB codes.
    var oob: Set<String> = []
    /// Touched SMS sessions.
    var sms: Set<String> = []
    /// Touched MFA sessions.
    var mfa: Set<String> = []
    /// Every user went at once (journal the whole pool).
    var all = false

    /// Nothing changed.
    var isEmpty: Bool { users.isEmpty && refresh.isEmpty && oob.isEmpty && sms.isEmpty && mfa.isEmpty && !all }

    /// Always equal: change tracking must not affect state equality.
    static func == (a: AuthChangeSet, b: AuthChangeSet) -> Bool { true }
}
