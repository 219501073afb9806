import EmulatorCore

extension AuthService {
    /// `accounts:sendVerificationCode`: six digits, visible at `/emulator/v1/projects/{p}/verificationCodes`.
    public func sendVerificationCode(projectId: String, body raw: [String: JSON]) throws -> JSON {
        let b = Body(raw)
        if read(projectId, { $0.config.disabledProviders.contains("phone") }) { throw EmulatorError.authBadRequest("OPERATION_NOT_ALLOWED") }
        guard let phone = b.nonEmpty("phoneNumber") else { throw EmulatorError.authBadRequest("MISSING_PHONE_NUMBER") }
        try AuthValidation.phone(phone)
        let ids = env(projectId).ids
        let session = ids.string(length: 40, alphabet: IDGenerator.alphanumerics)
        let code = SmsCode(sessionInfo: session, phoneNumber: phone, code: ids.digits(6))
        write(projectId) { st in
            st.setSms(session, code)
        }
        logger.log(.info, "auth", "To verify the phone number \(phone), use the code \(code.code).")
        return ["sessionInfo": .string(session)]
    }

    /// `accounts:signInWithPhoneNumber`: signs in (or creates, or links to `idToken`'s user) the
    /// number's user. Codes are single-use.
    public func signInWithPhoneNumber(projectId: String, body raw: [String: JSON]) async throws -> JSON {
        let b = Body(raw)
        guard let session = b.nonEmpty("sessionInfo") else { throw EmulatorError.authBadRequest("MISSING_SESSION_INFO") }
        guard let code = b.nonEmpty("code") else { throw EmulatorError.authBadRequest("MISSING_CODE") }
        let sms = try write(projectId) { st -> SmsCode in
            guard let s = st.smsCodes[session] else { throw EmulatorError.authBadRequest("INVALID_SESSION_INFO") }
            guard s.code == code else { throw EmulatorError.authBadRequest("INVALID_CODE") }
            st.setSms(session, nil)
            return s
        }
        let phone = sms.phoneNumber
        var user: AuthUser
        var isNew = false
        if let token = b.string("idToken") {
            user = try userFromIDToken(projectId: projectId, token: token).1
            if let other = read(projectId, { $0.user(phone: phone) }), other.localId != user.localId {
                throw EmulatorError.authBadRequest("PHONE_NUMBER_EXISTS")
            }
        } else if let existing = read(projectId, { $0.user(phone: phone) }) {
            user = existing
        } else {
            if read(projectId, { $0.config.disableSignUp }) { throw EmulatorError.authBadRequest("ADMIN_ONLY_OPERATION") }
            user = AuthUser(localId: env(projectId).ids.uid(), now: now(projectId))
            isNew = true
        }
        if user.disabled { throw EmulatorError.authBadRequest("USER_DISABLED") }
        user.phoneNumber = phone
        user.upsertProvider(ProviderUserInfo(providerId: "phone", rawId: phone, phoneNumber: phone))
        let (_, tokens) = try await finishSignIn(projectId: projectId, user: user, isNew: isNew, method: "phone", provider: "phone")
        var o: [String: JSON] = ["isNewUser": .bool(isNew), "phoneNumber": .string(phone)]
        for (k, v) in tokens { o[k] = v }
        return .object(o)
    }

    /// `GET /emulator/v1/projects/{p}/verificationCodes`.
    public func listVerificationCodes(projectId: String) -> JSON {
        let codes = read(projectId) { st in st.smsOrder.compactMap { st.smsCodes[$0] } }
        return ["verificationCodes": .array(codes.map { ["code": .string($0.code), "phoneNumber": .string($0.phoneNumber), "sessionInfo": .string($0.sessionInfo)] })]
    }
}
