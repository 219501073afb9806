import EmulatorCore

extension AuthService {
    /// The account a sign-in acts on, as `AccountLinking.decide` settles it.
    struct ResolvedAccount {
        /// The decision.
        var decision: AccountLinking.Decision
        /// The account (a fresh one for `.create`, not yet stored).
        var user: AuthUser
        /// True for `.create`.
        var isNew: Bool
        /// The second factor the linking session proved (carried over to the new tokens).
        var secondFactor: SecondFactor?
    }

    /// Reads the facts about `identity` from the pool (and verifies `idToken` when linking), asks
    /// `AccountLinking.decide`, throws its refusal, and loads the account it names. Every sign-in
    /// that can create or link an account calls this: password sign-up, email link, phone, IdP.
    func resolveAccount(_ sc: AuthScope, policy: AuthPolicy, idToken: String?, identity: AccountLinking.Identity) throws -> ResolvedAccount {
        let signedIn = try idToken.map { try userFromIDToken(sc, token: $0) }
        let (facts, owners) = read(sc) { pool -> (AccountLinking.Facts, [String: AuthUser]) in
            var f = AccountLinking.Facts(
                signedIn: signedIn?.1.localId, oneAccountPerEmail: !policy.allowDuplicateEmails,
                signUpAllowed: !policy.disableSignUp)
            var found: [AuthUser] = []
            func byEmail(_ e: String?) {
                guard let e, let u = pool.user(email: e) else { return }
                f.emailOwner = (u.localId, u.emailVerified)
                found.append(u)
            }
            switch identity {
            case .password(let email), .emailLink(let email):
                byEmail(email)
            case .phone(let number):
                if let u = pool.user(phone: number) {
                    f.identityOwner = u.localId
                    found.append(u)
                }
            case .federated(let providerId, let rawId, let email, _):
                if let u = pool.user(providerId: providerId, rawId: rawId) {
                    f.identityOwner = u.localId
                    found.append(u)
                }
                byEmail(email)
            }
            return (f, Dictionary(found.map { ($0.localId, $0) }, uniquingKeysWith: { a, _ in a }))
        }
        let decision = AccountLinking.decide(identity, facts)
        switch decision {
        case .refuse(let code):
            throw EmulatorError.authBadRequest(code)
        case .link:
            guard let (ctx, user) = signedIn else { throw EmulatorError.internal("Linking without a signed-in user.") }
            return ResolvedAccount(decision: decision, user: user, isNew: false, secondFactor: Self.secondFactor(of: ctx, user: user))
        case .signIn(let uid), .takeOver(let uid), .linkTrusted(let uid), .needConfirmation(let uid):
            guard let user = owners[uid] else { throw EmulatorError.internal("The account found for the sign-in vanished.") }
            return ResolvedAccount(decision: decision, user: user, isNew: false, secondFactor: nil)
        case .create:
            return ResolvedAccount(decision: decision, user: newUser(sc), isNew: true, secondFactor: nil)
        }
    }
}
