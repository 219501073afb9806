import EmulatorCore

extension AuthService {
    /// ID tokens live one hour, as in Firebase.
    static let tokenLifetime: Int64 = 3600

    /// The claims of an ID token for `user` signed in with `provider` (and `secondFactor`).
    func idTokenClaims(
        projectId: String, user: AuthUser, provider: String, extra: UTF8Dictionary<JSON>, secondFactor: SecondFactor? = nil,
        now: Timestamp
    ) -> UTF8Dictionary<JSON> {
        var c: UTF8Dictionary<JSON> = [:]
        if let n = user.displayName { c["name"] = .string(n) }
        if let p = user.photoUrl { c["picture"] = .string(p) }
        for (k, v) in user.customClaims { c[k] = v }
        for (k, v) in extra { c[k] = v }
        let iat = now.seconds
        c["iss"] = .string("https://securetoken.google.com/\(projectId)")
        c["aud"] = .string(projectId)
        c["sub"] = .string(user.localId)
        c["user_id"] = .string(user.localId)
        c["iat"] = .int(iat)
        c["exp"] = .int(iat + Self.tokenLifetime)
        c["auth_time"] = .int((user.lastLoginAt ?? now.milliseconds) / 1000)
        if let e = user.email {
            c["email"] = .string(e)
            c["email_verified"] = .bool(user.emailVerified)
        }
        if let p = user.phoneNumber { c["phone_number"] = .string(p) }
        if provider == "anonymous" { c["provider_id"] = "anonymous" }
        var identities: UTF8Dictionary<JSON> = [:]
        if let e = user.email { identities["email"] = [.string(e)] }
        for p in user.providers where p.providerId != "password" {
            var list = identities[p.providerId]?.arrayValue ?? []
            list.append(.string(p.rawId))
            identities[p.providerId] = .array(list)
        }
        var firebase: UTF8Dictionary<JSON> = ["identities": .object(identities), "sign_in_provider": .string(provider)]
        if let t = user.tenantId { firebase["tenant"] = .string(t) }
        if let f = secondFactor {
            firebase["sign_in_second_factor"] = .string(f.kind)
            firebase["second_factor_identifier"] = .string(f.enrollmentId)
        }
        c["firebase"] = .object(firebase)
        return c
    }

    /// A new refresh token: 64 random characters, then `.tenantId` in tenant pools (the token
    /// endpoint has no tenant field, so the token says which pool holds it).
    func newRefreshToken(_ pool: AuthPool, ids: IDGenerator) -> String {
        let t = ids.string(length: 64, alphabet: IDGenerator.alphanumerics)
        return pool.tenantId.map { t + "." + $0 } ?? t
    }

    /// The tenant a refresh token belongs to (see `newRefreshToken`).
    static func refreshTokenTenant(_ token: String) -> String? {
        guard let dot = token.lastIndex(of: ".") else { return nil }
        let t = String(token[token.index(after: dot)...])
        return t.isEmpty ? nil : t
    }

    /// Records a sign-in and a refresh token inside the lock; returns the token and the user.
    func recordSignIn(
        _ st: inout AuthPool, user: AuthUser, provider: String, extra: UTF8Dictionary<JSON>, secondFactor: SecondFactor? = nil,
        now: Timestamp, ids: IDGenerator, login: Bool = true
    ) -> (AuthUser, String) {
        var u = user
        u.tenantId = st.tenantId
        if login { u.lastLoginAt = now.milliseconds }
        u.lastRefreshAt = now.milliseconds
        st.put(u)
        let token = newRefreshToken(st, ids: ids)
        st.setRefresh(
            token, RefreshRecord(localId: u.localId, provider: provider, extraClaims: extra, issuedAt: now.seconds, secondFactor: secondFactor))
        return (u, token)
    }

    /// Mints an ID token (outside the lock: RSA signing is the slow part). Unsigned (`alg: none`,
    /// as Firebase's emulator mints them) unless `auth.signIdTokens` asks for RS256.
    func mintIDToken(
        projectId: String, user: AuthUser, provider: String, extra: UTF8Dictionary<JSON>, secondFactor: SecondFactor? = nil,
        now: Timestamp
    ) throws -> String {
        let claims = idTokenClaims(projectId: projectId, user: user, provider: provider, extra: extra, secondFactor: secondFactor, now: now)
        do {
            return try JWT.encode(claims, key: config.signIdTokens ? keyring.key() : nil)
        } catch {
            logger.log(.error, "auth", "signing failed: \(error)")
            throw EmulatorError.internal("Could not sign the ID token.")
        }
    }

