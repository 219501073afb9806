import EmulatorCore

/// The wire of Auth blocking functions as the Firebase SDKs serve them: the request body
/// `{"data": {"jwt": <JWT>}}` whose claims carry the user record in snake_case, and the answer
/// `{"userRecord": {..., "updateMask": "displayName,photoURL,..."}}`. The JWT is unsigned
/// (`alg: none`), as the Auth emulator sends it; the SDKs accept that in emulator mode. Pure.
public enum BlockingPayload {
    /// The JWT claims for `event` (`beforeCreate` / `beforeSignIn`) about `user` (Identity
    /// Toolkit JSON, as `AuthUser.json` gives it), as firebase-tools' Auth emulator builds them:
    /// `locale`, `sign_in_second_factor`, and from an IdP sign-in's `credential` (the host's
    /// `BlockingCredential` JSON) `raw_user_info` and `sign_in_attributes` always, and the OAuth
    /// tokens only when the function asked for them (`forward`: `idToken`, `accessToken`,
    /// `refreshToken`, the decorator's options), as production forwards them.
    public static func claims(
        project: String, event: String, signInMethod: String, user: JSON, eventId: String, now: Timestamp,
        audience: String, secondFactor: String? = nil, credential: JSON? = nil, locale: String = "en",
        forward: Set<String> = []
    ) -> UTF8Dictionary<JSON> {
        let uid = user["localId"]?.stringValue ?? ""
        var claims: UTF8Dictionary<JSON> = [
            "iss": .string("https://securetoken.google.com/\(project)"), "aud": .string(audience), "iat": .int(now.seconds),
            "exp": .int(now.seconds + 3600), "event_id": .string(eventId), "event_type": .string(event), "user_agent": "FirebaseEmulator",
            "ip_address": "127.0.0.1", "sub": .string(uid), "sign_in_method": .string(signInMethod), "user_record": userRecord(user),
            "locale": .string(locale),
        ]
        if let t = user["tenantId"]?.stringValue { claims["tenant_id"] = .string(t) }
        if let f = secondFactor { claims["sign_in_second_factor"] = .string(f) }
        if let c = credential {
            if let v = c["rawUserInfo"]?.stringValue { claims["raw_user_info"] = .string(v) }
            if let v = c["signInAttributes"] { claims["sign_in_attributes"] = v }
            if forward.contains("idToken"), let v = c["idToken"]?.stringValue { claims["oauth_id_token"] = .string(v) }
            if forward.contains("accessToken") {
                if let v = c["accessToken"]?.stringValue { claims["oauth_access_token"] = .string(v) }
                if let v = c["tokenSecret"]?.stringValue { claims["oauth_token_secret"] = .string(v) }
                if let v = c["expiresIn"]?.intValue { claims["oauth_expires_in"] = .int(v) }
            }
            if forward.contains("refreshToken"), let v = c["refreshToken"]?.stringValue { claims["oauth_refresh_token"] = .string(v) }
        }
        return claims
    }

    /// The user record as the SDK decodes it (`metadata.creation_time` and `provider_data` are required).
    public static func userRecord(_ u: JSON) -> JSON {
        var r: UTF8Dictionary<JSON> = [
            "uid": u["localId"] ?? "", "email_verified": .bool(u["emailVerified"]?.boolValue ?? false),
            "disabled": .bool(u["disabled"]?.boolValue ?? false),
        ]
        let copies = [
            ("email", "email"), ("displayName", "display_name"), ("photoUrl", "photo_url"), ("phoneNumber", "phone_number"),
            ("tenantId", "tenant_id"),
        ]
        for (from, to) in copies { if let v = u[from]?.stringValue { r[to] = .string(v) } }
        if let text = u["customAttributes"]?.stringValue, case .object(let c)? = try? JSON.parse(text), !c.isEmpty { r["custom_claims"] = .object(c) }
        var metadata: UTF8Dictionary<JSON> = ["creation_time": .int(number(u["createdAt"]) ?? 0)]
        if let last = number(u["lastLoginAt"]) { metadata["last_sign_in_time"] = .int(last) }
        r["metadata"] = .object(metadata)
        if let valid = number(u["validSince"]) { r["tokens_valid_after_time"] = .int(valid) }
        r["provider_data"] = .array(
            (u["providerUserInfo"]?.arrayValue ?? []).map { p in
                var o: UTF8Dictionary<JSON> = ["uid": p["rawId"] ?? p["federatedId"] ?? "", "provider_id": p["providerId"] ?? ""]
                for (from, to) in [("email", "email"), ("displayName", "display_name"), ("photoUrl", "photo_url"), ("phoneNumber", "phone_number")] {
                    if let v = p[from]?.stringValue { o[to] = .string(v) }
                }
                return .object(o)
            })
        if case .array(let factors)? = u["mfaInfo"], !factors.isEmpty {
            r["multi_factor"] = [
                "enrolled_factors": .array(
                    factors.map { f in
                        var o: UTF8Dictionary<JSON> = [
                            "uid": f["mfaEnrollmentId"] ?? "",
                            "factor_id": f["phoneInfo"] != nil ? "phone" : (f["totpInfo"] != nil ? "totp" : "phone"),
                        ]
                        if let d = f["displayName"]?.stringValue { o["display_name"] = .string(d) }
                        if let p = f["phoneInfo"]?.stringValue { o["phone_number"] = .string(p) }
                        if let t = f["enrolledAt"]?.stringValue { o["enrollment_time"] = .string(t) }
                        return .object(o)
                    })
            ]
        }
        return .object(r)
    }

    /// A number given as a number or as decimal text.
    static func number(_ v: JSON?) -> Int64? { v?.intValue ?? v?.stringValue.flatMap { Int64($0) } }

    /// An unsigned JWT (`{"alg":"none","typ":"JWT"}`) carrying `claims`.
    public static func unsignedJWT(_ claims: UTF8Dictionary<JSON>) -> String {
        Base64.urlEncode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8)) + "." + Base64.urlEncode(JSON.object(claims).serializedBytes()) + "."
    }

    /// The request body for the function.
    public static func body(jwt: String) -> [UInt8] { JSON.object(["data": ["jwt": .string(jwt)]]).serializedBytes() }

    /// The changes a function's answer asks for, in the host's flat shape (`displayName`,
    /// `disabled`, `emailVerified`, `photoUrl`, `customClaims`, `sessionClaims`): only the fields
    /// named in `updateMask` (both `photoURL`, which the SDKs send, and `photoUrl` are accepted), or
    /// nil when nothing changes. Throws `INVALID_ARGUMENT` for an answer of the wrong shape.
    public static func changes(fromResponse body: JSON) throws -> JSON? {
        guard case .object(let root) = body else {
            throw HttpsError(.invalidArgument, "the blocking function answered something other than a JSON object")
        }
        guard let record = root["userRecord"] else { return nil }
        guard case .object(let r) = record else {
            throw HttpsError(.invalidArgument, "userRecord in the blocking function's answer is not an object")
        }
        let mask = Set((r["updateMask"]?.stringValue ?? "").split(separator: ",").map { $0.trimming(" ") })
        var out: UTF8Dictionary<JSON> = [:]
        for key in mask {
            switch key {
            case "displayName", "disabled", "emailVerified", "customClaims", "sessionClaims":
                if let v = r[key] { out[key] = v }
            case "photoURL", "photoUrl":
                if let v = r["photoURL"] ?? r["photoUrl"] { out["photoUrl"] = v }
            default: continue
            }
        }
        return out.isEmpty ? nil : .object(out)
    }
}
