import EmulatorCore

extension AuthService {
    /// `accounts:signInWithIdp` with fake IdP credentials, applying the trusted-provider table
    /// for one account per email (see docs/auth.md).
    public func signInWithIdp(projectId: String, tenantId: String? = nil, body raw: [String: JSON]) async throws -> JSON {
        let b = Body(raw)
        let sc = try scope(projectId, tenantId, b)
        if b.string("pendingIdToken") != nil { throw EmulatorError(.unimplemented, "pendingIdToken is not implemented in the Auth Emulator.") }
        let cred = try IdpCredential.parse(requestUri: b.string("requestUri"), postBody: b.string("postBody"))
        var base: [String: JSON] = [
            "kind": "identitytoolkit#VerifyAssertionResponse", "providerId": .string(cred.providerId),
            "federatedId": .string(cred.sub), "rawUserInfo": .string(JSON.object(cred.rawClaims).serialized()),
            "oauthAccessToken": .string(cred.accessToken ?? "FirebaseAuthEmulatorFakeAccessToken_\(cred.providerId)"),
        ]
        if let t = cred.idToken { base["oauthIdToken"] = .string(t) }
        if let e = cred.email { base["email"] = .string(e) }
        if let n = cred.displayName { base["displayName"] = .string(n) }
        if let p = cred.photoUrl { base["photoUrl"] = .string(p) }
        do {
            return .object(try await idpFlow(sc, b, cred, base))
        } catch let e as EmulatorError where b.bool("returnIdpCredential") == true && e.status == 400 {
            // Production answers 200 with errorMessage when the caller wants the credential back.
            base["errorMessage"] = .string(e.message)
            return .object(base)
        }
    }

    private func idpFlow(_ sc: AuthScope, _ b: Body, _ cred: IdpCredential, _ base: [String: JSON]) async throws -> [String: JSON] {
        let cfg = try policy(sc)
        if !cfg.idpEnabled(cred.providerId) { throw EmulatorError.authBadRequest("OPERATION_NOT_ALLOWED") }
        var out = base
        let e = env(sc.projectId)
        var user: AuthUser
        var isNew = false
        var factor: SecondFactor?

        if let token = b.string("idToken") {
            // Linking to the signed-in user (anonymous upgrade keeps the uid). A linking call
            // already proves the whole session, so an MFA user is not challenged again here (the
            // firebase-tools emulator does challenge); the session's second factor carries over.
            let (ctx, linkTo) = try userFromIDToken(sc, token: token)
            user = linkTo
            factor = Self.secondFactor(of: ctx, user: linkTo)
            if read(sc, { $0.user(providerId: cred.providerId, rawId: cred.sub) }) != nil {
                throw EmulatorError.authBadRequest("FEDERATED_USER_ID_ALREADY_LINKED")
            }
            if !cfg.allowDuplicateEmails, let em = cred.email {
                if let other = read(sc, { $0.user(email: em) }), other.localId != user.localId { throw EmulatorError.authBadRequest("EMAIL_EXISTS") }
                if user.email == nil {
                    user.email = em
                    user.emailVerified = cred.trusted
                } else if user.email == em && cred.trusted {
                    user.emailVerified = true
                }
            }
            user.upsertProvider(cred.providerInfo)
        } else if let linked = read(sc, { $0.user(providerId: cred.providerId, rawId: cred.sub) }) {
            user = linked
        } else if !cfg.allowDuplicateEmails, let em = cred.email, let existing = read(sc, { $0.user(email: em) }) {
            switch TrustPolicy.decide(existingTrusted: existing.emailVerified, newTrusted: cred.trusted) {
            case .needConfirmation:
                out["needConfirmation"] = true
                out["localId"] = .string(existing.localId)
                out["verifiedProvider"] = .array(existing.providers.map(\.providerId).filter { $0 != "password" && $0 != "phone" }.map { .string($0) })
                return out
            case .takeOver:
                user = existing
                user.providers.removeAll { p in
                    p.providerId == "password" || p.providerId == "phone" || !TrustPolicy.isTrusted(providerId: p.providerId, email: em)
                }
                user.password = nil
                user.phoneNumber = nil
                user.validSince = e.clock.now().seconds
                user.emailVerified = true
                if let n = cred.displayName { user.displayName = n }
                if let p = cred.photoUrl { user.photoUrl = p }
                user.upsertProvider(cred.providerInfo)
            case .link:
                user = existing
                user.upsertProvider(cred.providerInfo)
            }
        } else {
            if cfg.disableSignUp { throw EmulatorError.authBadRequest("ADMIN_ONLY_OPERATION") }
            user = newUser(sc)
            isNew = true
            if !cfg.allowDuplicateEmails, let em = cred.email {
                user.email = em
                user.emailVerified = cred.trusted
            }
            user.displayName = cred.displayName
            user.photoUrl = cred.photoUrl
            user.upsertProvider(cred.providerInfo)
        }
        if user.disabled { throw EmulatorError.authBadRequest("USER_DISABLED") }
        let (u, tokens) = try await finishSignIn(sc, policy: cfg, user: user, isNew: isNew, method: cred.providerId, provider: cred.providerId,
                                                 challenge: b.string("idToken") == nil, secondFactor: factor)
        for (k, v) in tokens { out[k] = v }
        out["isNewUser"] = .bool(isNew)
        out["emailVerified"] = .bool(u.emailVerified)
        if let em = u.email { out["email"] = .string(em) }
        return out
    }

