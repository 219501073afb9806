import EmulatorCore

extension AuthUser {
    /// The `accounts:lookup` / `batchGet` shape: numbers as strings, hashes in base64.
    public var json: JSON {
        var o: UTF8Dictionary<JSON> = [
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
        if !mfaInfo.isEmpty { o["mfaInfo"] = .array(mfaInfo.map(\.json)) }
        return .object(o)
    }
}
