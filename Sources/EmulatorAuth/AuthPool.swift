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
    /// Unused OOB codes by code, in issue order.
    private(set) var oob = IssuedCodes<OobCode>()
    /// Unused SMS codes by session, in issue order.
    private(set) var sms = IssuedCodes<SmsCode>()
    /// OOB codes by code.
    public var oobCodes: [String: OobCode] { oob.byKey }
    /// Codes in the order they were issued.
    public var oobOrder: [String] { oob.order }
    /// SMS codes by session.
    public var smsCodes: [String: SmsCode] { sms.byKey }
    /// Sessions in issue order.
    public var smsOrder: [String] { sms.order }
    /// Refresh tokens.
    public private(set) var refreshTokens: [String: RefreshRecord] = [:]
    /// Refresh tokens by uid (derived from `refreshTokens`): deleting a user scanned every token
    /// of the pool, and the per-user cap needs the user's own.
    private(set) var refreshByUser: [String: Set<String>] = [:]
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
        changes.noteUser(user.localId, prior: users[user.localId])
        if let old = users[user.localId] { unindex(old) }
        users[user.localId] = user
        index(user)
    }

    /// Points the email, phone and federated indexes at `user`.
    mutating func index(_ user: AuthUser) {
        if let e = user.email { byEmail[e.lowercased()] = user.localId }
        if let p = user.phoneNumber { byPhone[p] = user.localId }
        for p in user.providers where p.providerId != "password" && p.providerId != "phone" {
            byFederated[Self.federatedKey(p.providerId, p.rawId)] = user.localId
        }
    }

    /// Removes the user and its index entries, refresh tokens and MFA sessions.
    @discardableResult
    public mutating func remove(_ uid: String) -> AuthUser? {
        guard let old = users[uid] else { return nil }
        changes.noteUser(uid, prior: old)
        users[uid] = nil
        unindex(old)
        for t in refreshByUser[uid] ?? [] { setRefresh(t, nil) }
        for (id, s) in mfaSessions where s.localId == uid { setMfaSession(id, nil) }
        return old
    }

    /// Removes every user (codes stay, as in Firebase's emulator).
    public mutating func removeAllUsers() {
        if changes.priorPool == nil {
            var before = self
            before.rollBack()
            changes.priorPool = AuthPoolBox(before)
        }
        users = [:]
        byEmail = [:]
        byPhone = [:]
        byFederated = [:]
        refreshTokens = [:]
        refreshByUser = [:]
        mfaSessions = [:]
        changes.all = true
    }

    /// The most refresh tokens one user keeps. Every sign-in issues one and nothing else ends
    /// them, so a client signing in over and over grew the pool for ever; past this the oldest
    /// (by issue time) is revoked. Far above the devices a test signs one user in on.
    public static let maxRefreshTokensPerUser = 100

    /// Stores or (with nil) drops a refresh token; beyond `maxRefreshTokensPerUser` the user's
    /// oldest other token goes.
    public mutating func setRefresh(_ token: String, _ record: RefreshRecord?) {
        if changes.priorRefresh[token] == nil { changes.priorRefresh[token] = Prior(refreshTokens[token]) }
        placeRefresh(token, record)
        changes.refresh.insert(token)
        guard let uid = record?.localId, let mine = refreshByUser[uid], mine.count > Self.maxRefreshTokensPerUser else { return }
        let oldest = mine.filter { $0 != token }.min { a, b in
            (refreshTokens[a]?.issuedAt ?? 0, a) < (refreshTokens[b]?.issuedAt ?? 0, b)
        }
        if let oldest { setRefresh(oldest, nil) }
    }

    /// Puts a token in place, keeping `refreshByUser` in step (no change is recorded).
    private mutating func placeRefresh(_ token: String, _ record: RefreshRecord?) {
        if let old = refreshTokens[token]?.localId {
            refreshByUser[old]?.remove(token)
            if refreshByUser[old]?.isEmpty == true { refreshByUser[old] = nil }
        }
        refreshTokens[token] = record
        if let uid = record?.localId { refreshByUser[uid, default: []].insert(token) }
    }

    /// The most unconsumed codes of each kind (OOB, SMS) one pool keeps. Past it the oldest is
    /// dropped: a client minting codes it never uses grew the pool without bound, and listing
    /// them answered every one. Far above what a test run leaves unconsumed.
    public static let maxCodes = 10_000

    /// Stores or (with nil) drops an SMS code; beyond `maxCodes` the oldest goes.
    public mutating func setSms(_ session: String, _ code: SmsCode?) {
        sms.set(session, code, limit: Self.maxCodes, noting: &changes.sms)
    }

    /// Stores or (with nil) drops an MFA session.
    public mutating func setMfaSession(_ id: String, _ session: MfaSession?) {
        if changes.priorMfa[id] == nil { changes.priorMfa[id] = Prior(mfaSessions[id]) }
        mfaSessions[id] = session
        changes.mfa.insert(id)
    }

    mutating func unindex(_ u: AuthUser) {
        if let e = u.email, byEmail[e.lowercased()] == u.localId { byEmail[e.lowercased()] = nil }
        if let p = u.phoneNumber, byPhone[p] == u.localId { byPhone[p] = nil }
        for p in u.providers {
            let k = Self.federatedKey(p.providerId, p.rawId)
            if byFederated[k] == u.localId { byFederated[k] = nil }
        }
    }

    /// Records an OOB code; beyond `maxCodes` the oldest goes.
    public mutating func addOob(_ c: OobCode) {
        oob.set(c.code, c, limit: Self.maxCodes, noting: &changes.oob)
    }

    /// Consumes an OOB code.
    public mutating func takeOob(_ code: String) -> OobCode? {
        guard let c = oob.byKey[code] else { return nil }
        oob.set(code, nil, limit: Self.maxCodes, noting: &changes.oob)
        return c
    }
}

