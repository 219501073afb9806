import EmulatorCore

extension AuthService {
    /// Runs `beforeCreate` (for new users) and `beforeSignIn`, applying their changes to `user`.
    /// Returns the session claims for the ID token. `secondFactor` is the factor a finalized MFA
    /// sign-in used (`phone` or `totp`).
    func runBlocking(
        _ scope: AuthScope, user: inout AuthUser, isNew: Bool, method: String, secondFactor: String? = nil,
        credential: BlockingCredential? = nil
    ) async throws -> UTF8Dictionary<JSON> {
        let h = hooks
        if isNew,
            let r = try await h.beforeCreate(
                BlockingEvent(
                    eventType: "beforeCreate", projectId: scope.projectId, user: user, signInMethod: method,
                    credential: credential))
        {
            try apply(r, to: &user)
        }
        var session: UTF8Dictionary<JSON> = [:]
        let event = BlockingEvent(
            eventType: "beforeSignIn", projectId: scope.projectId, user: user, signInMethod: method,
            secondFactor: secondFactor, credential: credential)
        if let r = try await h.beforeSignIn(event) {
            try apply(r, to: &user)
            if let s = r.sessionClaims {
                try Self.validateClaimNames(s)
                session = s
            }
        }
        return session
    }

    private func apply(_ r: BlockingResult, to user: inout AuthUser) throws {
        if let v = r.displayName { user.displayName = v }
        if let v = r.disabled { user.disabled = v }
        if let v = r.emailVerified { user.emailVerified = v }
        if let v = r.photoUrl { user.photoUrl = v }
        if let c = r.customClaims {
            let text = JSON.object(c).serialized()
            _ = try Self.validateClaims(text)
            user.customAttributes = text
        }
    }

    /// Stores the user after blocking hooks, rejects it if a hook disabled it, then signs it in.
    ///
    /// With `challenge` (password, IdP and email-link first factors, not linking), a user with
    /// second factors in a pool where MFA is on gets no tokens: the first factor's changes are
    /// stored, `lastLoginAt` stays, hooks wait for `mfaSignIn:finalize`, and the answer carries
    /// `mfaPendingCredential` and the `mfaInfo` hints instead of `idToken`/`refreshToken`/`expiresIn`.
    func finishSignIn(
        _ scope: AuthScope, policy: AuthPolicy, user: AuthUser, isNew: Bool, method: String, provider: String,
        extra: UTF8Dictionary<JSON> = [:], runHooks: Bool = true, challenge: Bool = false, secondFactor: SecondFactor? = nil,
        credential: BlockingCredential? = nil
    ) async throws
        -> (AuthUser, UTF8Dictionary<JSON>)
    {
        if challenge, !isNew, !user.mfaInfo.isEmpty, policy.mfa.isEnabled {
            return try startMfaChallenge(scope, user: user, provider: provider, method: method)
        }
        var u = user
        var claims = extra
        if runHooks {
            let session = try await runBlocking(scope, user: &u, isNew: isNew, method: method, credential: credential)
            for (k, v) in session { claims[k] = v }
        }
        let stored = u
        let allowDuplicates = policy.allowDuplicateEmails
        try write(scope) { st in
            if isNew {
                // Re-check uniqueness: another request may have won the race while hooks ran.
                if let e = stored.email, let other = st.user(email: e), other.localId != stored.localId, !allowDuplicates {
                    throw EmulatorError.authBadRequest("EMAIL_EXISTS")
                }
            }
            st.put(stored)
        }
        if isNew { await hooks.userCreated(projectId: scope.projectId, user: stored) }
        if stored.disabled { throw EmulatorError.authBadRequest("USER_DISABLED") }
        return try signIn(scope, user: stored, provider: provider, extra: claims, secondFactor: secondFactor)
    }
}
