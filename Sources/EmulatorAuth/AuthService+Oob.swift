import EmulatorCore

extension AuthService {
    /// The longest `continueUrl` a code may carry (browsers' practical URL limit is near 2,000).
    static let maxContinueUrlBytes = 4096

    /// `accounts:sendOobCode`. `linkBase` is the emulator's own origin (e.g. `http://127.0.0.1:9099`)
    /// so links point at `/emulator/action`. The link is returned only to privileged callers
    /// asking `returnOobLink`.
    public func sendOobCode(projectId: String, tenantId: String? = nil, body raw: UTF8Dictionary<JSON>, privileged: Bool, linkBase: String)
        async throws -> JSON
    {
        let b = Body(raw)
        let sc = try scope(projectId, tenantId, b)
        guard let type = b.nonEmpty("requestType") else { throw EmulatorError.authBadRequest("MISSING_REQ_TYPE") }
        if b.bool("returnOobLink") == true && !privileged { throw EmulatorError.authBadRequest("INSUFFICIENT_PERMISSION") }
        if let c = b.nonEmpty("continueUrl") {
            if !c.contains("://") {
                throw EmulatorError.authBadRequest("INVALID_CONTINUE_URI : ((expected an absolute URI with valid scheme and host))")
            }
            // The URL is kept in the code's link until it is used: 8 MB of it cost 67 MB.
            if c.utf8.count > Self.maxContinueUrlBytes {
                throw EmulatorError.authBadRequest("INVALID_CONTINUE_URI : ((longer than \(Self.maxContinueUrlBytes) bytes))")
            }
        }
        let cfg = try policy(sc)
        var email: String
        var newEmail: String?
        var uid: String?
        switch type {
        case "PASSWORD_RESET":
            if !cfg.passwordEnabled && sc.tenantId != nil { throw EmulatorError.authBadRequest("PASSWORD_LOGIN_DISABLED") }
            guard let raw = b.string("email") else { throw EmulatorError.authBadRequest("MISSING_EMAIL") }
            email = try AuthValidation.email(raw)
            guard let u = read(sc, { $0.user(email: email) }) else {
                if cfg.improvedEmailPrivacy { return ["kind": "identitytoolkit#GetOobConfirmationCodeResponse", "email": .string(email)] }
                throw EmulatorError.authBadRequest("EMAIL_NOT_FOUND")
            }
            uid = u.localId
        case "VERIFY_EMAIL":
            let u: AuthUser
            if let token = b.string("idToken") {
                u = try userFromIDToken(sc, token: token).1
            } else if privileged, let raw = b.string("email") {
                guard let found = read(sc, { $0.user(email: raw.lowercased()) }) else { throw EmulatorError.authBadRequest("USER_NOT_FOUND") }
                u = found
            } else {
                throw EmulatorError.authBadRequest("MISSING_ID_TOKEN")
            }
            guard let e = u.email else { throw EmulatorError.authBadRequest("MISSING_EMAIL") }
            email = e
            uid = u.localId
        case "EMAIL_SIGNIN":
            if !cfg.emailLinkEnabled { throw EmulatorError.authBadRequest("OPERATION_NOT_ALLOWED") }
            guard let raw = b.string("email") else { throw EmulatorError.authBadRequest("MISSING_EMAIL") }
            email = try AuthValidation.email(raw)
            uid = read(sc) { $0.user(email: email)?.localId }
        case "VERIFY_AND_CHANGE_EMAIL":
            guard let token = b.string("idToken") else { throw EmulatorError.authBadRequest("MISSING_ID_TOKEN") }
            let u = try userFromIDToken(sc, token: token).1
            guard let raw = b.string("newEmail") else { throw EmulatorError.authBadRequest("MISSING_NEW_EMAIL") }
            let ne = try AuthValidation.email(raw)
            if let other = read(sc, { $0.user(email: ne) }), other.localId != u.localId { throw EmulatorError.authBadRequest("EMAIL_EXISTS") }
            email = u.email ?? ne
            newEmail = ne
            uid = u.localId
        default:
            throw EmulatorError.authBadRequest("INVALID_REQ_TYPE : \(type)")
        }
        let code = env(projectId).ids.string(length: 50, alphabet: IDGenerator.alphanumerics + "-_")
        let mode =
            [
                "PASSWORD_RESET": "resetPassword", "VERIFY_EMAIL": "verifyEmail", "EMAIL_SIGNIN": "signIn",
                "VERIFY_AND_CHANGE_EMAIL": "verifyAndChangeEmail",
            ][type] ?? type
        // projectId is our addition: the action page then finds the code without an API-key mapping.
        var link = "\(linkBase)/emulator/action?mode=\(mode)&lang=en&oobCode=\(code)&apiKey=fake-api-key&projectId=\(Self.percentEncode(projectId))"
        if let t = sc.tenantId { link += "&tenantId=\(Self.percentEncode(t))" }
        if let c = b.nonEmpty("continueUrl") { link += "&continueUrl=\(Self.percentEncode(c))" }
        let oob = OobCode(
            code: code, requestType: type, email: email, newEmail: newEmail, localId: uid, oobLink: link,
            issuedAt: env(projectId).clock.now().seconds)
        try write(sc) { $0.addOob(oob) }
        logger.log(.info, "auth", "To \(type == "EMAIL_SIGNIN" ? "sign in as" : "act on") \(email), follow this link: \(link)")
        var o: UTF8Dictionary<JSON> = ["kind": "identitytoolkit#GetOobConfirmationCodeResponse", "email": .string(newEmail ?? email)]
        if privileged && b.bool("returnOobLink") == true {
            o["oobLink"] = .string(link)
            o["oobCode"] = .string(code)
        }
        return .object(o)
    }