/// Keys touched since the last journal entry, and what they held before (for `rollBack`, when the
/// journal refuses the write). Excluded from equality: it is bookkeeping.
struct AuthChangeSet: Sendable, Equatable {
    /// Touched uids.
    var users: Set<String> = []
    /// Touched refresh tokens.
    var refresh: Set<String> = []
    /// Touched OOB codes, their first-touch values and the issue order before.
    var oob = CodeChanges<OobCode>()
    /// Touched SMS sessions, their first-touch values and the issue order before.
    var sms = CodeChanges<SmsCode>()
    /// Touched MFA sessions.
    var mfa: Set<String> = []
    /// Every user went at once (journal the whole pool).
    var all = false
    /// First-touch values of the touched keys (`nil` inside: the key was absent).
    var priorUsers: [String: Prior<AuthUser>] = [:]
    /// First-touch refresh tokens.
    var priorRefresh: [String: Prior<RefreshRecord>] = [:]
    /// First-touch MFA sessions.
    var priorMfa: [String: Prior<MfaSession>] = [:]
    /// The whole pool as it was before the write, once a wholesale change (`removeAllUsers`) made
    /// per-key records pointless.
    var priorPool: AuthPoolBox?

    /// Records a touched user and, the first time, what it was.
    mutating func noteUser(_ uid: String, prior: AuthUser?) {
        users.insert(uid)
        if priorUsers[uid] == nil { priorUsers[uid] = Prior(prior) }
    }

    /// Nothing changed.
    var isEmpty: Bool { users.isEmpty && refresh.isEmpty && oob.isEmpty && sms.isEmpty && mfa.isEmpty && !all }

    /// Always equal: change tracking must not affect state equality.
    static func == (a: AuthChangeSet, b: AuthChangeSet) -> Bool { true }
}

extension AuthPool {
    /// Undoes every change since the journal last looked, from the first-touch values the mutators
    /// recorded, so a write the journal refused leaves the pool exactly as it was. Costs what the
    /// write touched (a copy of the pool up front would cost every user on every write).
    mutating func rollBack() {
        let c = changes
        changes = AuthChangeSet()
        if let whole = c.priorPool {
            self = whole.pool
            changes = AuthChangeSet()
            return
        }
        // Unindex every touched user before re-indexing any, so a value that moved between two of
        // them (an email changing hands) ends up with its original owner.
        for uid in c.priorUsers.keys { if let current = users[uid] { unindex(current) } }
        for (uid, prior) in c.priorUsers {
            users[uid] = prior.value
            if let u = prior.value { index(u) }
        }
        for (k, p) in c.priorRefresh { placeRefresh(k, p.value) }
        oob.undo(c.oob)
        sms.undo(c.sms)
        for (k, p) in c.priorMfa { mfaSessions[k] = p.value }
    }
}

/// What a key held before the write that touched it (`value == nil`: it was absent).
struct Prior<T: Sendable>: Sendable {
    /// The earlier value.
    var value: T?

    /// Wraps an earlier value.
    init(_ value: T?) { self.value = value }
}

/// A pool kept aside whole (a class, so a pool can hold its own earlier version).
final class AuthPoolBox: Sendable {
    /// The pool.
    let pool: AuthPool

    /// Keeps `pool`.
    init(_ pool: AuthPool) { self.pool = pool }
}