    /// `accounts:signInWithCustomToken`: unsigned emulator-style tokens, RS256 tokens (verified
    /// when signed with our key; service-account signatures cannot be checked offline), or JSON.
    /// Custom tokens never meet an MFA challenge (production treats them as MFA-ineligible).
    /// A token's `tenant_id` must name the request's tenant (`TENANT_ID_MISMATCH`).
    public func signInWithCustomToken(projectId: String, tenantId: String? = nil, body raw: [String: JSON]) async throws -> JSON {
        let b = Body(raw)
        let sc = try scope(projectId, tenantId, b)
        _ = try policy(sc)
        guard let token = b.nonEmpty("token") else { throw EmulatorError.authBadRequest("MISSING_CUSTOM_TOKEN") }
        let claims: [String: JSON]
        if token.hasPrefix("{") {
            guard case .object(let o)? = try? JSON.parse(token) else { throw EmulatorError.authBadRequest("INVALID_CUSTOM_TOKEN : ((Invalid JSON.))") }
            claims = o
        } else {
            guard let jwt = JWT.decode(token) else { throw EmulatorError.authBadRequest("INVALID_CUSTOM_TOKEN : ((Invalid JWT.))") }
            if jwt.algorithm == "RS256", let key = keyring.existingKey, jwt.header["kid"]?.stringValue == key.kid,
               !key.verifyRS256(jwt.signingInput, signature: jwt.signature)
            {
                throw EmulatorError.authBadRequest("INVALID_CUSTOM_TOKEN : ((Invalid signature.))")
            }
            let aud = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"
            guard jwt.payload["aud"]?.stringValue == aud else {
                throw EmulatorError.authBadRequest("INVALID_CUSTOM_TOKEN : ((Invalid aud (audience): \(jwt.payload["aud"]?.stringValue ?? "") Note: Firebase ID Tokens / third-party tokens cannot be used with signInWithCustomToken.))")
            }
            if let exp = jwt.payload["exp"]?.intValue, exp <= now(projectId).seconds {
                throw EmulatorError.authBadRequest("INVALID_CUSTOM_TOKEN : ((Token expired.))")
            }
            claims = jwt.payload
        }
        let cb = Body(claims)
        if let t = cb.nonEmpty("tenant_id") ?? cb.nonEmpty("tenantId"), t != sc.tenantId { throw EmulatorError.authBadRequest("TENANT_ID_MISMATCH") }
        guard let uid = cb.nonEmpty("uid") ?? cb.nonEmpty("user_id") else { throw EmulatorError.authBadRequest("MISSING_IDENTIFIER") }
        guard uid.count <= 128 else { throw EmulatorError.authBadRequest("INVALID_CUSTOM_TOKEN : ((uid must be at most 128 characters.))") }
        var extra: [String: JSON] = [:]
        if let c = claims["claims"] {
            guard case .object(let o) = c else { throw EmulatorError.authBadRequest("INVALID_CLAIMS") }
            _ = try Self.validateClaims(c.serialized())
            extra = o
        }
        var isNew = false
        let fresh = newUser(sc, uid: uid)
        let user: AuthUser = try write(sc) { st in
            if let u = st.user(uid) { return u }
            isNew = true
            st.put(fresh)
            return fresh
        }
        if isNew { await hooks.userCreated(projectId: projectId, user: user) }
        if user.disabled { throw EmulatorError.authBadRequest("USER_DISABLED") }
        let (_, tokens) = try signIn(sc, user: user, provider: "custom", extra: extra)
        var o: [String: JSON] = ["kind": "identitytoolkit#VerifyCustomTokenResponse", "isNewUser": .bool(isNew)]
        for (k, v) in tokens where k != "localId" { o[k] = v }
        return .object(o)
    }

    /// `projects/{p}:createSessionCookie`: the ID token's claims re-signed with the session issuer.
    public func createSessionCookie(projectId: String, tenantId: String? = nil, body raw: [String: JSON]) throws -> JSON {
        let b = Body(raw)
        let sc = try scope(projectId, tenantId, b)
        _ = try policy(sc)
        guard let token = b.nonEmpty("idToken") else { throw EmulatorError.authBadRequest("MISSING_ID_TOKEN") }
        let duration = b.int("validDuration") ?? 1_209_600
        guard (300...1_209_600).contains(duration) else { throw EmulatorError.authBadRequest("INVALID_DURATION") }
        let (ctx, _) = try userFromIDToken(sc, token: token)
        var c = ctx.token
        let now = now(projectId).seconds
        c["iat"] = .int(now)
        c["exp"] = .int(now + duration)
        c["iss"] = .string("https://session.firebase.google.com/\(projectId)")
        let cookie: String
        do { cookie = try JWT.encode(c, key: config.signIdTokens ? keyring.key() : nil) } catch { throw EmulatorError.internal("Could not sign the session cookie.") }
        return ["sessionCookie": .string(cookie)]
    }
}
