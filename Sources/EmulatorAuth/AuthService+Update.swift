import EmulatorCore

extension AuthService {
    /// `accounts:update` (setAccountInfo): by `idToken` (end user), by `localId` (admin), or by
    /// `oobCode` (apply a verification / email change).
    public func update(projectId: String, tenantId: String? = nil, body raw: UTF8Dictionary<JSON>, privileged: Bool) async throws -> JSON {
        let b = Body(raw)
        let sc = try scope(projectId, tenantId, b)
        _ = try policy(sc)
        if let code = b.nonEmpty("oobCode"), b.string("idToken") == nil, b.string("localId") == nil {
            let oob = try applyOobCode(projectId: projectId, tenantId: sc.tenantId, code: code, newPassword: nil)
            var o: UTF8Dictionary<JSON> = [
                "kind": "identitytoolkit#SetAccountInfoResponse", "email": .string(oob.newEmail ?? oob.email),
                "requestType": .string(oob.requestType),
            ]
            if let id = oob.localId { o["localId"] = .string(id) }
            return .object(o)
        }
        let e = env(projectId)
        let now = e.clock.now()
        var user: AuthUser
        var byToken = false
        var provider = "password"
        var factor: SecondFactor?
        if privileged, let uid = b.nonEmpty("localId") {
            guard let u = read(sc, { $0.user(uid) }) else { throw EmulatorError.authBadRequest("USER_NOT_FOUND") }
            user = u
        } else if let token = b.string("idToken") {
            let (ctx, u) = try userFromIDToken(sc, token: token)
            user = u
            byToken = true
            provider = ctx.signInProvider ?? "password"
            factor = Self.secondFactor(of: ctx, user: u)
        } else if privileged {
            throw EmulatorError.authBadRequest("MISSING_LOCAL_ID")
        } else {
            throw EmulatorError.authBadRequest("INVALID_REQ_TYPE : Unsupported request parameters.")
        }
        if !privileged {
            for k in ["customAttributes", "emailVerified", "disableUser", "phoneNumber", "linkProviderUserInfo", "mfa"] where raw[k] != nil {
                throw EmulatorError.authBadRequest(k == "disableUser" ? "OPERATION_NOT_ALLOWED" : "INSUFFICIENT_PERMISSION")
            }
        }
        var revoke = false
        if let raw = b.string("email") {
            let email = try AuthValidation.email(raw)
            if let other = read(sc, { $0.user(email: email) }), other.localId != user.localId { throw EmulatorError.authBadRequest("EMAIL_EXISTS") }
            if user.email != email {
                user.email = email
                user.emailVerified = false
                revoke = true
                if user.password != nil {
                    user.upsertProvider(
                        ProviderUserInfo(providerId: "password", rawId: email, email: email, displayName: user.displayName, photoUrl: user.photoUrl))
                }
            }
        }
        if let p = b.string("password") {
            try AuthValidation.password(p)
            user.password = try hashPassword(p, ids: e.ids)
            if let email = user.email {
                user.upsertProvider(
                    ProviderUserInfo(providerId: "password", rawId: email, email: email, displayName: user.displayName, photoUrl: user.photoUrl))
            }
            revoke = true
        }
        if let n = b.string("displayName") { user.displayName = n.isEmpty ? nil : n }
        if let p = b.string("photoUrl") { user.photoUrl = p.isEmpty ? nil : p }
        for attr in b.strings("deleteAttribute") {
            switch attr {
            case "DISPLAY_NAME": user.displayName = nil
            case "PHOTO_URL": user.photoUrl = nil
            case "EMAIL":
                user.email = nil
                user.emailVerified = false
            case "PASSWORD":
                user.password = nil
                user.providers.removeAll { $0.providerId == "password" }
            default: throw EmulatorError(.unimplemented, "deleteAttribute \(attr) is not implemented in the Auth Emulator.")
            }
        }
        for p in b.strings("deleteProvider") {
            user.providers.removeAll { $0.providerId == p }
            if p == "password" {
                user.password = nil
                user.email = nil
                user.emailVerified = false
            }
            if p == "phone" { user.phoneNumber = nil }
        }
        if privileged {
            if let v = b.bool("emailVerified") { user.emailVerified = v }
            if let v = b.bool("disableUser") { user.disabled = v }
            if let c = b.string("customAttributes") {
                user.customAttributes = c.isEmpty ? nil : c
                if !c.isEmpty { _ = try Self.validateClaims(c) }
            }
            if let v = b.int("validSince") { user.validSince = v }
            if let p = b.string("phoneNumber") {
                if p.isEmpty {
                    user.phoneNumber = nil
                    user.providers.removeAll { $0.providerId == "phone" }
                } else {
                    try AuthValidation.phone(p)
                    if let other = read(sc, { $0.user(phone: p) }), other.localId != user.localId {
                        throw EmulatorError.authBadRequest("PHONE_NUMBER_EXISTS")
                    }
                    user.phoneNumber = p
                    user.upsertProvider(ProviderUserInfo(providerId: "phone", rawId: p, phoneNumber: p))
                }
            }
            if case .object(let info)? = raw["linkProviderUserInfo"] {
                let ib = Body(info)
                guard let pid = ib.nonEmpty("providerId") else { throw EmulatorError.authBadRequest("MISSING_PROVIDER_ID") }
                guard let rid = ib.nonEmpty("rawId") else { throw EmulatorError.authBadRequest("MISSING_RAW_ID") }
                if let other = read(sc, { $0.user(providerId: pid, rawId: rid) }), other.localId != user.localId {
                    throw EmulatorError.authBadRequest("FEDERATED_USER_ID_ALREADY_LINKED")
                }
                user.upsertProvider(
                    ProviderUserInfo(
                        providerId: pid, rawId: rid, email: ib.string("email"), displayName: ib.string("displayName"), photoUrl: ib.string("photoUrl")
                    ))
            }
            if let mfa = raw["mfa"], !mfa.isNull {
                user.mfaInfo = try adminEnrollments(mfa, existing: user.mfaInfo, now: now, ids: e.ids)
            }
        } else if b.string("validSince") != nil {
            revoke = true
        }
        if revoke { user.validSince = now.seconds }
        let final = user
        try write(sc) { st in
            guard st.user(final.localId) != nil else { throw EmulatorError.authBadRequest("USER_NOT_FOUND") }
            st.put(final)
        }
        var o: UTF8Dictionary<JSON> = [
            "kind": "identitytoolkit#SetAccountInfoResponse", "localId": .string(final.localId),
            "emailVerified": .bool(final.emailVerified), "providerUserInfo": .array(final.providers.map(\.json)),
        ]
        if let v = final.email { o["email"] = .string(v) }
        if let v = final.displayName { o["displayName"] = .string(v) }
        if let v = final.photoUrl { o["photoUrl"] = .string(v) }
        if let v = final.password { o["passwordHash"] = .string(Base64.encode(v.hash)) }
        // Changing a credential revokes old tokens, so the caller gets fresh ones (as production does).
        if byToken && (revoke || b.bool("returnSecureToken") == true) {
            let (_, tokens) = try signIn(
                sc, user: final, provider: provider, secondFactor: factor.flatMap { final.mfaEnrollment($0.enrollmentId) != nil ? $0 : nil })
            for k in ["idToken", "refreshToken", "expiresIn"] { o[k] = tokens[k] }
        }
        return .object(o)
    }
}
