import EmulatorCore

extension AuthUser {
    /// The `accounts:lookup` / `batchGet` shape: numbers as strings, hashes in base64.
    public var json: JSON {
        var o: [String: JSON] = [
            "localId": .string(localId), "emailVerified": .bool(emailVerified), "disabled": .bool(disabled),
            "validSince": .string(String(validSince)), "createdAt": .string(String(createdAt)),
            "providerUserInfo": .array(providers.map(\.json)),
        ]
        if let email { o["email"] = .string(email) }
        if let displayName { o["displayName"] = .string(displayName) }
        if let photoUrl { o["photoUrl"] = .string(photoUrl) }
        if let phoneNumber { o["phoneNumber"] = .string(phoneNumber) }
        if let password {
            o["passwordHash"] = .string(Base64.encode(password.hash))
            o["salt"] = .string(Base64.encode(password.salt))
            o["passwordUpdatedAt"] = .int(createdAt)
        }
        if let customAttributes { o["customAttributes"] = .string(customAttributes) }
        if let lastLoginAt { o["lastLoginAt"] = .string(String(lastLoginAt)) }
        if let lastRefreshAt { o["lastRefreshAt"] = .string(Timestamp(milliseconds: lastRefreshAt).rfc3339()) }
        if emailLinkSignin { o["emailLinkSignin"] = true }
        if let tenantId { o["tenantId"] = .string(tenantId) }
        return .object(o)
    }
}

/// Small typed readers over a request body, with Identity Toolkit error names.
struct Body {
    let o: [String: JSON]

    init(_ o: [String: JSON]) { self.o = o }

    /// A string field; numbers and booleans are accepted as their text (SDKs vary).
    func string(_ k: String) -> String? {
        switch o[k] {
        case .string(let s)?: return s
        case .int(let i)?: return String(i)
        case .bool(let b)?: return String(b)
        default: return nil
        }
    }

    /// A non-empty string field.
    func nonEmpty(_ k: String) -> String? { string(k).flatMap { $0.isEmpty ? nil : $0 } }

    /// A boolean field (also "true"/"false").
    func bool(_ k: String) -> Bool? {
        switch o[k] {
        case .bool(let b)?: return b
        case .string("true")?: return true
        case .string("false")?: return false
        default: return nil
        }
    }

    /// An integer field (also numeric strings, as the Node Admin SDK sends them).
    func int(_ k: String) -> Int64? {
        if let i = o[k]?.intValue { return i }
        if let s = o[k]?.stringValue { return Int64(s) }
        return nil
    }

    /// A list of strings (a single string counts as a one-element list).
    func strings(_ k: String) -> [String] {
        switch o[k] {
        case .array(let a)?: return a.compactMap(\.stringValue)
        case .string(let s)?: return [s]
        default: return []
        }
    }
}

/// Validation helpers with Firebase's messages.
enum AuthValidation {
    static func email(_ e: String) throws -> String {
        let parts = e.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { throw EmulatorError.authBadRequest("INVALID_EMAIL") }
        return e.lowercased()
    }

    static func password(_ p: String) throws {
        guard p.count >= 6 else { throw EmulatorError.authBadRequest("WEAK_PASSWORD : Password should be at least 6 characters") }
    }

    static func phone(_ p: String) throws {
        guard p.hasPrefix("+"), p.count >= 4, p.dropFirst().allSatisfy({ $0.isNumber || $0 == " " || $0 == "-" }) else {
            throw EmulatorError.authBadRequest("INVALID_PHONE_NUMBER : Invalid format.")
        }
    }
}
