import EmulatorCore

extension AuthService {
    /// `accounts:signUp`: anonymous, email/password, linking email/password to the `idToken`'s
    /// user, or (privileged) Admin `createUser`.
    public func signUp(projectId: String, body raw: [String: JSON], privileged: Bool) async throws -> JSON {
        let b = Body(raw)
        if privileged && b.string("idToken") == nil { return try await adminCreate(projectId: projectId, b) }
        if b.string("localId") != nil { throw EmulatorError.authBadRequest("UNEXPECTED_PARAMETER : User ID") }
        let cfg = read(projectId) { $0.config }
        let e = env(projectId)
        let now = e.clock.now()
        var response: [String: JSON] = ["kind": "identitytoolkit#SignupNewUserResponse"]

        if b.string("idToken") == nil && b.string("email") == nil && b.string("password") == nil {
            if cfg.disableSignUp || cfg.disabledProviders.contains("anonymous") { throw EmulatorError.authBadRequest("ADMIN_ONLY_OPERATION") }
            // New anonymous users are when stale ones pile up, so the TTL purge runs here.
            await purgeExpiredAnonymous(projectId: projectId)
            var u = AuthUser(localId: e.ids.uid(), now: now)
            u.displayName = b.nonEmpty("displayName")
            write(projectId) { $0.put(u) }
            await hooks.userCreated(projectId: projectId, user: u)
            let (_, tokens) = try signIn(projectId: projectId, user: u, provider: "anonymous")
            for (k, v) in tokens { response[k] = v }
            return .object(response)
        }

        if cfg.disabledProviders.contains("password") { throw EmulatorError.authBadRequest("OPERATION_NOT_ALLOWED") }
        guard let rawEmail = b.string("email") else { throw EmulatorError.authBadRequest("MISSING_EMAIL") }
        let email = try AuthValidation.email(rawEmail)
        guard let password = b.string("password") else { throw EmulatorError.authBadRequest("MISSING_PASSWORD") }
        try AuthValidation.password(password)
        let hash = try hashPassword(password, ids: e.ids)

        var user: AuthUser
        var isNew = false
        if let idToken = b.string("idToken") {
            (_, user) = try userFromIDToken(projectId: projectId, token: idToken)
        } else {
            if cfg.disableSignUp { throw EmulatorError.authBadRequest("ADMIN_ONLY_OPERATION") }
            user = AuthUser(localId: e.ids.uid(), now: now)
            isNew = true
        }
        if let other = read(projectId, { $0.user(email: email) }), other.localId != user.localId {
            throw EmulatorError.authBadRequest("EMAIL_EXISTS")
        }
        user.email = email
        user.emailVerified = false
        user.password = hash
        user.validSince = now.seconds
        if let n = b.nonEmpty("displayName") { user.displayName = n }
        user.upsertProvider(ProviderUserInfo(providerId: "password", rawId: email, email: email,
                                             displayName: user.displayName, photoUrl: user.photoUrl))
        let (u, tokens) = try await finishSignIn(projectId: projectId, user: user, isNew: isNew, method: "password", provider: "password")
        for (k, v) in tokens { response[k] = v }
        response["email"] = .string(email)
        if let n = u.displayName { response["displayName"] = .string(n) }
        return .object(response)
    }

    /// Hashes with the configured cost; OpenSSL failures become INTERNAL (logged).
    func hashPassword(_ password: String, ids: IDGenerator) throws -> PasswordHash {
        do { return try PasswordHash.make(password, cost: config.passwordHashCost, ids: ids) } catch {
            logger.log(.error, "auth", "password hashing failed: \(error)")
            throw EmulatorError.internal("Could not hash the password.")
        }
    }

    /// `accounts:signInWithPassword`.
    public func signInWithPassword(projectId: String, body raw: [String: JSON]) async throws -> JSON {
        let b = Body(raw)
        let cfg = read(projectId) { $0.config }
        if cfg.disabledProviders.contains("password") { throw EmulatorError.authBadRequest("PASSWORD_LOGIN_DISABLED") }
        guard let rawEmail = b.string("email") else { throw EmulatorError.authBadRequest("MISSING_EMAIL") }
        let email = try AuthValidation.email(rawEmail)
        guard let password = b.string("password"), !password.isEmpty else { throw EmulatorError.authBadRequest("MISSING_PASSWORD") }
        let privacy = cfg.enableImprovedEmailPrivacy
        guard let user = read(projectId, { $0.user(email: email) }) else {
            throw EmulatorError.authBadRequest(privacy ? "INVALID_LOGIN_CREDENTIALS" : "EMAIL_NOT_FOUND")
        }
        guard let hash = user.password, hash.matches(password) else {
            throw EmulatorError.authBadRequest(privacy ? "INVALID_LOGIN_CREDENTIALS" : "INVALID_PASSWORD")
        }
        if user.disabled { throw EmulatorError.authBadRequest("USER_DISABLED") }
        let (u, tokens) = try await finishSignIn(projectId: projectId, user: user, isNew: false, method: "password", provider: "password")
        var response: [String: JSON] = ["kind": "identitytoolkit#VerifyPasswordResponse", "registered": true, "email": .string(email)]
        for (k, v) in tokens { response[k] = v }
        response["displayName"] = .string(u.displayName ?? "")
        return .object(response)
    }
}
