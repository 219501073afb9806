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

    /// An event.
    public init(eventType: String, projectId: String, user: AuthUser, signInMethod: String, secondFactor: String? = nil) {
        self.eventType = eventType
        self.projectId = projectId
        self.user = user
        self.signInMethod = signInMethod
        self.secondFactor = secondFactor
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
    public var customClaims: [String: JSON]?
    /// Extra ID-token claims for this sign-in only (beforeSignIn).
    public var sessionClaims: [String: JSON]?
    /// New photo URL.
    public var photoUrl: String?

    /// No changes.
    public init(displayName: String? = nil, disabled: Bool? = nil, emailVerified: Bool? = nil,
                customClaims: [String: JSON]? = nil, sessionClaims: [String: JSON]? = nil, photoUrl: String? = nil)
    {
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
