import EmulatorCore
import EmulatorCrypto

extension AuthService {
    /// `accounts:signInWithIdp` with fake IdP credentials, applying the trusted-provider table
    /// for one account per email (see docs/auth.md).
    public func signInWithIdp(projectId: String, tenantId: String? = nil, body raw: UTF8Dictionary<JSON>) async throws -> JSON {
        let b = Body(raw)
        let sc = try scope(projectId, tenantId, b)
        if b.string("pendingIdToken") != nil { throw EmulatorError(.unimplemented, "pendingIdToken is not implemented in the Auth Emulator.") }
        let cred = try IdpCredential.parse(requestUri: b.string("requestUri"), postBody: b.string("postBody"))
        var base: UTF8Dictionary<JSON> = [
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

    private func idpFlow(_ sc: AuthScope, _ b: Body, _ cred: IdpCredential, _ base: UTF8Dictionary<JSON>) async throws -> UTF8Dictionary<JSON> {
        let cfg = try policy(sc)
        if !cfg.idpEnabled(cred.providerId) { throw EmulatorError.authBadRequest("OPERATION_NOT_ALLOWED") }
        var out = base
        let e = env(sc.projectId)
        // Linking to the signed-in user (anonymous upgrade keeps the uid). A linking call already
        // proves the whole session, so an MFA user is not challenged again here (the
        // firebase-tools emulator does challenge); the session's second factor carries over.
        let identity = AccountLinking.Identity.federated(providerId: cred.providerId, rawId: cred.sub, email: cred.email, trusted: cred.trusted)
        let account = try resolveAccount(sc, policy: cfg, idToken: b.string("idToken"), identity: identity)
        var user = account.user
        let (isNew, factor) = (account.isNew, account.secondFactor)
        let sharedEmail = cfg.allowDuplicateEmails ? nil : cred.email
        switch account.decision {
        case .link:
            if let em = sharedEmail {
                if user.email == nil {
                    user.email = em
                    user.emailVerified = cred.trusted
                } else if user.email == em && cred.trusted {
                    user.emailVerified = true
                }
            }
            user.upsertProvider(cred.providerInfo)
        case .signIn:
            break
        case .needConfirmation:
            out["needConfirmation"] = true
            out["localId"] = .string(user.localId)
            out["verifiedProvider"] = .array(user.providers.map(\.providerId).filter { $0 != "password" && $0 != "phone" }.map { .string($0) })
            return out
        case .takeOver:
            let em = sharedEmail ?? ""
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
        case .linkTrusted:
            user.upsertProvider(cred.providerInfo)
        case .create:
            if let em = sharedEmail {
                user.email = em
                user.emailVerified = cred.trusted
            }
            user.displayName = cred.displayName
            user.photoUrl = cred.photoUrl
            user.upsertProvider(cred.providerInfo)
        case .refuse(let code):
            throw EmulatorError.authBadRequest(code)  // resolveAccount already threw it
        }
        if user.disabled { throw EmulatorError.authBadRequest("USER_DISABLED") }
        let (u, tokens) = try await finishSignIn(
            sc, policy: cfg, user: user, isNew: isNew, method: cred.providerId, provider: cred.providerId,
            challenge: b.string("idToken") == nil, secondFactor: factor, credential: cred.blocking)
        for (k, v) in tokens { out[k] = v }
        out["isNewUser"] = .bool(isNew)
        out["emailVerified"] = .bool(u.emailVerified)
        if let em = u.email { out["email"] = .string(em) }
        return out
    }

    /// `accounts:signInWithCustomToken`: unsigned emulator-style tokens, RS256 tokens (verified
    /// when signed with a key we know; other service-account signatures cannot be checked offline),
    /// or JSON. When unsigned tokens are refused (`auth.acceptUnsignedTokens: false`), only RS256
    /// tokens signed by a key we know are: the emulator's own, a generated functions service
    /// account, or one named in `auth.serviceAccounts` (`CustomTokenSigners`).
    /// Custom tokens never meet an MFA challenge (production treats them as MFA-ineligible).
    /// A token's `tenant_id` must name the request's tenant (`TENANT_ID_MISMATCH`).
    public func signInWithCustomToken(projectId: String, tenantId: String? = nil, body raw: UTF8Dictionary<JSON>) async throws -> JSON {
        let b = Body(raw)
        let sc = try scope(projectId, tenantId, b)
        _ = try policy(sc)
        guard let token = b.nonEmpty("token") else { throw EmulatorError.authBadRequest("MISSING_CUSTOM_TOKEN") }
        let strict = !config.acceptUnsignedTokens
        let claims: UTF8Dictionary<JSON>
        if token.hasPrefix("{") {
            if strict { throw Self.unsignedCustomToken }
            guard case .object(let o)? = try? JSON.parse(token) else {
                throw EmulatorError.authBadRequest("INVALID_CUSTOM_TOKEN : ((Invalid JSON.))")
            }
            claims = o
        } else {
            guard let jwt = JWT.decode(token) else { throw EmulatorError.authBadRequest("INVALID_CUSTOM_TOKEN : ((Invalid JWT.))") }
            try checkCustomTokenSignature(jwt, strict: strict)
            let aud = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"
            guard jwt.payload["aud"]?.stringValue == aud else {
                throw EmulatorError.authBadRequest(
                    "INVALID_CUSTOM_TOKEN : ((Invalid aud (audience): \(jwt.payload["aud"]?.stringValue ?? "") Note: Firebase ID Tokens / third-party tokens cannot be used with signInWithCustomToken.))"
                )
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
        var extra: UTF8Dictionary<JSON> = [:]
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
        var o: UTF8Dictionary<JSON> = ["kind": "identitytoolkit#VerifyCustomTokenResponse", "isNewUser": .bool(isNew)]
        for (k, v) in tokens where k != "localId" { o[k] = v }
        return .object(o)
    }

    /// `projects/{p}:createSessionCookie`: the ID token's claims re-signed with the session issuer.
    public func createSessionCookie(projectId: String, tenantId: String? = nil, body raw: UTF8Dictionary<JSON>) throws -> JSON {
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
        do { cookie = try JWT.encode(c, key: config.signIdTokens ? keyring.key() : nil) } catch {
            throw EmulatorError.internal("Could not sign the session cookie.")
        }
        return ["sessionCookie": .string(cookie)]
    }
}

extension AuthService {
    static let unsignedCustomToken = EmulatorError.authBadRequest(
        "INVALID_CUSTOM_TOKEN : ((Unsigned custom tokens are refused: auth.acceptUnsignedTokens is false. Sign it with a service-account key named in auth.serviceAccounts, or mint one with POST /emulator/v1/projects/{project}/customTokens.))"
    )

    /// A custom token's signature: a key we know must verify it; in strict mode a key we know
    /// must have signed it (`alg: none`, other algorithms and unknown keys are refused).
    func checkCustomTokenSignature(_ jwt: JWT, strict: Bool) throws {
        let kid = jwt.header["kid"]?.stringValue
        let badSignature = EmulatorError.authBadRequest("INVALID_CUSTOM_TOKEN : ((Invalid signature.))")
        switch jwt.algorithm {
        case "RS256":
            if let own = keyring.existingKey, kid == own.kid {
                guard own.verifyRS256(jwt.signingInput, signature: jwt.signature) else { throw badSignature }
            } else if let signer = customTokenSigners.signer(kid: kid) {
                guard signer.key.verifyRS256(jwt.signingInput, signature: jwt.signature) else { throw badSignature }
                if strict, let email = signer.email, jwt.payload["iss"]?.stringValue != email {
                    throw EmulatorError.authBadRequest("INVALID_CUSTOM_TOKEN : ((The token's iss must be the service account \(email).))")
                }
            } else if strict {
                throw EmulatorError.authBadRequest(
                    "INVALID_CUSTOM_TOKEN : ((The custom token is signed by a key this emulator does not know (kid \(kid ?? "none")). Name the service-account key file in auth.serviceAccounts.))"
                )
            }
        default:
            if strict { throw Self.unsignedCustomToken }
        }
    }
}

extension AuthService {
    /// `POST /emulator/v1/projects/{p}[/tenants/{t}]/customTokens` `{uid, claims?}`: a custom token
    /// signed (RS256) with the emulator's own key, which `signInWithCustomToken` accepts in every
    /// mode. The control plane's way for tests to get one when unsigned tokens are refused.
    public func mintCustomToken(projectId: String, tenantId: String?, body raw: UTF8Dictionary<JSON>) throws -> JSON {
        let b = Body(raw)
        guard let uid = b.nonEmpty("uid") else { throw EmulatorError.invalidArgument("uid is required.") }
        guard uid.utf8.count <= 128 else { throw EmulatorError.invalidArgument("uid must be at most 128 bytes.") }
        let now = now(projectId).seconds
        let issuer = "firebase-auth-emulator@example.com"
        var claims: UTF8Dictionary<JSON> = [
            "iss": .string(issuer), "sub": .string(issuer), "uid": .string(uid), "iat": .int(now), "exp": .int(now + 3600),
            "aud": "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit",
        ]
        if let c = raw["claims"], !c.isNull {
            guard case .object = c else { throw EmulatorError.invalidArgument("claims must be an object.") }
            _ = try Self.validateClaims(c.serialized())
            claims["claims"] = c
        }
        if let tenantId { claims["tenant_id"] = .string(tenantId) }
        let key: RSASigningKey
        do { key = try keyring.key() } catch { throw EmulatorError.internal("Signing key unavailable.") }
        let token: String
        do { token = try JWT.encode(claims, key: key) } catch { throw EmulatorError.internal("Could not sign the custom token.") }
        return ["token": .string(token)]
    }
}
