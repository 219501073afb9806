import EmulatorCore

extension AuthService {
    /// `accounts:sendVerificationCode`: six digits (a test number's fixed code), visible at
    /// `/emulator/v1/projects/{p}/verificationCodes` (or the tenant's list), valid ten minutes.
    ///
    /// Older iOS SDKs in emulator mode send this with the **masked** hint number
    /// (`+*******0100`) to start an MFA sign-in; the code is minted for the masked number and
    /// `mfaSignIn:finalize` finds the enrolment through it. They also send it with the real
    /// number to enrol a phone factor; `mfaEnrollment:finalize` accepts that session.
    public func sendVerificationCode(projectId: String, tenantId: String? = nil, body raw: UTF8Dictionary<JSON>) throws -> JSON {
        let b = Body(raw)
        let sc = try scope(projectId, tenantId, b)
        let pol = try policy(sc)
        if !pol.phoneEnabled { throw EmulatorError.authBadRequest("OPERATION_NOT_ALLOWED") }
        guard let phone = b.nonEmpty("phoneNumber") else { throw EmulatorError.authBadRequest("MISSING_PHONE_NUMBER") }
        if !MfaEnrollment.isMasked(phone) {
            try AuthValidation.phone(phone)
            if pol.mfa.isEnabled, let owner = read(sc, { $0.user(phone: phone) }), !owner.mfaInfo.isEmpty {
                throw Self.phoneFirstFactorOnMfaUser
            }
        }
        let session = try sendSms(sc, policy: pol, to: phone, purpose: .signIn)
        return ["sessionInfo": .string(session)]
    }

    /// `UNSUPPORTED_FIRST_FACTOR` for a phone first factor on an MFA user.
    static let phoneFirstFactorOnMfaUser = EmulatorError.authBadRequest(
        "UNSUPPORTED_FIRST_FACTOR : A phone number cannot be set as a first factor on an SMS based MFA user.")

    /// Mints and records an SMS code (a test number's fixed code when configured), logs it as
    /// Firebase's emulator does, and returns the session.
    func sendSms(
        _ sc: AuthScope, policy: AuthPolicy, to phone: String, purpose: SmsCode.Purpose, localId: String? = nil,
        enrollmentId: String? = nil, pendingCredential: String? = nil
    ) throws -> String {
        let ids = env(sc.projectId).ids
        let session = ids.string(length: 40, alphabet: IDGenerator.alphanumerics)
        let code = policy.testPhoneNumbers[phone] ?? ids.digits(6)
        let sms = SmsCode(
            sessionInfo: session, phoneNumber: phone, code: code, issuedAt: now(sc).seconds, purpose: purpose,
            localId: localId, mfaEnrollmentId: enrollmentId, mfaPendingCredential: pendingCredential)
        try write(sc) { $0.setSms(session, sms) }
        switch purpose {
        case .signIn: logger.log(.info, "auth", "To verify the phone number \(phone), use the code \(code).")
        case .mfaEnrollment: logger.log(.info, "auth", "To enroll MFA with \(phone), use the code \(code).")
        case .mfaSignIn: logger.log(.info, "auth", "To sign in with MFA using \(phone), use the code \(code).")
        }
        return session
    }

    /// Checks `code` against the SMS session without consuming it: `INVALID_SESSION_INFO`
    /// (unknown), `SESSION_EXPIRED` (older than ten minutes; the session is dropped),
    /// `TOO_MANY_ATTEMPTS_TRY_LATER` (too many wrong codes for the session or the number;
    /// `AttemptLimiter`) or `INVALID_CODE` (a wrong guess keeps the session).
    func checkSms(_ sc: AuthScope, session: String, code: String) throws -> SmsCode {
        let now = now(sc)
        return try write(sc) { st -> SmsCode in
            guard let s = st.smsCodes[session] else { throw EmulatorError.authBadRequest("INVALID_SESSION_INFO") }
            if s.isExpired(at: now) {
                st.setSms(session, nil)
                throw EmulatorError.authBadRequest("SESSION_EXPIRED")
            }
            try st.checkCode(s.code == code, subject: "phone:" + s.phoneNumber, session: session, now: now.seconds) { $0.setSms(session, nil) }
            return s
        }
    }

    /// `accounts:signInWithPhoneNumber`: signs in (or creates, or links to `idToken`'s user) the
    /// number's user. Codes are single-use and checked before anything changes.
    public func signInWithPhoneNumber(projectId: String, tenantId: String? = nil, body raw: UTF8Dictionary<JSON>) async throws -> JSON {
        let b = Body(raw)
        let sc = try scope(projectId, tenantId, b)
        let pol = try policy(sc)
        guard let session = b.nonEmpty("sessionInfo") else { throw EmulatorError.authBadRequest("MISSING_SESSION_INFO") }
        guard let code = b.nonEmpty("code") else { throw EmulatorError.authBadRequest("MISSING_CODE") }
        let sms = try checkSms(sc, session: session, code: code)
        // Codes minted for MFA (or for a masked hint number) prove a second factor, not a number.
        guard sms.purpose == .signIn, !MfaEnrollment.isMasked(sms.phoneNumber) else { throw EmulatorError.authBadRequest("INVALID_SESSION_INFO") }
        let phone = sms.phoneNumber
        let account = try resolveAccount(sc, policy: pol, idToken: b.string("idToken"), identity: .phone(number: phone))
        var user = account.user
        let (isNew, factor) = (account.isNew, account.secondFactor)
        if user.disabled { throw EmulatorError.authBadRequest("USER_DISABLED") }
        if pol.mfa.isEnabled, !user.mfaInfo.isEmpty { throw Self.phoneFirstFactorOnMfaUser }
        // Consume the code now that nothing else can fail before the sign-in is recorded.
        guard
            try write(
                sc,
                { st -> Bool in
                    guard st.smsCodes[session] != nil else { return false }
                    st.setSms(session, nil)
                    return true
                })
        else { throw EmulatorError.authBadRequest("INVALID_SESSION_INFO") }
        user.phoneNumber = phone
        user.upsertProvider(ProviderUserInfo(providerId: "phone", rawId: phone, phoneNumber: phone))
        let (_, tokens) = try await finishSignIn(sc, policy: pol, user: user, isNew: isNew, method: "phone", provider: "phone", secondFactor: factor)
        var o: UTF8Dictionary<JSON> = ["isNewUser": .bool(isNew), "phoneNumber": .string(phone)]
        for (k, v) in tokens { o[k] = v }
        return .object(o)
    }

    /// `GET /emulator/v1/projects/{p}[/tenants/{t}]/verificationCodes`: unconsumed codes in issue order.
    public func listVerificationCodes(projectId: String, tenantId: String? = nil) throws -> JSON {
        let sc = AuthScope(projectId, tenant: tenantId)
        if let t = tenantId, readProject(projectId, { $0.tenants[t] == nil }) { throw Self.tenantNotFound(t) }
        let codes = read(sc) { st in st.smsOrder.compactMap { st.smsCodes[$0] } }
        return [
            "verificationCodes": .array(
                codes.map { ["code": .string($0.code), "phoneNumber": .string($0.phoneNumber), "sessionInfo": .string($0.sessionInfo)] })
        ]
    }
}
