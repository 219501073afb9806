import EmulatorCore

extension AuthService {
    /// Runs `beforeCreate` (for new users) and `beforeSignIn`, applying their changes to `user`.
    /// Returns the session claims for the ID token.
    func runBlocking(projectId: String, user: inout AuthUser, isNew: Bool, method: String) async throws -> [String: JSON] {
        let h = hooks
        if isNew, let r = try await h.beforeCreate(BlockingEvent(eventType: "beforeCreate", projectId: projectId, user: user, signInMethod: method)) {
            try apply(r, to: &user)
        }
        var session: [String: JSON] = [:]
        if let r = try await h.beforeSignIn(BlockingEvent(eventType: "beforeSignIn", projectId: projectId, user: user, signInMethod: method)) {
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
    func finishSignIn(projectId: String, user: AuthUser, isNew: Bool, method: String, provider: String,
                      extra: [String: JSON] = [:], runHooks: Bool = true) async throws -> (AuthUser, [String: JSON])
    {
        var u = user
        var claims = extra
        if runHooks {
            let session = try await runBlocking(projectId: projectId, user: &u, isNew: isNew, method: method)
            for (k, v) in session { claims[k] = v }
        }
        let stored = u
        try write(projectId) { st in
            if isNew {
                // Re-check uniqueness: another request may have won the race while hooks ran.
                if let e = stored.email, let other = st.user(email: e), other.localId != stored.localId, !st.config.allowDuplicateEmails {
                    throw EmulatorError.authBadRequest("EMAIL_EXISTS")
                }
            }
            st.put(stored)
        }
        if isNew { await hooks.userCreated(projectId: projectId, user: stored) }
        if stored.disabled { throw EmulatorError.authBadRequest("USER_DISABLED") }
        return try signIn(projectId: projectId, user: stored, provider: provider, extra: claims)
    }
}
