import EmulatorCore

/// One tenant's settings (the Identity Platform `Tenant` resource without `name`). Defaults are
/// production's for a new tenant: every sign-in kind off, MFA disabled.
public struct TenantConfig: Sendable, Equatable {
    /// Shown in consoles; Admin SDKs check it client-side (letter first, 4–20 characters).
    public var displayName: String?
    /// Email/password sign-up and sign-in (`OPERATION_NOT_ALLOWED` / `PASSWORD_LOGIN_DISABLED` when off).
    public var allowPasswordSignup = false
    /// Email-link sign-in (`OPERATION_NOT_ALLOWED` when off).
    public var enableEmailLinkSignin = false
    /// Every account operation answers `PROJECT_DISABLED`.
    public var disableAuth = false
    /// Anonymous sign-up (`ADMIN_ONLY_OPERATION` when off).
    public var enableAnonymousUser = false
    /// Multi-factor settings.
    public var mfaConfig = MfaConfig()
    /// Test phone numbers (E.164 → six-digit code): no SMS, the fixed code always works.
    public var testPhoneNumbers: [String: String] = [:]
    /// `client.permissions.disabledUserSignup`: end users may not sign up (`ADMIN_ONLY_OPERATION`).
    public var disableSignUp = false
    /// `client.permissions.disabledUserDeletion`: end users may not delete themselves.
    public var disableDeletion = false
    /// Anonymous users idle longer than the anonymous TTL are purged (`auth.anonymousTtlSeconds`,
    /// else production's 30 days).
    public var autodeleteAnonymousUsers = false
    /// Settings stored and returned as given but not acted on (`smsRegionConfig`, `recaptchaConfig`,
    /// `passwordPolicyConfig`, `emailPrivacyConfig`, `inheritance`).
    public var passthrough: UTF8Dictionary<JSON> = [:]

    /// Fields stored but not modelled.
    static let passthroughFields: Set<String> = ["smsRegionConfig", "recaptchaConfig", "passwordPolicyConfig", "emailPrivacyConfig", "inheritance"]
    /// Output-only fields a client may echo back (ignored on input).
    static let outputFields: Set<String> = ["name", "tenantId", "hashConfig"]
    /// Every field a request may set.
    static let inputFields: Set<String> = Set([
        "displayName", "allowPasswordSignup", "enableEmailLinkSignin", "disableAuth", "enableAnonymousUser",
        "mfaConfig", "testPhoneNumbers", "client", "autodeleteAnonymousUsers",
    ]).union(passthroughFields)

    /// Production's defaults.
    public init() {}

    /// What firebase-tools creates for a tenant id it sees first in an import: everything on.
    public static func autoCreated(_ tenantId: String) -> TenantConfig {
        var t = TenantConfig()
        t.displayName = tenantId
        t.allowPasswordSignup = true
        t.enableEmailLinkSignin = true
        t.enableAnonymousUser = true
        t.mfaConfig = .autoCreatedTenant
        return t
    }

    /// The resource as the v2 API returns it.
    public func json(projectId: String, tenantId: String) -> JSON {
        var o = settingsJSON.objectValue ?? [:]
        o["name"] = .string("projects/\(projectId)/tenants/\(tenantId)")
        return .object(o)
    }

    /// Every setting, without the output-only `name` (persistence and update masks).
    public var settingsJSON: JSON {
        var o: UTF8Dictionary<JSON> = [
            "allowPasswordSignup": .bool(allowPasswordSignup), "enableEmailLinkSignin": .bool(enableEmailLinkSignin),
            "disableAuth": .bool(disableAuth), "enableAnonymousUser": .bool(enableAnonymousUser),
            "mfaConfig": mfaConfig.json, "autodeleteAnonymousUsers": .bool(autodeleteAnonymousUsers),
            "client": ["permissions": ["disabledUserSignup": .bool(disableSignUp), "disabledUserDeletion": .bool(disableDeletion)]],
        ]
        if let displayName { o["displayName"] = .string(displayName) }
        if !testPhoneNumbers.isEmpty { o["testPhoneNumbers"] = .object(testPhoneNumbers.mapValues { .string($0) }) }
        for (k, v) in passthrough { o[k] = v }
        return .object(o)
    }

