import EmulatorCore

/// Per-project Auth settings (`/emulator/v1/projects/{p}/config`).
public struct AuthProjectConfig: Sendable, Equatable {
    /// One account per provider identity instead of one per email.
    public var allowDuplicateEmails = false
    /// Email enumeration protection.
    public var enableImprovedEmailPrivacy = false
    /// Providers turned off (`OPERATION_NOT_ALLOWED`): `password`, `emailLink`, `anonymous`, `phone`, IdP ids.
    public var disabledProviders: Set<String> = []
    /// Production's "user actions": end users may not sign up (`ADMIN_ONLY_OPERATION`).
    public var disableSignUp = false
    /// Production's "user actions": end users may not delete themselves (`ADMIN_ONLY_OPERATION`).
    public var disableDeletion = false

    /// The defaults.
    public init() {}

    /// The wire shape.
    public var json: JSON {
        [
            "signIn": ["allowDuplicateEmails": .bool(allowDuplicateEmails)],
            "emailPrivacyConfig": ["enableImprovedEmailPrivacy": .bool(enableImprovedEmailPrivacy)],
            "disabledProviders": .array(disabledProviders.sorted().map { .string($0) }),
            "client": ["permissions": ["disabledUserSignup": .bool(disableSignUp), "disabledUserDeletion": .bool(disableDeletion)]],
        ]
    }

    /// Applies the fields present in `patch` (a partial config of the same shape).
    public mutating func apply(_ patch: [String: JSON]) throws {
        func bool(_ v: JSON?, _ name: String) throws -> Bool? {
            guard let v, !v.isNull else { return nil }
            guard let b = v.boolValue else { throw EmulatorError.authBadRequest("INVALID_CONFIG : \(name) must be a boolean") }
            return b
        }
        if let b = try bool(patch["signIn"]?["allowDuplicateEmails"], "signIn.allowDuplicateEmails") { allowDuplicateEmails = b }
        if let b = try bool(patch["emailPrivacyConfig"]?["enableImprovedEmailPrivacy"], "emailPrivacyConfig.enableImprovedEmailPrivacy") {
            enableImprovedEmailPrivacy = b
        }
        if let b = try bool(patch["client"]?["permissions"]?["disabledUserSignup"], "client.permissions.disabledUserSignup") { disableSignUp = b }
        if let b = try bool(patch["client"]?["permissions"]?["disabledUserDeletion"], "client.permissions.disabledUserDeletion") { disableDeletion = b }
        if let v = patch["disabledProviders"], !v.isNull {
            guard let a = v.arrayValue, a.allSatisfy({ $0.stringValue != nil }) else {
                throw EmulatorError.authBadRequest("INVALID_CONFIG : disabledProviders must be an array of provider ids")
            }
            disabledProviders = Set(a.compactMap(\.stringValue))
        }
    }
}
