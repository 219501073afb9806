import EmulatorCore

/// The event a blocking function sees (`beforeCreate` / `beforeSignIn`).
public struct BlockingEvent: Sendable {
    /// `beforeCreate` or `beforeSignIn`.
    public var eventType: String
    /// The project.
    public var projectId: String
    /// The user as it would be stored.
    public var user: AuthUser
    /// The sign-in method (`password`, `google.com`, `emailLink`, `phone`, ...).
    public var signInMethod: String
    /// `phone` or `totp` when `beforeSignIn` runs at `mfaSignIn:finalize` (`sign_in_second_factor`).
    public var secondFactor: String?
    /// The IdP credential of an IdP sign-in (what becomes `event.credential` and
    /// `additional_user_info.profile`); nil for other sign-ins.
    public var credential: BlockingCredential?
    /// The client's locale (`locale` claim). Firebase's emulator always sends `en`, as here.
    public var locale = "en"

    /// An event.
    public init(
        eventType: String, projectId: String, user: AuthUser, signInMethod: String, secondFactor: String? = nil,
        credential: BlockingCredential? = nil
    ) {
        self.eventType = eventType
        self.projectId = projectId
        self.user = user
        self.signInMethod = signInMethod
        self.secondFactor = secondFactor
        self.credential = credential
    }
}

/// What an IdP sign-in hands a blocking function: the IdP's profile and SAML attributes, and
/// the OAuth tokens (which a function receives only when it asks for them, as in production).
public struct BlockingCredential: Sendable, Equatable {
    /// The IdP's claims as JSON text (`raw_user_info`).
    public var rawUserInfo: String?
    /// SAML attribute statements (`sign_in_attributes`), as the sign-in's `SAMLResponse` gave them.
    /// A JSON value, not text: the SDKs type `credential.claims` as a mapping (firebase-tools sends
    /// the text, which user code indexing it would trip over).
    public var signInAttributes: JSON?
    /// The IdP's ID token (`oauth_id_token`).
    public var idToken: String?
    /// The OAuth access token (`oauth_access_token`).
    public var accessToken: String?
    /// The OAuth refresh token (`oauth_refresh_token`).
    public var refreshToken: String?
    /// An OAuth 1.0 token secret (Twitter; `oauth_token_secret`).
    public var tokenSecret: String?
    /// The access token's lifetime in seconds (`oauth_expires_in`).
    public var expiresIn: Int64?

    /// A credential.
    public init(
        rawUserInfo: String? = nil, signInAttributes: JSON? = nil, idToken: String? = nil, accessToken: String? = nil,
        refreshToken: String? = nil, tokenSecret: String? = nil, expiresIn: Int64? = nil
    ) {
        self.rawUserInfo = rawUserInfo
        self.signInAttributes = signInAttributes
        self.idToken = idToken
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.tokenSecret = tokenSecret
        self.expiresIn = expiresIn
    }

    /// The wire form handed to functions hosts (camelCase keys; absent values left out).
    public var json: JSON {
        var o: UTF8Dictionary<JSON> = [:]
        if let a = signInAttributes { o["signInAttributes"] = a }
        for (k, v) in [
            ("rawUserInfo", rawUserInfo), ("idToken", idToken), ("accessToken", accessToken),
            ("refreshToken", refreshToken), ("tokenSecret", tokenSecret),
        ] {
            if let v { o[k] = .string(v) }
        }
        if let e = expiresIn { o["expiresIn"] = .int(e) }
        return .object(o)
    }
}

/// What a blocking function may change; nil fields are left alone.
public struct BlockingResult: Sendable, Equatable {
    /// New display name.
    public var displayName: String?
    /// New disabled flag.
    public var disabled: Bool?
    /// New email-verified flag.
    public var emailVerified: Bool?
    /// New custom claims (replaces the stored ones).
    public var customClaims: UTF8Dictionary<JSON>?
    /// Extra ID-token claims for this sign-in only (beforeSignIn).
    public var sessionClaims: UTF8Dictionary<JSON>?
    /// New photo URL.
    public var photoUrl: String?

    /// No changes.
    public init(
        displayName: String? = nil, disabled: Bool? = nil, emailVerified: Bool? = nil,
        customClaims: UTF8Dictionary<JSON>? = nil, sessionClaims: UTF8Dictionary<JSON>? = nil, photoUrl: String? = nil
    ) {
        self.displayName = displayName
        self.disabled = disabled
        self.emailVerified = emailVerified
        self.customClaims = customClaims
        self.sessionClaims = sessionClaims
        self.photoUrl = photoUrl
    }
}

/// Hooks the functions host plugs into. Blocking hooks may throw an `EmulatorError` the SDK sees
/// (e.g. `BLOCKING_FUNCTION_ERROR_RESPONSE`), or return changes. Called on the same paths as
/// production: password/email-link/IdP/phone sign-up and sign-in, and `beforeSignIn` when an MFA
/// sign-in is finalized; not for anonymous sign-up, custom tokens, admin creation or imports.
public protocol AuthHooks: Sendable {
    /// Runs before a user is created by an end-user sign-up.
    func beforeCreate(_ event: BlockingEvent) async throws -> BlockingResult?
    /// Runs before an end user signs in (including right after sign-up).
    func beforeSignIn(_ event: BlockingEvent) async throws -> BlockingResult?
    /// A user was created (any path except imports), after the fact.
    func userCreated(projectId: String, user: AuthUser) async
    /// A user was deleted, after the fact.
    func userDeleted(projectId: String, user: AuthUser) async
}

/// Hooks that do nothing (until the functions host registers its own).
public struct NoAuthHooks: AuthHooks {
    /// Creates the no-op hooks.
    public init() {}
    /// No change.
    public func beforeCreate(_ event: BlockingEvent) async throws -> BlockingResult? { nil }
    /// No change.
    public func beforeSignIn(_ event: BlockingEvent) async throws -> BlockingResult? { nil }
    /// Nothing.
    public func userCreated(projectId: String, user: AuthUser) async {}
    /// Nothing.
    public func userDeleted(projectId: String, user: AuthUser) async {}
}
