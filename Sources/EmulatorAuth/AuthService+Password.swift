import EmulatorCore

extension AuthService {
    /// `accounts:signUp`: anonymous, email/password, linking email/password to the `idToken`'s
    /// user, or (privileged) Admin `createUser`. `tenantId` is the path's (or caller's) tenant.
    public func signUp(projectId: String, tenantId: String? = nil, body raw: UTF8Dictionary<JSON>, privileged: Bool) async throws -> JSON {
        let b = Body(raw)
        let sc = try scope(projectId, tenantId, b)
        let pol = try policy(sc)
        if privileged && b.string("idToken") == nil { return try await adminCreate(sc, b) }
        if b.string("localId") != nil { throw EmulatorError.authBadRequest("UNEXPECTED_PARAMETER : User ID") }
        let e = env(projectId)
        let now = e.clock.now()
        var response: UTF8Dictionary<JSON> = ["kind": "identitytoolkit#SignupNewUserResponse"]

        if b.string("idToken") == nil && b.string("email") == nil && b.string("password") == nil {
            if pol.disableSignUp || !pol.anonymousEnabled { throw EmulatorError.authBadRequest("ADMIN_ONLY_OPERATION") }
            // New anonymous users are when stale ones pile up, so the TTL purge runs here.
            await purgeExpiredAnonymous(projectId: projectId)
            var u = newUser(sc)
            u.displayName = b.nonEmpty("displayName")
            let stored = u
            try write(sc) { $0.put(stored) }
            await hooks.userCreated(projectId: projectId, user: u)
            let (_, tokens) = try signIn(sc, user: u, provider: "anonymous")
            for (k, v) in tokens { response[k] = v }
            return .object(response)
        }

        if !pol.passwordEnabled { throw EmulatorError.authBadRequest("OPERATION_NOT_ALLOWED") }
        guard let rawEmail = b.string("email") else { throw EmulatorError.authBadRequest("MISSING_EMAIL") }
        let email = try AuthValidation.email(rawEmail)
        guard let password = b.string("password") else { throw EmulatorError.authBadRequest("MISSING_PASSWORD") }
        try AuthValidation.password(password)
        let hash = try hashPassword(password, ids: e.ids)

        let account = try resolveAccount(sc, policy: pol, idToken: b.string("idToken"), identity: .password(email: email))
        var user = account.user
        let (isNew, factor) = (account.isNew, account.secondFactor)
        user.email = email
        user.emailVerified = false
        user.password = hash
        user.validSince = now.seconds
        if let n = b.nonEmpty("displayName") { user.displayName = n }
        user.upsertProvider(
            ProviderUserInfo(
                providerId: "password", rawId: email, email: email,
                displayName: user.displayName, photoUrl: user.photoUrl))
        let (u, tokens) = try await finishSignIn(
            sc, policy: pol, user: user, isNew: isNew, method: "password", provider: "password", secondFactor: factor)
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

    /// `accounts:signInWithPassword`; an MFA user gets the second-factor challenge instead of tokens.
    public func signInWithPassword(projectId: String, tenantId: String? = nil, body raw: UTF8Dictionary<JSON>) async throws -> JSON {
        let b = Body(raw)
        let sc = try scope(projectId, tenantId, b)
        let pol = try policy(sc)
        if !pol.passwordEnabled { throw EmulatorError.authBadRequest("PASSWORD_LOGIN_DISABLED") }
        guard let rawEmail = b.string("email") else { throw EmulatorError.authBadRequest("MISSING_EMAIL") }
        let email = try AuthValidation.email(rawEmail)
        guard let password = b.string("password"), !password.isEmpty else { throw EmulatorError.authBadRequest("MISSING_PASSWORD") }
        let privacy = pol.improvedEmailPrivacy
        guard let user = read(sc, { $0.user(email: email) }) else {
            throw EmulatorError.authBadRequest(privacy ? "INVALID_LOGIN_CREDENTIALS" : "EMAIL_NOT_FOUND")
        }
        guard let hash = user.password, hash.matches(password) else {
            throw EmulatorError.authBadRequest(privacy ? "INVALID_LOGIN_CREDENTIALS" : "INVALID_PASSWORD")
        }
        if user.disabled { throw EmulatorError.authBadRequest("USER_DISABLED") }
        let (u, tokens) = try await finishSignIn(sc, policy: pol, user: user, isNew: false, method: "password", provider: "password", challenge: true)
        var response: UTF8Dictionary<JSON> = ["kind": "identitytoolkit#VerifyPasswordResponse", "registered": true, "email": .string(email)]
        for (k, v) in tokens { response[k] = v }
        response["displayName"] = .string(u.displayName ?? "")
        return .object(response)
    }

    /// The second factor an ID token proves, if its enrolment still exists (so linking or
    /// updating from an MFA session keeps the session's second factor).
    static func secondFactor(of ctx: AuthContext, user: AuthUser) -> SecondFactor? {
        guard let f = ctx.token["firebase"], let kind = f["sign_in_second_factor"]?.stringValue,
            let id = f["second_factor_identifier"]?.stringValue, user.mfaEnrollment(id) != nil
        else { return nil }
        return SecondFactor(kind: kind, enrollmentId: id)
    }
}
