import EmulatorCore

/// Multi-factor settings: the project config's `mfa` and a tenant's `mfaConfig`, same shape:
/// `{state, enabledProviders, providerConfigs: [{state, totpProviderConfig: {adjacentIntervals}}]}`.
/// Phone is enabled through `enabledProviders` (`PHONE_SMS`), TOTP through an enabled provider config.
public struct MfaConfig: Sendable, Equatable {
    /// `DISABLED`, `ENABLED` or `MANDATORY` (treated as `ENABLED`: enrolment is the app's job).
    public var state = "DISABLED"
    /// `PHONE_SMS` or nothing.
    public var enabledProviders: [String] = []
    /// TOTP provider config, when one is given: its state and `adjacentIntervals` (0–10).
    public var totp: (state: String, adjacentIntervals: Int)? {
        get { totpState.map { ($0, totpAdjacentIntervals) } }
        set {
            totpState = newValue?.state
            totpAdjacentIntervals = newValue?.adjacentIntervals ?? 5
        }
    }
    private var totpState: String?
    private var totpAdjacentIntervals = 5

    /// Everything off (production's default for new tenants).
    public init() {}

    /// The emulator's default for projects: enabled, with SMS and TOTP (±5 steps), so apps and
    /// tests can enrol without configuring anything. Set `mfa` in the project config to change it.
    public static let development: MfaConfig = {
        var c = MfaConfig()
        c.state = "ENABLED"
        c.enabledProviders = ["PHONE_SMS"]
        c.totp = ("ENABLED", 5)
        return c
    }()

    /// What firebase-tools gives a tenant it creates on first use (ENABLED, PHONE_SMS).
    public static let autoCreatedTenant: MfaConfig = {
        var c = MfaConfig()
        c.state = "ENABLED"
        c.enabledProviders = ["PHONE_SMS"]
        return c
    }()

    /// MFA is on at all (users with factors are challenged).
    public var isEnabled: Bool { state == "ENABLED" || state == "MANDATORY" }
    /// SMS second factors may be enrolled and used.
    public var phoneEnabled: Bool { isEnabled && enabledProviders.contains("PHONE_SMS") }
    /// TOTP second factors may be enrolled and used.
    public var totpEnabled: Bool { isEnabled && totpState == "ENABLED" }
    /// Accepted time steps either side of now.
    public var adjacentIntervals: Int { totpAdjacentIntervals }

    /// The wire shape.
    public var json: JSON {
        var o: UTF8Dictionary<JSON> = ["state": .string(state), "enabledProviders": .array(enabledProviders.map { .string($0) })]
        if let totpState {
            o["providerConfigs"] = [["state": .string(totpState), "totpProviderConfig": ["adjacentIntervals": .int(Int64(totpAdjacentIntervals))]]]
        } else {
            o["providerConfigs"] = []
        }
        return .object(o)
    }

    /// Applies the fields present in `patch` (`field` names the config in error messages).
    public mutating func apply(_ patch: JSON, field: String) throws {
        guard case .object(let o) = patch else { throw EmulatorError.authBadRequest("INVALID_CONFIG : \(field) must be an object") }
        if let v = o["state"], !v.isNull {
            guard let s = v.stringValue, ["DISABLED", "ENABLED", "MANDATORY", "STATE_UNSPECIFIED"].contains(s) else {
                throw EmulatorError.authBadRequest("INVALID_CONFIG : \(field).state must be DISABLED, ENABLED or MANDATORY")
            }
            state = s == "STATE_UNSPECIFIED" ? "DISABLED" : s
        }
        if let v = o["enabledProviders"], !v.isNull {
            guard let a = v.arrayValue, a.allSatisfy({ $0.stringValue == "PHONE_SMS" || $0.stringValue == "PROVIDER_UNSPECIFIED" }) else {
                throw EmulatorError.authBadRequest("INVALID_CONFIG : \(field).enabledProviders may only contain PHONE_SMS")
            }
            enabledProviders = a.contains(.string("PHONE_SMS")) ? ["PHONE_SMS"] : []
        }
        if let v = o["providerConfigs"], !v.isNull {
            guard let a = v.arrayValue, a.count <= 1 else {
                throw EmulatorError.authBadRequest("INVALID_CONFIG : \(field).providerConfigs must be a list with at most one TOTP provider config")
            }
            totpState = nil
            for pc in a {
                guard case .object(let p) = pc, case .object(let t)? = p["totpProviderConfig"] else {
                    throw EmulatorError.authBadRequest("INVALID_CONFIG : \(field).providerConfigs[] needs totpProviderConfig")
                }
                let s = p["state"]?.stringValue ?? "ENABLED"
                guard ["ENABLED", "DISABLED"].contains(s) else {
                    throw EmulatorError.authBadRequest("INVALID_CONFIG : \(field).providerConfigs[].state must be ENABLED or DISABLED")
                }
                var adjacent = 5
                if let n = t["adjacentIntervals"], !n.isNull {
                    guard let i = n.intValue ?? n.stringValue.flatMap({ Int64($0) }), (0...10).contains(i) else {
                        throw EmulatorError.authBadRequest(
                            "INVALID_CONFIG : \(field).providerConfigs[].totpProviderConfig.adjacentIntervals must be an integer from 0 to 10")
                    }
                    adjacent = Int(i)
                }
                totpState = s
                totpAdjacentIntervals = adjacent
            }
        }
    }

    /// Decodes a whole config (missing fields take the "off" defaults).
    public init(json: JSON, field: String) throws {
        self.init()
        try apply(json, field: field)
    }
}
