/// The one decision every sign-in makes: which account does this credential act on? Link it to the
/// signed-in user, sign in to the account that already holds it, settle an email collision by the
/// trusted-provider rules, or create a new account — or refuse, with production's error. Password
/// sign-up, email link, phone and IdP sign-ins all ask here (`AuthService.resolveAccount`), so the
/// rules of the MakeItSo story (anonymous first, link later; one account per email) live in one
/// place, with their table of cases in `Tests/EmulatorAuthTests/AccountLinkingTests.swift`.
///
/// Pure: the facts are read from the pool first, then decided here.
public enum AccountLinking {
    /// The credential a sign-in presents.
    public enum Identity: Sendable, Equatable {
        /// Email and password (`accounts:signUp`): never signs in to an existing account.
        case password(email: String)
        /// An email link (`signInWithEmailLink`): proves the address.
        case emailLink(email: String)
        /// A phone number proved by an SMS code.
        case phone(number: String)
        /// A federated identity (`signInWithIdp`); `trusted` as `TrustPolicy.isTrusted` says.
        case federated(providerId: String, rawId: String, email: String?, trusted: Bool)
    }

    /// What the pool says about the credential.
    public struct Facts: Sendable, Equatable {
        /// The user the request's ID token names (linking), if any.
        public var signedIn: String?
        /// The user already holding the identity (the federated id or the phone number).
        public var identityOwner: String?
        /// The user holding the credential's email, and whether that account is trusted for it
        /// (its email verified).
        public var emailOwner: (uid: String, trusted: Bool)?
        /// One account per email (the project does not allow duplicate emails).
        public var oneAccountPerEmail: Bool
        /// End users may create accounts (`disableSignUp` is off).
        public var signUpAllowed: Bool

        /// Facts.
        public init(
            signedIn: String? = nil, identityOwner: String? = nil, emailOwner: (uid: String, trusted: Bool)? = nil,
            oneAccountPerEmail: Bool = true, signUpAllowed: Bool = true
        ) {
            self.signedIn = signedIn
            self.identityOwner = identityOwner
            self.emailOwner = emailOwner
            self.oneAccountPerEmail = oneAccountPerEmail
            self.signUpAllowed = signUpAllowed
        }

        /// Field by field (the email owner is a tuple).
        public static func == (l: Facts, r: Facts) -> Bool {
            l.signedIn == r.signedIn && l.identityOwner == r.identityOwner && l.emailOwner?.uid == r.emailOwner?.uid
                && l.emailOwner?.trusted == r.emailOwner?.trusted && l.oneAccountPerEmail == r.oneAccountPerEmail
                && l.signUpAllowed == r.signUpAllowed
        }
    }

    /// The answer.
    public enum Decision: Sendable, Equatable {
        /// Add the credential to the signed-in user (an anonymous user keeps its uid).
        case link(uid: String)
        /// The credential already belongs to this account: sign in to it.
        case signIn(uid: String)
        /// A trusted provider takes over an account whose email no trusted provider vouched for.
        case takeOver(uid: String)
        /// Trusted next to trusted: link the new provider to the existing account.
        case linkTrusted(uid: String)
        /// Another account holds the email and linking must be confirmed by the user
        /// (`needConfirmation`; SDKs: account-exists-with-different-credential). Nothing changes.
        case needConfirmation(uid: String)
        /// A new account.
        case create
        /// Refused with an Identity Toolkit error code.
        case refuse(String)
    }

    /// Decides. The order of the checks is production's (and so decides which error wins).
    public static func decide(_ identity: Identity, _ f: Facts) -> Decision {
        func create() -> Decision { f.signUpAllowed ? .create : .refuse("ADMIN_ONLY_OPERATION") }
        func emailHeldByAnother(than uid: String) -> Bool { f.emailOwner.map { $0.uid != uid } ?? false }
        switch identity {
        case .password:
            if let me = f.signedIn { return emailHeldByAnother(than: me) ? .refuse("EMAIL_EXISTS") : .link(uid: me) }
            guard f.signUpAllowed else { return .refuse("ADMIN_ONLY_OPERATION") }
            return f.emailOwner == nil ? .create : .refuse("EMAIL_EXISTS")
        case .emailLink:
            if let me = f.signedIn { return emailHeldByAnother(than: me) ? .refuse("EMAIL_EXISTS") : .link(uid: me) }
            if let owner = f.emailOwner { return .signIn(uid: owner.uid) }
            return create()
        case .phone:
            if let me = f.signedIn {
                return f.identityOwner.map { $0 != me } ?? false ? .refuse("PHONE_NUMBER_EXISTS") : .link(uid: me)
            }
            if let owner = f.identityOwner { return .signIn(uid: owner) }
            return create()
        case .federated(_, _, let email, let trusted):
            if let me = f.signedIn {
                if f.identityOwner != nil { return .refuse("FEDERATED_USER_ID_ALREADY_LINKED") }
                if f.oneAccountPerEmail, email != nil, emailHeldByAnother(than: me) { return .refuse("EMAIL_EXISTS") }
                return .link(uid: me)
            }
            if let owner = f.identityOwner { return .signIn(uid: owner) }
            if f.oneAccountPerEmail, email != nil, let owner = f.emailOwner {
                switch TrustPolicy.decide(existingTrusted: owner.trusted, newTrusted: trusted) {
                case .needConfirmation: return .needConfirmation(uid: owner.uid)
                case .takeOver: return .takeOver(uid: owner.uid)
                case .link: return .linkTrusted(uid: owner.uid)
                }
            }
            return create()
        }
    }
}
