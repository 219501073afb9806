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

/// A pending SMS verification.
public struct SmsCode: Sendable, Equatable {
    /// The opaque session handed to the client.
    public var sessionInfo: String
    /// The phone number.
    public var phoneNumber: String
    /// The six digits.
    public var code: String
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
}

/// All Auth data of one project: a value type (dictionaries only), so snapshots are O(1)
/// copies. `AuthService` guards every project's state with one `Mutex`.
public struct AuthProjectState: Sendable, Equatable {
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
    /// Project settings.
    public var config = AuthProjectConfig() { didSet { changes.config = true } }
    /// What changed since the journal last looked (persistence); not part of the data.
    var changes = AuthChangeSet()

    /// Empty state.
    public init() {}

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

    /// Inserts or replaces `user`, keeping every index in step with it.
    public mutating func put(_ user: AuthUser) {
        changes.users.insert(user.localId)
        if let old = users[user.localId] { unindex(old) }
        users[user.localId] = user
        if let e = user.email { byEmail[e.lowercased()] = user.localId }
        if let p = user.phoneNumber { byPhone[p] = user.localId }
        for p in user.providers where p.providerId != "password" && p.providerId != "phone" {
            byFederated[Self.federatedKey(p.providerId, p.rawId)] = user.localId
        }
    }

    /// Removes the user and its index entries and refresh tokens.
    @discardableResult
    public mutating func remove(_ uid: String) -> AuthUser? {
        guard let old = users.removeValue(forKey: uid) else { return nil }
        changes.users.insert(uid)
        unindex(old)
        for (t, r) in refreshTokens where r.localId == uid { setRefresh(t, nil) }
        return old
    }

    /// Removes every user (codes and config stay, as in Firebase's emulator).
    public mutating func removeAllUsers() {
        users = [:]; byEmail = [:]; byPhone = [:]; byFederated = [:]; refreshTokens = [:]
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
    /// The config changed.
    var config = false
    /// Every user went at once (journal the whole state).
    var all = false

    /// Nothing changed.
    var isEmpty: Bool { users.isEmpty && refresh.isEmpty && oob.isEmpty && sms.isEmpty && !config && !all }

    /// Always equal: change tracking must not affect state equality.
    static func == (a: AuthChangeSet, b: AuthChangeSet) -> Bool { true }
}
