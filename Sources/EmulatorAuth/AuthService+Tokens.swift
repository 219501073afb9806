import EmulatorCore

extension AuthService {
    /// ID tokens live one hour, as in Firebase.
    static let tokenLifetime: Int64 = 3600

    /// The claims of an ID token for `user` signed in with `provider`.
    func idTokenClaims(projectId: String, user: AuthUser, provider: String, extra: [String: JSON], now: Timestamp) -> [String: JSON] {
        var c: [String: JSON] = [:]
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
        var identities: [String: JSON] = [:]
        if let e = user.email { identities["email"] = [.string(e)] }
        for p in user.providers where p.providerId != "password" {
            var list = identities[p.providerId]?.arrayValue ?? []
            list.append(.string(p.rawId))
            identities[p.providerId] = .array(list)
        }
        var firebase: [String: JSON] = ["identities": .object(identities), "sign_in_provider": .string(provider)]
        if let t = user.tenantId { firebase["tenant"] = .string(t) }
        c["firebase"] = .object(firebase)
        return c
    }

    /// Records a sign-in and a refresh token inside the lock; returns the token and the user.
    func recordSignIn(_ st: inout AuthProjectState, user: AuthUser, provider: String, extra: [String: JSON],
                      now: Timestamp, ids: IDGenerator, login: Bool = true) -> (AuthUser, String)
    {
        var u = user
        if login { u.lastLoginAt = now.milliseconds }
        u.lastRefreshAt = now.milliseconds
        st.put(u)
        let token = ids.string(length: 64, alphabet: IDGenerator.alphanumerics)
        st.setRefresh(token, RefreshRecord(localId: u.localId, provider: provider, extraClaims: extra, issuedAt: now.seconds))
        return (u, token)
    }

    /// Signs an ID token (outside the lock: RSA signing is the slow part).
    func mintIDToken(projectId: String, user: AuthUser, provider: String, extra: [String: JSON], now: Timestamp) throws -> String {
        let claims = idTokenClaims(projectId: projectId, user: user, provider: provider, extra: extra, now: now)
        do {
            return try JWT.encode(claims, key: config.signIdTokens ? keyring.key() : nil)
        } catch {
            logger.log(.error, "auth", "signing failed: \(error)")
            throw EmulatorError.internal("Could not sign the ID token.")
        }
    }

    /// Signs the user in: records it, mints tokens, and returns `{idToken, refreshToken, expiresIn, localId}`.
    func signIn(projectId: String, user: AuthUser, provider: String, extra: [String: JSON] = [:]) throws -> (AuthUser, [String: JSON]) {
        let e = env(projectId)
        let now = e.clock.now()
        let (u, refresh) = write(projectId) { st in
            recordSignIn(&st, user: st.user(user.localId) ?? user, provider: provider, extra: extra, now: now, ids: e.ids)
        }
        let idToken = try mintIDToken(projectId: projectId, user: u, provider: provider, extra: extra, now: now)
        return (u, ["idToken": .string(idToken), "refreshToken": .string(refresh), "expiresIn": "3600", "localId": .string(u.localId)])
    }

    /// Verifies an ID token: signature (RS256 with our key; `alg: none` only when allowed), issuer,
    /// audience and expiry against the project clock. With `checkRevoked`, also that the user
    /// exists, is enabled, and the token is not older than `validSince`.
    public func verifyIDToken(projectId: String, token: String, allowUnsigned: Bool? = nil, checkRevoked: Bool = false) throws -> AuthContext {
        let (ctx, _) = try verifiedUser(projectId: projectId, token: token, allowUnsigned: allowUnsigned, checkRevoked: checkRevoked)
        return ctx
    }

    /// Like `verifyIDToken` with the revocation check, also returning the stored user.
    func userFromIDToken(projectId: String, token: String) throws -> (AuthContext, AuthUser) {
        let (ctx, user) = try verifiedUser(projectId: projectId, token: token, allowUnsigned: nil, checkRevoked: true)
        guard let user else { throw EmulatorError.authBadRequest("USER_NOT_FOUND") }
        return (ctx, user)
    }