    /// Signs the user in: records it, mints tokens, and returns `{idToken, refreshToken, expiresIn, localId}`.
    /// `login: false` re-issues tokens for the current session (`auth_time` stays).
    func signIn(
        _ scope: AuthScope, user: AuthUser, provider: String, extra: UTF8Dictionary<JSON> = [:], secondFactor: SecondFactor? = nil,
        login: Bool = true
    ) throws -> (AuthUser, UTF8Dictionary<JSON>) {
        let e = env(scope.projectId)
        let now = e.clock.now()
        let (u, refresh) = try write(scope) { st in
            recordSignIn(
                &st, user: st.user(user.localId) ?? user, provider: provider, extra: extra, secondFactor: secondFactor, now: now,
                ids: e.ids, login: login)
        }
        let idToken = try mintIDToken(projectId: scope.projectId, user: u, provider: provider, extra: extra, secondFactor: secondFactor, now: now)
        return (u, ["idToken": .string(idToken), "refreshToken": .string(refresh), "expiresIn": "3600", "localId": .string(u.localId)])
    }

    /// Verifies an ID token for other services (Firestore callers, functions): signature (RS256
    /// with our key; `alg: none` only when allowed — by default `auth.acceptUnsignedTokens`),
    /// issuer, audience and expiry against the project clock. With `checkRevoked`, also that the
    /// user exists in the token's pool (`firebase.tenant`), is enabled, and the token is not older
    /// than `validSince`.
    public func verifyIDToken(projectId: String, token: String, allowUnsigned: Bool? = nil, checkRevoked: Bool = false) throws -> AuthContext {
        let (ctx, _) = try verifiedUser(
            nil, projectId: projectId, token: token, allowUnsigned: allowUnsigned, strict: false, checkRevoked: checkRevoked)
        return ctx
    }

    /// What an Admin SDK's `verifyIdToken(token, checkRevoked: true)` does against this emulator,
    /// for code that must not trust its caller (functions' admin context): the tokens the
    /// emulator mints (unsigned by default, like Firebase's emulator, whose Admin SDKs accept
    /// `alg: none`; with `auth.signIdTokens` only valid RS256 signatures), issuer and audience
    /// always, expiry on the project clock, revocation and disabled users.
    public func verifyIDTokenStrictly(projectId: String, token: String) throws -> AuthContext {
        let (ctx, _) = try verifiedUser(
            nil, projectId: projectId, token: token, allowUnsigned: !config.signIdTokens, strict: true, checkRevoked: true)
        return ctx
    }

    /// Like `verifyIDToken` with the revocation check, in `scope`'s pool (`TENANT_ID_MISMATCH`
    /// when the token's tenant is another), also returning the stored user.
    func userFromIDToken(_ scope: AuthScope, token: String) throws -> (AuthContext, AuthUser) {
        let (ctx, user) = try verifiedUser(scope, projectId: scope.projectId, token: token, allowUnsigned: nil, strict: false, checkRevoked: true)
        guard let user else { throw EmulatorError.authBadRequest("USER_NOT_FOUND") }
        return (ctx, user)
    }

    private func verifiedUser(_ scope: AuthScope?, projectId: String, token: String, allowUnsigned: Bool?, strict: Bool, checkRevoked: Bool) throws
        -> (AuthContext, AuthUser?)
    {
        let invalid = EmulatorError.authBadRequest("INVALID_ID_TOKEN")
        let jwt: JWT
        if let key = keyring.existingKey, let cached = verifiedTokens.lookup(token, kid: key.kid) {
            jwt = cached
        } else {
            guard let decoded = JWT.decode(token) else { throw invalid }
            jwt = decoded
            switch jwt.algorithm {
            case "RS256":
                // No key yet: no token can carry our signature.
                guard let key = keyring.existingKey, jwt.header["kid"]?.stringValue == key.kid,
                    key.verifyRS256(jwt.signingInput, signature: jwt.signature)
                else { throw invalid }
                verifiedTokens.insert(token, kid: key.kid, jwt: jwt)
            case "none":
                guard allowUnsigned ?? config.acceptUnsignedTokens, jwt.signature.isEmpty else { throw invalid }
                warnUnsignedOnce()
            default:
                throw invalid
            }
        }
        let c = jwt.payload
        guard let sub = (c["sub"] ?? c["user_id"])?.stringValue, !sub.isEmpty, sub.count <= 128 else { throw invalid }
        let issuer = "https://securetoken.google.com/\(projectId)"
        if jwt.algorithm == "RS256" || strict {
            guard c["aud"]?.stringValue == projectId, c["iss"]?.stringValue == issuer else { throw invalid }
        } else if c["aud"].map({ $0.stringValue != projectId }) ?? false || c["iss"].map({ $0.stringValue != issuer }) ?? false {
            // Unsigned tokens from test tooling may omit aud and iss, but ones naming another project are refused.
            throw invalid
        }
        let now = self.now(projectId)
        // The JS SDK's `mockUserToken` (createMockUserToken) is unsigned and issued at the epoch,
        // so its `exp` is always past; Google's emulator accepts it for Firestore and Storage, and
        // rules tests depend on that. The strict verifier (functions' admin context) still refuses it.
        let mockToken = jwt.algorithm == "none" && !strict && c["iat"]?.intValue == 0
        if !mockToken, let exp = c["exp"]?.intValue, exp <= now.seconds { throw EmulatorError.authBadRequest("TOKEN_EXPIRED") }
        let ctx = AuthContext(uid: sub, token: c)
        let tenant = c["firebase"]?["tenant"]?.stringValue
        if let scope, scope.tenantId != tenant { throw EmulatorError.authBadRequest("TENANT_ID_MISMATCH") }
        guard checkRevoked else { return (ctx, nil) }
        guard let user = read(AuthScope(projectId, tenant: tenant), { $0.user(sub) }) else { throw EmulatorError.authBadRequest("USER_NOT_FOUND") }
        if let iat = c["iat"]?.intValue, iat < user.validSince { throw EmulatorError.authBadRequest("TOKEN_EXPIRED") }
        if user.disabled { throw EmulatorError.authBadRequest("USER_DISABLED") }
        return (ctx, user)
    }

