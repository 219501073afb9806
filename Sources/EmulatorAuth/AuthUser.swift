import EmulatorCore

/// One linked provider identity of a user (`providerUserInfo[]` on the wire).
public struct ProviderUserInfo: Sendable, Equatable {
    /// `password`, `phone`, `google.com`, ...
    public var providerId: String
    /// The provider's id for the user (`sub`, the email for `password`, the number for `phone`).
    public var rawId: String
    /// Email the provider asserted.
    public var email: String?
    /// Display name from the provider.
    public var displayName: String?
    /// Photo URL from the provider.
    public var photoUrl: String?
    /// Phone number (phone provider).
    public var phoneNumber: String?
    /// Screen name (Twitter/GitHub style).
    public var screenName: String?

    /// Creates a provider entry.
    public init(
        providerId: String, rawId: String, email: String? = nil, displayName: String? = nil,
        photoUrl: String? = nil, phoneNumber: String? = nil, screenName: String? = nil
    ) {
        self.providerId = providerId
        self.rawId = rawId
        self.email = email
        self.displayName = displayName
        self.photoUrl = photoUrl
        self.phoneNumber = phoneNumber
        self.screenName = screenName
    }

    /// The wire shape.
    public var json: JSON {
        var o: UTF8Dictionary<JSON> = ["providerId": .string(providerId), "rawId": .string(rawId), "federatedId": .string(rawId)]
        if let email { o["email"] = .string(email) }
        if let displayName { o["displayName"] = .string(displayName) }
        if let photoUrl { o["photoUrl"] = .string(photoUrl) }
        if let phoneNumber { o["phoneNumber"] = .string(phoneNumber) }
        if let screenName { o["screenName"] = .string(screenName) }
        return .object(o)
    }
}

/// A user account. A value type so project state snapshots by copy-on-write.
public struct AuthUser: Sendable, Equatable {
    /// The uid.
    public var localId: String
    /// Lower-cased email, if any.
    public var email: String?
    /// Whether the email is verified (through our flow or a trusted provider).
    public var emailVerified = false
    /// Display name.
    public var displayName: String?
    /// Photo URL.
    public var photoUrl: String?
    /// E.164-ish phone number (starts with `+`).
    public var phoneNumber: String?
    /// Disabled accounts cannot sign in or refresh.
    public var disabled = false
    /// Password hash, if the account has a password.
    public var password: PasswordHash?
    /// Linked providers (one entry per providerId, as Firebase stores them).
    public var providers: [ProviderUserInfo] = []
    /// Custom claims as a JSON object string (`customAttributes`).
    public var customAttributes: String?
    /// Tokens issued before this (Unix seconds) are revoked.
    public var validSince: Int64
    /// Creation time (ms).
    public var createdAt: Int64
    /// Last sign-in (ms).
    public var lastLoginAt: Int64?
    /// Last token refresh (ms).
    public var lastRefreshAt: Int64?
    /// Signed in at least once by email link.
    public var emailLinkSignin = false
    /// Tenant, if any.
    public var tenantId: String?
    /// Enrolled second factors.
    public var mfaInfo: [MfaEnrollment] = []

    /// Creates a user with nothing but an id and times.
    public init(localId: String, now: Timestamp) {
        self.localId = localId
        self.validSince = now.seconds
        self.createdAt = now.milliseconds
    }

    /// True when the account has no credential at all (signed up anonymously, never linked).
    public var isAnonymous: Bool { providers.isEmpty && password == nil && email == nil && phoneNumber == nil }

    /// The enrolment with `id`.
    public func mfaEnrollment(_ id: String) -> MfaEnrollment? { mfaInfo.first { $0.mfaEnrollmentId == id } }

    /// The provider entry for `providerId`.
    public func provider(_ providerId: String) -> ProviderUserInfo? { providers.first { $0.providerId == providerId } }

    /// Adds or replaces the entry of `info.providerId`.
    public mutating func upsertProvider(_ info: ProviderUserInfo) {
        if let i = providers.firstIndex(where: { $0.providerId == info.providerId }) { providers[i] = info } else { providers.append(info) }
    }

    /// Custom claims decoded (empty when none).
    public var customClaims: UTF8Dictionary<JSON> {
        guard let s = customAttributes, case .object(let o)? = try? JSON.parse(s) else { return [:] }
        return o
    }
}