    private func verifiedUser(projectId: String, token: String, allowUnsigned: Bool?, checkRevoked: Bool) throws -> (AuthContext, AuthUser?) {
        let invalid = EmulatorError.authBadRequest("INVALID_ID_TOKEN")
        let jwt: JWT
        if let key = try? keyring.key(), let cached = verifiedTokens.lookup(token, kid: key.kid) {
            jwt = cached
        } else {
            guard let decoded = JWT.decode(token) else { throw invalid }
            jwt = decoded
            switch jwt.algorithm {
            case "RS256":
                guard let key = try? keyring.key(), jwt.header["kid"]?.stringValue == key.kid,
                      key.verifyRS256(jwt.signingInput, signature: jwt.signature)
                else { throw invalid }
                verifiedTokens.insert(token, kid: key.kid, jwt: jwt)
            case "none":
                guard allowUnsigned ?? config.acceptUnsignedTokens else { throw invalid }
                warnUnsignedOnce()
            default:
                throw invalid
            }
        }
        let c = jwt.payload
        guard let sub = (c["sub"] ?? c["user_id"])?.stringValue, !sub.isEmpty, sub.count <= 128 else { throw invalid }
        if jwt.algorithm == "RS256" {
            guard c["aud"]?.stringValue == projectId, c["iss"]?.stringValue == "https://securetoken.google.com/\(projectId)" else { throw invalid }
        }
        let now = self.now(projectId)
        if let exp = c["exp"]?.intValue, exp <= now.seconds { throw EmulatorError.authBadRequest("TOKEN_EXPIRED") }
        let ctx = AuthContext(uid: sub, token: c)
        guard checkRevoked else { return (ctx, nil) }
        guard let user = read(projectId, { $0.user(sub) }) else { throw EmulatorError.authBadRequest("USER_NOT_FOUND") }
        if let iat = c["iat"]?.intValue, iat < user.validSince { throw EmulatorError.authBadRequest("TOKEN_EXPIRED") }
        if user.disabled { throw EmulatorError.authBadRequest("USER_DISABLED") }
        return (ctx, user)
    }

    /// `POST /securetoken.googleapis.com/v1/token`: exchanges a refresh token for a new ID token.
    /// Revoked (issued before `validSince`) tokens fail, unlike Firebase's emulator.
    public func refresh(projectId: String, grantType: String?, refreshToken: String?) throws -> JSON {
        guard let grantType, !grantType.isEmpty else { throw EmulatorError.authBadRequest("MISSING_GRANT_TYPE") }
        guard grantType == "refresh_token" else { throw EmulatorError.authBadRequest("INVALID_GRANT_TYPE") }
        guard let refreshToken, !refreshToken.isEmpty else { throw EmulatorError.authBadRequest("MISSING_REFRESH_TOKEN") }
        let e = env(projectId)
        let now = e.clock.now()
        let (user, record, newToken) = try write(projectId) { st -> (AuthUser, RefreshRecord, String) in
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
        let id = try mintIDToken(projectId: projectId, user: user, provider: record.provider, extra: record.extraClaims, now: now)
        return ["id_token": .string(id), "access_token": .string(id), "expires_in": "3600", "refresh_token": .string(newToken),
                "token_type": "Bearer", "user_id": .string(user.localId), "project_id": .string(projectId)]
    }

    /// Custom claims validation shared by admin updates and custom tokens.
    static func validateClaims(_ text: String) throws -> [String: JSON] {
        guard text.utf8.count <= 1000 else { throw EmulatorError.authBadRequest("CLAIMS_TOO_LARGE") }
        guard case .object(let o)? = try? JSON.parse(text) else { throw EmulatorError.authBadRequest("INVALID_CLAIMS") }
        try validateClaimNames(o)
        return o
    }

    /// Claim names custom claims may not use (Firebase's reserved list).
    static let forbiddenClaims = ["iss", "aud", "sub", "iat", "exp", "nbf", "jti", "nonce", "azp", "acr", "amr", "cnf",
                                  "auth_time", "firebase", "at_hash", "c_hash"]

    /// `FORBIDDEN_CLAIM : <name>` for the first reserved name present.
    static func validateClaimNames(_ o: [String: JSON]) throws {
        for name in forbiddenClaims where o[name] != nil { throw EmulatorError.authBadRequest("FORBIDDEN_CLAIM : \(name)") }
    }
}
