import Testing

@testable import EmulatorAuth

/// The table of `AccountLinking.decide`: every sign-in's choice between linking, signing in,
/// the trusted-provider rules and creating an account (the flows themselves are pinned by
/// FlowTests, TrustPolicyTests and the Python suites).
private typealias F = AccountLinking.Facts
private let apple = AccountLinking.Identity.federated(providerId: "apple.com", rawId: "a1", email: "al@privaterelay.appleid.com", trusted: true)
private let facebook = AccountLinking.Identity.federated(providerId: "facebook.com", rawId: "f1", email: "al@example.com", trusted: false)
private let noEmail = AccountLinking.Identity.federated(providerId: "github.com", rawId: "g1", email: nil, trusted: false)
private let password = AccountLinking.Identity.password(email: "al@example.com")
private let emailLink = AccountLinking.Identity.emailLink(email: "al@example.com")
private let phone = AccountLinking.Identity.phone(number: "+15555550100")

private let cases: [(String, AccountLinking.Identity, F, AccountLinking.Decision)] = [
    // The MakeItSo story: an anonymous user links Apple and keeps its uid...
    ("anonymous links Apple", apple, F(signedIn: "anon"), .link(uid: "anon")),
    // ...and on the second device the credential is already someone's.
    ("second device links Apple", apple, F(signedIn: "anon2", identityOwner: "alice"), .refuse("FEDERATED_USER_ID_ALREADY_LINKED")),
    ("second device signs in with Apple", apple, F(identityOwner: "alice"), .signIn(uid: "alice")),
    ("link when another account holds the email", facebook, F(signedIn: "me", emailOwner: ("other", false)), .refuse("EMAIL_EXISTS")),
    ("link when I hold the email", facebook, F(signedIn: "me", emailOwner: ("me", false)), .link(uid: "me")),
    ("link with duplicate emails allowed", facebook, F(signedIn: "me", emailOwner: ("other", true), oneAccountPerEmail: false), .link(uid: "me")),
    // The trust matrix (one account per email).
    ("untrusted then untrusted", facebook, F(emailOwner: ("u", false)), .needConfirmation(uid: "u")),
    ("trusted then untrusted", facebook, F(emailOwner: ("u", true)), .needConfirmation(uid: "u")),
    ("untrusted then trusted", apple, F(emailOwner: ("u", false)), .takeOver(uid: "u")),
    ("trusted then trusted", apple, F(emailOwner: ("u", true)), .linkTrusted(uid: "u")),
    ("duplicate emails allowed: no collision", facebook, F(emailOwner: ("u", true), oneAccountPerEmail: false), .create),
    ("no email: no collision", noEmail, F(), .create),
    ("new IdP user while sign-up is disabled", apple, F(signUpAllowed: false), .refuse("ADMIN_ONLY_OPERATION")),
    ("existing IdP user while sign-up is disabled", apple, F(identityOwner: "alice", signUpAllowed: false), .signIn(uid: "alice")),
    // Password sign-up never signs in to an existing account.
    ("sign-up", password, F(), .create),
    ("sign-up with a taken email", password, F(emailOwner: ("u", false)), .refuse("EMAIL_EXISTS")),
    ("sign-up disabled wins over a taken email", password, F(emailOwner: ("u", false), signUpAllowed: false), .refuse("ADMIN_ONLY_OPERATION")),
    ("anonymous links a password", password, F(signedIn: "anon"), .link(uid: "anon")),
    ("linking a password taken elsewhere", password, F(signedIn: "anon", emailOwner: ("u", true)), .refuse("EMAIL_EXISTS")),
    ("linking while sign-up is disabled", password, F(signedIn: "anon", signUpAllowed: false), .link(uid: "anon")),
    // Email links and phone numbers sign in to the account that holds them.
    ("email link, new", emailLink, F(), .create),
    ("email link, existing", emailLink, F(emailOwner: ("u", false)), .signIn(uid: "u")),
    ("email link, disabled sign-up", emailLink, F(signUpAllowed: false), .refuse("ADMIN_ONLY_OPERATION")),
    ("email link linked to me", emailLink, F(signedIn: "me"), .link(uid: "me")),
    ("email link held by another", emailLink, F(signedIn: "me", emailOwner: ("u", true)), .refuse("EMAIL_EXISTS")),
    ("phone, new", phone, F(), .create),
    ("phone, existing", phone, F(identityOwner: "u"), .signIn(uid: "u")),
    ("phone linked to me", phone, F(signedIn: "me", identityOwner: "me"), .link(uid: "me")),
    ("phone held by another", phone, F(signedIn: "me", identityOwner: "u"), .refuse("PHONE_NUMBER_EXISTS")),
]

@Test(arguments: cases.indices)
func accountLinkingDecision(_ i: Int) {
    let (name, identity, facts, expected) = cases[i]
    #expect(AccountLinking.decide(identity, facts) == expected, "\(name)")
}