    /// RFC 3986 percent-encoding of everything but unreserved characters.
    public static func percentEncode(_ s: String) -> String {
        var out = ""
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                out.append(Character(UnicodeScalar(b)))
            default:
                let h = String(b, radix: 16, uppercase: true)
                out += "%" + (h.count == 1 ? "0" + h : h)
            }
        }
        return out
    }

    /// Consumes and applies a code: verifies the email, changes it, or resets the password.
    /// `EMAIL_SIGNIN` codes are applied by `signInWithEmailLink`, not here.
    @discardableResult
    public func applyOobCode(projectId: String, tenantId: String? = nil, code: String, newPassword: String?) throws -> OobCode {
        let sc = AuthScope(projectId, tenant: tenantId)
        _ = try policy(sc)
        let e = env(projectId)
        let now = e.clock.now()
        if let p = newPassword { try AuthValidation.password(p) }
        let hash = try newPassword.map { try hashPassword($0, ids: e.ids) }
        return try write(sc) { st in
            guard let oob = st.oobCodes[code], oob.requestType != "EMAIL_SIGNIN" else { throw EmulatorError.authBadRequest("INVALID_OOB_CODE") }
            if oob.isExpired(at: now) {
                _ = st.takeOob(code)
                throw EmulatorError.authBadRequest("EXPIRED_OOB_CODE")
            }
            if oob.requestType == "PASSWORD_RESET" && hash == nil { return oob }  // verifyPasswordResetCode
            guard let uid = oob.localId, var u = st.user(uid) else { throw EmulatorError.authBadRequest("USER_NOT_FOUND") }
            if u.disabled { throw EmulatorError.authBadRequest("USER_DISABLED") }
            switch oob.requestType {
            case "PASSWORD_RESET":
                u.password = hash
                u.validSince = now.seconds
                if let em = u.email {
                    u.emailVerified = true
                    u.upsertProvider(ProviderUserInfo(providerId: "password", rawId: em, email: em, displayName: u.displayName, photoUrl: u.photoUrl))
                }
            case "VERIFY_EMAIL":
                guard u.email == oob.email else { throw EmulatorError.authBadRequest("INVALID_OOB_CODE") }
                u.emailVerified = true
            case "VERIFY_AND_CHANGE_EMAIL":
                guard let ne = oob.newEmail else { throw EmulatorError.authBadRequest("INVALID_OOB_CODE") }
                if let other = st.user(email: ne), other.localId != u.localId { throw EmulatorError.authBadRequest("EMAIL_EXISTS") }
                u.email = ne
                u.emailVerified = true
                u.validSince = now.seconds
                if u.password != nil {
                    u.upsertProvider(ProviderUserInfo(providerId: "password", rawId: ne, email: ne, displayName: u.displayName, photoUrl: u.photoUrl))
                }
            default:
                throw EmulatorError.authBadRequest("INVALID_OOB_CODE")
            }
            st.put(u)
            _ = st.takeOob(code)
            return oob
        }
    }

    /// `accounts:resetPassword`: with `newPassword` applies a PASSWORD_RESET code; without it only
    /// reports any code's type and email (checkActionCode, verifyPasswordResetCode).
    public func resetPassword(projectId: String, tenantId: String? = nil, body raw: UTF8Dictionary<JSON>) throws -> JSON {
        let b = Body(raw)
        let sc = try scope(projectId, tenantId, b)
        let pol = try policy(sc)
        guard let code = b.nonEmpty("oobCode") else { throw EmulatorError.authBadRequest("MISSING_OOB_CODE") }
        guard let pending = read(sc, { $0.oobCodes[code] }), pending.requestType != "EMAIL_SIGNIN" else {
            throw EmulatorError.authBadRequest("INVALID_OOB_CODE")
        }
        // Without a new password this is checkActionCode / verifyPasswordResetCode: report, don't consume.
        let oob: OobCode
        if let pw = b.string("newPassword") {
            guard pending.requestType == "PASSWORD_RESET" else { throw EmulatorError.authBadRequest("INVALID_OOB_CODE") }
            if !pol.passwordEnabled && sc.tenantId != nil { throw EmulatorError.authBadRequest("PASSWORD_LOGIN_DISABLED") }
            oob = try applyOobCode(projectId: projectId, tenantId: sc.tenantId, code: code, newPassword: pw)
        } else {
            oob = pending
        }
        var o: UTF8Dictionary<JSON> = [
            "kind": "identitytoolkit#ResetPasswordResponse", "email": .string(oob.email), "requestType": .string(oob.requestType),
        ]
        if let ne = oob.newEmail { o["newEmail"] = .string(ne) }
        return .object(o)
    }

    /// `accounts:signInWithEmailLink`: creates or signs in the email's user (or links the email to
    /// the `idToken`'s user); the email becomes verified.
    public func signInWithEmailLink(projectId: String, tenantId: String? = nil, body raw: UTF8Dictionary<JSON>) async throws -> JSON {
        let b = Body(raw)
        let sc = try scope(projectId, tenantId, b)
        let cfg = try policy(sc)
        if !cfg.emailLinkEnabled { throw EmulatorError.authBadRequest("OPERATION_NOT_ALLOWED") }
        guard let code = b.nonEmpty("oobCode") else { throw EmulatorError.authBadRequest("MISSING_OOB_CODE") }
        guard let rawEmail = b.string("email") else { throw EmulatorError.authBadRequest("MISSING_EMAIL") }
        let email = try AuthValidation.email(rawEmail)
        guard let oob = read(sc, { $0.oobCodes[code] }), oob.requestType == "EMAIL_SIGNIN" else {
            throw EmulatorError.authBadRequest("INVALID_OOB_CODE")
        }
        if oob.isExpired(at: env(projectId).clock.now()) { throw EmulatorError.authBadRequest("EXPIRED_OOB_CODE") }
        guard oob.email == email else {
            throw EmulatorError.authBadRequest("INVALID_EMAIL : The email provided does not match the sign-in email address.")
        }
        let account = try resolveAccount(sc, policy: cfg, idToken: b.string("idToken"), identity: .emailLink(email: email))
        var user = account.user
        let (isNew, factor) = (account.isNew, account.secondFactor)
        if user.disabled { throw EmulatorError.authBadRequest("USER_DISABLED") }
        _ = try write(sc) { $0.takeOob(code) }
        user.email = email
        user.emailVerified = true
        user.emailLinkSignin = true
        user.upsertProvider(
            ProviderUserInfo(providerId: "password", rawId: email, email: email, displayName: user.displayName, photoUrl: user.photoUrl))
        let (_, tokens) = try await finishSignIn(
            sc, policy: cfg, user: user, isNew: isNew, method: "emailLink", provider: "password",
            challenge: b.string("idToken") == nil, secondFactor: factor)
        var o: UTF8Dictionary<JSON> = ["kind": "identitytoolkit#EmailLinkSigninResponse", "email": .string(email), "isNewUser": .bool(isNew)]
        for (k, v) in tokens { o[k] = v }
        return .object(o)
    }

    /// `GET /emulator/v1/projects/{p}/oobCodes`.
    public func listOobCodes(projectId: String, tenantId: String? = nil) throws -> JSON {
        if let t = tenantId, readProject(projectId, { $0.tenants[t] == nil }) { throw Self.tenantNotFound(t) }
        let codes = read(AuthScope(projectId, tenant: tenantId)) { st in st.oobOrder.compactMap { st.oobCodes[$0] } }
        return [
            "oobCodes": .array(
                codes.map { c in
                    var o: UTF8Dictionary<JSON> = [
                        "email": .string(c.email), "oobCode": .string(c.code), "oobLink": .string(c.oobLink), "requestType": .string(c.requestType),
                    ]
                    if let n = c.newEmail { o["newEmail"] = .string(n) }
                    return .object(o)
                })
        ]
    }
}
