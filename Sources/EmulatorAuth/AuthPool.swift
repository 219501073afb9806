import EmulatorCore

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
    /// Wrong SMS and TOTP codes (brute-force limits); not part of the data, never journaled.
    var attempts = AttemptLimiter()

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
