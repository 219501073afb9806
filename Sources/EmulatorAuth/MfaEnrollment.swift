import EmulatorCore

/// One enrolled second factor (`mfaInfo[]` on the wire): an SMS phone number or a TOTP secret.
public struct MfaEnrollment: Sendable, Equatable {
    /// The id clients pass back (`mfaEnrollmentId`, `uid` in the SDKs).
    public var mfaEnrollmentId: String
    /// The name the user gave the factor.
    public var displayName: String?
    /// Enrolment time (Unix ms).
    public var enrolledAt: Int64
    /// The number, for an SMS factor.
    public var phoneNumber: String?
    /// The shared secret, for a TOTP factor (never sent back after enrolment).
    public var totpSecret: [UInt8]?
    /// The last time step a TOTP code was accepted for (RFC 6238 §5.2: never accept it twice).
    public var totpLastCounter: Int64?

    /// An enrolment.
    public init(mfaEnrollmentId: String, displayName: String?, enrolledAt: Int64, phoneNumber: String? = nil, totpSecret: [UInt8]? = nil) {
        self.mfaEnrollmentId = mfaEnrollmentId
        self.displayName = displayName
        self.enrolledAt = enrolledAt
        self.phoneNumber = phoneNumber
        self.totpSecret = totpSecret
    }

    /// `phone` or `totp` (the `sign_in_second_factor` claim).
    public var kind: String { phoneNumber != nil ? "phone" : "totp" }

    /// `enrolledAt` as clients parse it: RFC 3339 UTC with exactly three fractional digits (iOS).
    var enrolledAtText: String { Timestamp(milliseconds: enrolledAt).rfc3339(fractionDigits: 3) }

    /// The record as `accounts:lookup`, `query`, `batchGet` and exports show it (full number).
    public var json: JSON {
        var o = hint.objectValue ?? [:]
        if let phoneNumber {
            o["phoneInfo"] = .string(phoneNumber)
            o["unobfuscatedPhoneInfo"] = .string(phoneNumber)
        }
        return .object(o)
    }

    /// The hint a first-factor sign-in shows: masked number, never the full one.
    public var hint: JSON {
        var o: UTF8Dictionary<JSON> = ["mfaEnrollmentId": .string(mfaEnrollmentId), "enrolledAt": .string(enrolledAtText)]
        if let displayName { o["displayName"] = .string(displayName) }
        if let phoneNumber { o["phoneInfo"] = .string(Self.mask(phoneNumber)) } else { o["totpInfo"] = [:] }
        return .object(o)
    }

    /// Every digit but the last four becomes `*` (`+15555550100` → `+*******0100`), as production masks.
    public static func mask(_ phone: String) -> String {
        let digits = phone.filter(\.isASCIIDigit).count
        var seen = 0
        return String(
            phone.map { c -> Character in
                guard c.isASCIIDigit else { return c }
                seen += 1
                return seen <= digits - 4 ? "*" : c
            })
    }

    /// True for a masked number as older iOS SDKs send it (`+` then `*`s then digits).
    static func isMasked(_ phone: String) -> Bool {
        phone.hasPrefix("+") && phone.contains("*") && phone.dropFirst().allSatisfy { $0 == "*" || $0.isASCIIDigit }
            && phone.reversed().prefix(4).allSatisfy(\.isASCIIDigit)
    }

    /// The lossless form (persistence), with the TOTP secret and last step.
    var persisted: JSON {
        var o: UTF8Dictionary<JSON> = ["mfaEnrollmentId": .string(mfaEnrollmentId), "enrolledAt": .int(enrolledAt)]
        if let displayName { o["displayName"] = .string(displayName) }
        if let phoneNumber { o["phoneNumber"] = .string(phoneNumber) }
        if let totpSecret { o["totpSecret"] = .string(Base64.encode(totpSecret)) }
        if let totpLastCounter { o["totpLastCounter"] = .int(totpLastCounter) }
        return .object(o)
    }

    /// Decodes the lossless form, naming what is missing.
    init(persisted j: JSON) throws {
        // Bounded so rendering it as a timestamp can never overflow.
        guard let id = j["mfaEnrollmentId"]?.stringValue, let at = j["enrolledAt"]?.intValue, at.magnitude < 1 << 50 else {
            throw EmulatorError.invalidArgument("Auth import: an MFA enrolment needs mfaEnrollmentId and enrolledAt.")
        }
        let secret = j["totpSecret"]?.stringValue.flatMap(Base64.decode)
        guard j["phoneNumber"]?.stringValue != nil || secret != nil else {
            throw EmulatorError.invalidArgument("Auth import: an MFA enrolment needs phoneNumber or totpSecret.")
        }
        self.init(
            mfaEnrollmentId: id, displayName: j["displayName"]?.stringValue, enrolledAt: at,
            phoneNumber: j["phoneNumber"]?.stringValue, totpSecret: secret)
        totpLastCounter = j["totpLastCounter"]?.intValue
    }
}
