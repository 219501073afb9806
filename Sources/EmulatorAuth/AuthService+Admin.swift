import EmulatorCore

extension AuthService {
    /// Admin `createUser` (`accounts:signUp` or `projects/{p}/accounts` with `Bearer owner`):
    /// no tokens, no blocking hooks; the created-user event fires.
    func adminCreate(_ sc: AuthScope, _ b: Body) async throws -> JSON {
        let e = env(sc.projectId)
        let now = e.clock.now()
        let uid = b.nonEmpty("localId") ?? e.ids.uid()
        guard uid.count <= 128 else { throw EmulatorError.authBadRequest("INVALID_LOCAL_ID") }
        var u = newUser(sc, uid: uid)
        if let raw = b.string("email") { u.email = try AuthValidation.email(raw) }
        if let p = b.string("password") {
            try AuthValidation.password(p)
            u.password = try hashPassword(p, ids: e.ids)
        }
        u.displayName = b.nonEmpty("displayName")
        u.photoUrl = b.nonEmpty("photoUrl")
        u.emailVerified = b.bool("emailVerified") ?? false
        u.disabled = b.bool("disabled") ?? false
        if let p = b.nonEmpty("phoneNumber") {
            try AuthValidation.phone(p)
            u.phoneNumber = p
            u.upsertProvider(ProviderUserInfo(providerId: "phone", rawId: p, phoneNumber: p))
        }
        if let email = u.email, u.password != nil {
            u.upsertProvider(ProviderUserInfo(providerId: "password", rawId: email, email: email, displayName: u.displayName, photoUrl: u.photoUrl))
        }
        if let mfa = b.o["mfaInfo"], !mfa.isNull {
            // Admin create: server-assigned ids and times, phone factors only, duplicates dropped.
            guard let rows = mfa.arrayValue else { throw EmulatorError.authBadRequest("INVALID_ARGUMENT : mfaInfo must be a list") }
            let stripped: [JSON] = rows.map { r in
                guard case .object(var o) = r else { return r }
                o["mfaEnrollmentId"] = .string(e.ids.uid())
                o["enrolledAt"] = nil
                return .object(o)
            }
            var seen: Set<String> = []
            u.mfaInfo = try adminEnrollments(["enrollments": .array(stripped)], existing: [], now: now, ids: e.ids).filter { f in
                f.phoneNumber.map { seen.insert($0).inserted } ?? true
            }
        }
        let created = u
        try write(sc) { st in
            if st.user(uid) != nil { throw EmulatorError.authBadRequest("DUPLICATE_LOCAL_ID") }
            if let em = created.email, st.user(email: em) != nil { throw EmulatorError.authBadRequest("EMAIL_EXISTS") }
            if let p = created.phoneNumber, st.user(phone: p) != nil { throw EmulatorError.authBadRequest("PHONE_NUMBER_EXISTS") }
            st.put(created)
        }
        await hooks.userCreated(projectId: sc.projectId, user: created)
        var o: UTF8Dictionary<JSON> = ["kind": "identitytoolkit#SignupNewUserResponse", "localId": .string(uid)]
        if let em = created.email { o["email"] = .string(em) }
        if let n = created.displayName { o["displayName"] = .string(n) }
        return .object(o)
    }

    /// `accounts:lookup`: the `idToken`'s user, or (privileged) users by `localId`, `email`,
    /// `phoneNumber` and `federatedUserId` (`[{providerId, rawId}]`).
    public func lookup(projectId: String, tenantId: String? = nil, body raw: UTF8Dictionary<JSON>, privileged: Bool) throws -> JSON {
        let b = Body(raw)
        let sc = try scope(projectId, tenantId, b)
        _ = try policy(sc)
        var users: [AuthUser] = []
        if let token = b.string("idToken") {
            users = [try userFromIDToken(sc, token: token).1]
        } else if privileged {
            users = read(sc) { st in
                var out: [AuthUser] = []
                var seen: Set<String> = []
                let found =
                    b.strings("localId").compactMap { st.user($0) } + b.strings("email").compactMap { st.user(email: $0) }
                    + b.strings("phoneNumber").compactMap { st.user(phone: $0) }
                    + (raw["federatedUserId"]?.arrayValue ?? []).compactMap { f in
                        f["providerId"]?.stringValue.flatMap { p in f["rawId"]?.stringValue.flatMap { st.user(providerId: p, rawId: $0) } }
                    }
                for u in found where seen.insert(u.localId).inserted { out.append(u) }
                return out
            }
        } else {
            throw EmulatorError.authBadRequest("MISSING_ID_TOKEN")
        }
        var o: UTF8Dictionary<JSON> = ["kind": "identitytoolkit#GetAccountInfoResponse"]
        if !users.isEmpty { o["users"] = .array(users.map(\.json)) }
        return .object(o)
    }