    /// `POST /securetoken.googleapis.com/v1/token`: exchanges a refresh token for a new ID token
    /// with the same provider, claims and second factor. Revoked (issued before `validSince`)
    /// tokens fail, unlike Firebase's emulator. A `tenantId` in the request must match the token's.
    public func refresh(projectId: String, grantType: String?, refreshToken: String?, tenantId: String? = nil) throws -> JSON {
        guard let grantType, !grantType.isEmpty else { throw EmulatorError.authBadRequest("MISSING_GRANT_TYPE") }
        guard grantType == "refresh_token" else { throw EmulatorError.authBadRequest("INVALID_GRANT_TYPE") }
        guard let refreshToken, !refreshToken.isEmpty else { throw EmulatorError.authBadRequest("MISSING_REFRESH_TOKEN") }
        let tokenTenant = Self.refreshTokenTenant(refreshToken)
        if let tenantId, !tenantId.isEmpty, tenantId != tokenTenant { throw EmulatorError.authBadRequest("TENANT_ID_MISMATCH") }
        let scope = AuthScope(projectId, tenant: tokenTenant)
        // A deleted tenant's tokens went with it.
        if let t = tokenTenant, readProject(projectId, { $0.tenants[t] == nil }) { throw EmulatorError.authBadRequest("INVALID_REFRESH_TOKEN") }
        _ = try policy(scope)  // PROJECT_DISABLED for a disabled tenant
        let e = env(projectId)
        let now = e.clock.now()
        let (user, record, newToken) = try write(scope) { st -> (AuthUser, RefreshRecord, String) in
            guard let rec = st.refreshTokens[refreshToken], var u = st.user(rec.localId) else {
                throw EmulatorError.authBadRequest("INVALID_REFRESH_TOKEN")
            }
            if rec.issuedAt < u.validSince {
                st.setRefresh(refreshToken, nil)
                throw EmulatorError.authBadRequest("TOKEN_EXPIRED")
            }
            if u.disabled { throw EmulatorError.authBadRequest("USER_DISABLED") }
            u.lastRefreshAt = now.milliseconds
            st.put(u)
            // Keep the same refresh token, as production does.
            return (u, rec, refreshToken)
        }
        // A withdrawn second factor no longer proves anything.
        let factor = record.secondFactor.flatMap { f in user.mfaEnrollment(f.enrollmentId) != nil ? f : nil }
        let id = try mintIDToken(
            projectId: projectId, user: user, provider: record.provider, extra: record.extraClaims, secondFactor: factor, now: now)
        return [
            "id_token": .string(id), "access_token": .string(id), "expires_in": "3600", "refresh_token": .string(newToken),
            "token_type": "Bearer", "user_id": .string(user.localId), "project_id": .string(projectId),
        ]
    }

    /// Custom claims validation shared by admin updates and custom tokens.
    static func validateClaims(_ text: String) throws -> UTF8Dictionary<JSON> {
        guard text.utf8.count <= 1000 else { throw EmulatorError.authBadRequest("CLAIMS_TOO_LARGE") }
        guard case .object(let o)? = try? JSON.parse(text) else { throw EmulatorError.authBadRequest("INVALID_CLAIMS") }
        try validateClaimNames(o)
        return o
    }

    /// Claim names custom claims may not use (Firebase's reserved list).
    static let forbiddenClaims = [
        "iss", "aud", "sub", "iat", "exp", "nbf", "jti", "nonce", "azp", "acr", "amr", "cnf",
        "auth_time", "firebase", "at_hash", "c_hash",
    ]

    /// `FORBIDDEN_CLAIM : <name>` for the first reserved name present.
    static func validateClaimNames(_ o: UTF8Dictionary<JSON>) throws {
        for name in forbiddenClaims where o[name] != nil { throw EmulatorError.authBadRequest("FORBIDDEN_CLAIM : \(name)") }
    }
}