    /// Decodes a whole resource (absent fields take the defaults), naming what is wrong.
    public init(json o: UTF8Dictionary<JSON>) throws {
        self.init()
        for k in o.keys.sorted() where !Self.inputFields.contains(k) && !Self.outputFields.contains(k) {
            throw EmulatorError.authBadRequest("INVALID_ARGUMENT : Invalid JSON payload received. Unknown name \"\(k)\" at 'tenant'.")
        }
        func bool(_ k: String) throws -> Bool? {
            guard let v = o[k], !v.isNull else { return nil }
            guard let b = v.boolValue else { throw EmulatorError.authBadRequest("INVALID_ARGUMENT : tenant.\(k) must be a boolean") }
            return b
        }
        if let v = o["displayName"], !v.isNull {
            guard let s = v.stringValue, s.count <= 100 else {
                throw EmulatorError.authBadRequest("INVALID_ARGUMENT : tenant.displayName must be a string of at most 100 characters")
            }
            displayName = s.isEmpty ? nil : s
        }
        allowPasswordSignup = try bool("allowPasswordSignup") ?? false
        enableEmailLinkSignin = try bool("enableEmailLinkSignin") ?? false
        disableAuth = try bool("disableAuth") ?? false
        enableAnonymousUser = try bool("enableAnonymousUser") ?? false
        autodeleteAnonymousUsers = try bool("autodeleteAnonymousUsers") ?? false
        if let v = o["mfaConfig"], !v.isNull { mfaConfig = try MfaConfig(json: v, field: "tenant.mfaConfig") }
        if let v = o["client"], !v.isNull {
            guard case .object(let c) = v else { throw EmulatorError.authBadRequest("INVALID_ARGUMENT : tenant.client must be an object") }
            if let p = c["permissions"], !p.isNull {
                guard case .object(let perms) = p else {
                    throw EmulatorError.authBadRequest("INVALID_ARGUMENT : tenant.client.permissions must be an object")
                }
                for (k, v) in perms where !v.isNull {
                    guard let b = v.boolValue else {
                        throw EmulatorError.authBadRequest("INVALID_ARGUMENT : tenant.client.permissions.\(k) must be a boolean")
                    }
                    switch k {
                    case "disabledUserSignup": disableSignUp = b
                    case "disabledUserDeletion": disableDeletion = b
                    default:
                        throw EmulatorError.authBadRequest(
                            "INVALID_ARGUMENT : Invalid JSON payload received. Unknown name \"\(k)\" at 'tenant.client.permissions'.")
                    }
                }
            }
        }
        if let v = o["testPhoneNumbers"], !v.isNull { testPhoneNumbers = try Self.testPhoneNumbers(v, field: "tenant.testPhoneNumbers") }
        for k in Self.passthroughFields { if let v = o[k], !v.isNull { passthrough[k] = v } }
    }

    /// Validates a test-number map: at most 10 entries, E.164 keys, six-digit codes.
    static func testPhoneNumbers(_ v: JSON, field: String) throws -> [String: String] {
        guard case .object(let m) = v else {
            throw EmulatorError.authBadRequest("INVALID_ARGUMENT : \(field) must be an object of phone number to code")
        }
        guard m.count <= 10 else { throw EmulatorError.authBadRequest("INVALID_ARGUMENT : \(field) may hold at most 10 numbers") }
        var out: [String: String] = [:]
        for (number, code) in m {
            guard number.hasPrefix("+"), number.count >= 4, number.count <= 16, number.dropFirst().allSatisfy(\.isASCIIDigit) else {
                throw EmulatorError.authBadRequest("INVALID_TEST_PHONE_NUMBER : \(field) keys must be E.164 numbers like +15555550100")
            }
            guard let c = code.stringValue, c.count == 6, c.allSatisfy(\.isASCIIDigit) else {
                throw EmulatorError.authBadRequest("INVALID_TEST_PHONE_NUMBER : \(field) codes must be six digits")
            }
            out[number] = c
        }
        return out
    }
}

extension Character {
    /// 0–9 only (`isNumber` also accepts other scripts' digits and fractions).
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