    /// `accounts:delete`: the `idToken`'s user, or (privileged) `localId`.
    public func deleteAccount(projectId: String, tenantId: String? = nil, body raw: UTF8Dictionary<JSON>, privileged: Bool) async throws -> JSON {
        let b = Body(raw)
        let sc = try scope(projectId, tenantId, b)
        let pol = try policy(sc)
        let uid: String
        if privileged, let id = b.nonEmpty("localId") {
            uid = id
        } else if let token = b.string("idToken") {
            if pol.disableDeletion { throw EmulatorError.authBadRequest("ADMIN_ONLY_OPERATION") }
            uid = try userFromIDToken(sc, token: token).1.localId
        } else {
            throw EmulatorError.authBadRequest(privileged ? "MISSING_LOCAL_ID" : "MISSING_ID_TOKEN")
        }
        try await deleteUser(projectId: projectId, tenantId: sc.tenantId, uid: uid)
        return ["kind": "identitytoolkit#DeleteAccountResponse"]
    }

    /// Deletes a user (admin); fires the deleted event. `USER_NOT_FOUND` when absent.
    public func deleteUser(projectId: String, tenantId: String? = nil, uid: String) async throws {
        guard let old = try write(AuthScope(projectId, tenant: tenantId), { $0.remove(uid) }) else {
            throw EmulatorError.authBadRequest("USER_NOT_FOUND")
        }
        await hooks.userDeleted(projectId: projectId, user: old)
    }

    /// The user with `uid` (admin).
    public func getUser(projectId: String, tenantId: String? = nil, uid: String) throws -> AuthUser {
        guard let u = read(AuthScope(projectId, tenant: tenantId), { $0.user(uid) }) else { throw EmulatorError.authBadRequest("USER_NOT_FOUND") }
        return u
    }

    /// Replaces a user's custom claims (admin); nil clears them.
    public func setCustomClaims(projectId: String, tenantId: String? = nil, uid: String, claims: UTF8Dictionary<JSON>?) throws {
        let text = claims.map { JSON.object($0).serialized() }
        if let text { _ = try Self.validateClaims(text) }
        try write(AuthScope(projectId, tenant: tenantId)) { st in
            guard var u = st.user(uid) else { throw EmulatorError.authBadRequest("USER_NOT_FOUND") }
            u.customAttributes = text
            st.put(u)
        }
    }

    /// `accounts:batchGet`: users sorted by uid, paged by `nextPageToken` (= last uid); `maxResults` -1 = all.
    public func batchGet(projectId: String, tenantId: String? = nil, maxResults: Int?, pageToken: String?) throws -> JSON {
        let sc = try scope(projectId, tenantId, Body([:]))
        _ = try policy(sc)
        let limit = maxResults ?? 20
        guard limit == -1 || (0...1000).contains(limit) else {
            throw EmulatorError.authBadRequest("INVALID_ARGUMENT : maxResults must be between 0 and 1000")
        }
        let all = read(sc) { st in st.users.keys.sorted().filter { id in pageToken.map { id > $0 } ?? true }.compactMap { st.user($0) } }
        let page = limit == -1 ? all : Array(all.prefix(limit))
        var o: UTF8Dictionary<JSON> = ["kind": "identitytoolkit#DownloadAccountResponse"]
        if !page.isEmpty { o["users"] = .array(page.map(\.json)) }
        if limit != -1, all.count > page.count, let last = page.last { o["nextPageToken"] = .string(last.localId) }
        return .object(o)
    }

    /// `accounts:batchDelete`: deletes `localIds`; enabled users need `force`.
    public func batchDelete(projectId: String, tenantId: String? = nil, body raw: UTF8Dictionary<JSON>) async throws -> JSON {
        let b = Body(raw)
        let sc = try scope(projectId, tenantId, b)
        _ = try policy(sc)
        let ids = b.strings("localIds")
        guard !ids.isEmpty, ids.count <= 1000 else { throw EmulatorError.authBadRequest("LOCAL_ID_LIST_EXCEEDS_LIMIT") }
        let force = b.bool("force") ?? false
        var errors: [JSON] = []
        var deleted: [AuthUser] = []
        try write(sc) { st in
            for (i, id) in ids.enumerated() {
                guard let u = st.user(id) else { continue }
                if !u.disabled && !force {
                    errors.append([
                        "index": .int(Int64(i)), "localId": .string(id), "message": "NOT_DISABLED : Disable the account before batch deletion.",
                    ])
                    continue
                }
                st.remove(id)
                deleted.append(u)
            }
        }
        for u in deleted { await hooks.userDeleted(projectId: projectId, user: u) }
        return errors.isEmpty ? [:] : ["errors": .array(errors)]
    }

    /// `accounts:query`: all users (no expressions), or only the count when `returnUserInfo` is false.
    public func queryAccounts(projectId: String, tenantId: String? = nil, body raw: UTF8Dictionary<JSON>) throws -> JSON {
        let b = Body(raw)
        let sc = try scope(projectId, tenantId, b)
        _ = try policy(sc)
        if raw["expression"] != nil { throw EmulatorError(.unimplemented, "((Auth Emulator does not support query expressions.))") }
        let users = read(sc) { st in st.users.keys.sorted().compactMap { st.user($0) } }
        if b.bool("returnUserInfo") == false { return ["recordsCount": .string(String(users.count))] }
        return ["recordsCount": .string(String(users.count)), "userInfo": .array(users.map(\.json))]
    }

