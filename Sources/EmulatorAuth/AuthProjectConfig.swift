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
    /// Multi-factor settings (`mfa`); the emulator's default enables SMS and TOTP.
    public var mfa = MfaConfig.development
    /// `signIn.phoneNumber.testPhoneNumbers`: fixed codes for test numbers.
    public var testPhoneNumbers: [String: String] = [:]

    /// The defaults.
    public init() {}

    /// The wire shape.
    public var json: JSON {
        var signIn: UTF8Dictionary<JSON> = ["allowDuplicateEmails": .bool(allowDuplicateEmails)]
        if !testPhoneNumbers.isEmpty { signIn["phoneNumber"] = ["testPhoneNumbers": .object(testPhoneNumbers.mapValues { .string($0) })] }
        return [
            "signIn": .object(signIn),
            "emailPrivacyConfig": ["enableImprovedEmailPrivacy": .bool(enableImprovedEmailPrivacy)],
            "disabledProviders": .array(disabledProviders.sorted().map { .string($0) }),
            "client": ["permissions": ["disabledUserSignup": .bool(disableSignUp), "disabledUserDeletion": .bool(disableDeletion)]],
            "mfa": mfa.json,
        ]
    }

    /// Applies the fields present in `patch` (a partial config of the same shape).
    public mutating func apply(_ patch: UTF8Dictionary<JSON>) throws {
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
        if let b = try bool(patch["client"]?["permissions"]?["disabledUserDeletion"], "client.permissions.disabledUserDeletion") {
            disableDeletion = b
        }
        if let v = patch["disabledProviders"], !v.isNull {
            guard let a = v.arrayValue, a.allSatisfy({ $0.stringValue != nil }) else {
                throw EmulatorError.authBadRequest("INVALID_CONFIG : disabledProviders must be an array of provider ids")
            }
            disabledProviders = Set(a.compactMap(\.stringValue))
        }
        if let v = patch["mfa"], !v.isNull { try mfa.apply(v, field: "mfa") }
        if let v = patch["signIn"]?["phoneNumber"]?["testPhoneNumbers"], !v.isNull {
            testPhoneNumbers = try TenantConfig.testPhoneNumbers(v, field: "signIn.phoneNumber.testPhoneNumbers")
        }
    }
}