    /// `DELETE /emulator/v1/projects/{p}[/tenants/{t}]/accounts`: every user of the pool goes;
    /// codes, config and other pools stay.
    public func deleteAllAccounts(projectId: String, tenantId: String? = nil) throws {
        if let t = tenantId, readProject(projectId, { $0.tenants[t] == nil }) { throw Self.tenantNotFound(t) }
        try write(AuthScope(projectId, tenant: tenantId)) { $0.removeAllUsers() }
    }

    /// `POST /emulator/v1/projects/{p}/accounts:purgeAnonymous`: deletes anonymous users whose last
    /// sign-in (or creation) is at least `olderThanSeconds` ago; returns their uids, sorted.
    public func purgeAnonymous(projectId: String, tenantId: String? = nil, olderThanSeconds: Int64) async throws -> [String] {
        guard (0...1_000_000_000_000).contains(olderThanSeconds) else {
            throw EmulatorError.invalidArgument("olderThanSeconds must be an integer between 0 and 1000000000000.")
        }
        let cutoff = now(projectId).milliseconds - olderThanSeconds * 1000
        let removed = try write(AuthScope(projectId, tenant: tenantId)) { st -> [AuthUser] in
            let victims = st.users.values.filter { $0.isAnonymous && ($0.lastLoginAt ?? $0.createdAt) <= cutoff }
            for v in victims { st.remove(v.localId) }
            return victims.sorted { $0.localId < $1.localId }
        }
        for u in removed { await hooks.userDeleted(projectId: projectId, user: u) }
        return removed.map(\.localId)
    }

    /// Applies `auth.anonymousTtlSeconds`, if configured, to the project's users, and to tenants
    /// with `autodeleteAnonymousUsers` (their TTL: `auth.anonymousTtlSeconds`, else production's
    /// 30 days). Called on sign-up paths and by a timer.
    public func purgeExpiredAnonymous(projectId: String) async {
        if let ttl = config.anonymousTtlSeconds { _ = try? await purgeAnonymous(projectId: projectId, olderThanSeconds: ttl) }
        let autodelete = readProject(projectId) { st in st.tenants.filter { $0.value.config.autodeleteAnonymousUsers }.keys.sorted() }
        for t in autodelete {
            _ = try? await purgeAnonymous(projectId: projectId, tenantId: t, olderThanSeconds: config.anonymousTtlSeconds ?? Self.tenantAnonymousTtl)
        }
    }

    /// Production deletes anonymous users of an `autodeleteAnonymousUsers` tenant after 30 days.
    static let tenantAnonymousTtl: Int64 = 30 * 86_400

    /// The project's config.
    public func getConfig(projectId: String) -> JSON { readProject(projectId) { $0.config.json } }

    /// Applies a partial config and returns the result.
    public func updateConfig(projectId: String, patch: UTF8Dictionary<JSON>) throws -> JSON {
        try writeProject(projectId) { st in
            // Patch a copy so a bad patch changes nothing.
            var c = st.config
            try c.apply(patch)
            st.config = c
            return st.config.json
        }
    }
}

extension AuthService {
    /// Sign-in methods for `email` (`createAuthUri`); empty under email-enumeration protection.
    public func signInMethods(projectId: String, tenantId: String? = nil, email: String) throws -> [String] {
        let e = try AuthValidation.email(email)
        let sc = AuthScope(projectId, tenant: tenantId)
        let pol = try policy(sc)
        return read(sc) { st in
            guard !pol.improvedEmailPrivacy, let u = st.user(email: e) else { return [] }
            var m: [String] = []
            if u.password != nil { m.append("password") }
            if u.emailLinkSignin { m.append("emailLink") }
            m += u.providers.map(\.providerId).filter { $0 != "password" && $0 != "phone" }
            return m
        }
    }
}

extension AuthService {
    /// Admin `createUser` for in-process callers (the functions admin context): `properties` uses
    /// the REST field names (`localId`, `email`, `password`, `displayName`, `phoneNumber`, ...).
    public func createUser(projectId: String, tenantId: String? = nil, properties: UTF8Dictionary<JSON>) async throws -> AuthUser {
        let sc = AuthScope(projectId, tenant: tenantId)
        _ = try policy(sc)
        let r = try await adminCreate(sc, Body(properties))
        return try getUser(projectId: projectId, tenantId: tenantId, uid: r["localId"]?.stringValue ?? "")
    }

    /// Admin `updateUser` for in-process callers: REST field names (`email`, `password`,
    /// `displayName`, `disableUser`, `emailVerified`, `customAttributes`, `validSince`, ...).
    public func updateUser(projectId: String, tenantId: String? = nil, uid: String, properties: UTF8Dictionary<JSON>) async throws -> AuthUser {
        var p = properties
        p["localId"] = .string(uid)
        _ = try await update(projectId: projectId, tenantId: tenantId, body: p, privileged: true)
        return try getUser(projectId: projectId, tenantId: tenantId, uid: uid)
    }
}
