import EmulatorCore

extension AuthService {
    /// Answers a first factor for an MFA user: stores what the first factor changed (not
    /// `lastLoginAt`), records an opaque pending credential bound to this pool (ten minutes on the
    /// project clock), and returns `{localId, mfaPendingCredential, mfaInfo}` with masked hints.
    func startMfaChallenge(_ sc: AuthScope, user: AuthUser, provider: String, method: String) throws -> (AuthUser, UTF8Dictionary<JSON>) {
        let e = env(sc.projectId)
        let now = e.clock.now()
        let credential = e.ids.string(length: 64, alphabet: IDGenerator.alphanumerics)
        let pending = MfaSession(id: credential, kind: .signIn, localId: user.localId, provider: provider, method: method, issuedAt: now.seconds)
        let stored = try write(sc) { st -> AuthUser in
            var u = user
            if let old = st.user(user.localId) {
                u.lastLoginAt = old.lastLoginAt
                u.lastRefreshAt = old.lastRefreshAt
            }
            st.put(u)
            // Expired sessions of the pool go whenever a new one is made, so they cannot pile up.
            for (id, s) in st.mfaSessions where s.isExpired(at: now) { st.setMfaSession(id, nil) }
            st.setMfaSession(credential, pending)
            return u
        }
        return (
            stored,
            [
                "localId": .string(stored.localId), "mfaPendingCredential": .string(credential),
                "mfaInfo": .array(stored.mfaInfo.map(\.hint)),
            ]
        )
    }

    /// The pending sign-in behind `credential` and its user: `INVALID_MFA_PENDING_CREDENTIAL`
    /// when unknown in this pool (another project's or tenant's, or already used) or expired;
    /// `USER_DISABLED` for a disabled user.
    private func pendingSignIn(_ sc: AuthScope, _ credential: String) throws -> (MfaSession, AuthUser) {
        let now = now(sc)
        return try write(sc) { st in
            guard let p = st.mfaSessions[credential], p.kind == .signIn, let u = st.user(p.localId) else {
                throw EmulatorError.authBadRequest("INVALID_MFA_PENDING_CREDENTIAL")
            }
            if p.isExpired(at: now) {
                st.setMfaSession(credential, nil)
                throw EmulatorError.authBadRequest("INVALID_MFA_PENDING_CREDENTIAL : ((The MFA pending credential has expired; sign in again.))")
            }
            if u.disabled { throw EmulatorError.authBadRequest("USER_DISABLED") }
            return (p, u)
        }
    }

    /// `v2 accounts/mfaSignIn:start` (phone only): sends a code to the **stored** number of the
    /// chosen enrolment (any `phoneSignInInfo.phoneNumber` is ignored; iOS sends the masked one).
    public func mfaSignInStart(projectId: String, tenantId: String? = nil, body raw: UTF8Dictionary<JSON>) throws -> JSON {
        let b = Body(raw)
        let sc = try scope(projectId, tenantId, b)
        let pol = try policy(sc)
        try requireSmsMfa(pol)
        guard let credential = b.nonEmpty("mfaPendingCredential") else {
            throw EmulatorError.authBadRequest("MISSING_MFA_PENDING_CREDENTIAL : Request does not have MFA pending credential.")
        }
        guard let enrollmentId = b.nonEmpty("mfaEnrollmentId") else {
            throw EmulatorError.authBadRequest("MISSING_MFA_ENROLLMENT_ID : No second factor identifier is provided.")
        }
        let (_, user) = try pendingSignIn(sc, credential)
        guard let f = user.mfaEnrollment(enrollmentId) else { throw EmulatorError.authBadRequest("MFA_ENROLLMENT_NOT_FOUND") }
        guard let phone = f.phoneNumber else { throw EmulatorError.authBadRequest("INVALID_ARGUMENT : MFA provider not supported!") }
        let session = try sendSms(
            sc, policy: pol, to: phone, purpose: .mfaSignIn, localId: user.localId, enrollmentId: f.mfaEnrollmentId,
            pendingCredential: credential)
        return ["phoneResponseInfo": ["sessionInfo": .string(session)]]
    }

    /// `v2 accounts/mfaSignIn:finalize`: phone (`phoneVerificationInfo{sessionInfo, code}`; the
    /// enrolment is found through the code's session, also for codes older iOS SDKs got from
    /// `sendVerificationCode` with the masked hint number) or TOTP (`mfaEnrollmentId` +
    /// `totpVerificationInfo{verificationCode}`). Everything is checked before anything changes;
    /// then `beforeSignIn` runs, the code is used up, `lastLoginAt` moves (`auth_time` = now) and
    /// the tokens carry the second factor.
    public func mfaSignInFinalize(projectId: String, tenantId: String? = nil, body raw: UTF8Dictionary<JSON>) async throws -> JSON {
        let b = Body(raw)
        let sc = try scope(projectId, tenantId, b)
        let pol = try policy(sc)
        let totp = raw["totpVerificationInfo"] != nil && raw["phoneVerificationInfo"] == nil
        if totp { try requireTotpMfa(pol) } else { try requireSmsMfa(pol) }
        guard let credential = b.nonEmpty("mfaPendingCredential") else {
            throw EmulatorError.authBadRequest("MISSING_CREDENTIAL : Please set MFA Pending Credential.")
        }
        guard case .object(let info)? = raw[totp ? "totpVerificationInfo" : "phoneVerificationInfo"] else {
            throw EmulatorError.authBadRequest("INVALID_ARGUMENT : MFA provider not supported!")
        }
        let ib = Body(info)
        let (pending, user) = try pendingSignIn(sc, credential)
        let now = now(sc)
        let factor: MfaEnrollment
        var smsSession: String?
        var totpStep: Int64?
        if totp {
            guard let id = b.nonEmpty("mfaEnrollmentId") else {
                throw EmulatorError.authBadRequest("MISSING_MFA_ENROLLMENT_ID : No second factor identifier is provided.")
            }
            guard let f = user.mfaEnrollment(id) else { throw EmulatorError.authBadRequest("MFA_ENROLLMENT_NOT_FOUND") }
            guard let secret = f.totpSecret else { throw EmulatorError.authBadRequest("INVALID_ARGUMENT : MFA provider not supported!") }
            guard let code = ib.nonEmpty("verificationCode") else { throw EmulatorError.authBadRequest("MISSING_CODE") }
            // A code already accepted (or an older one) is refused: RFC 6238 §5.2. Wrong codes
            // count against the pending credential and the factor (`AttemptLimiter`).
            let match = TOTP.match(code, secret: secret, at: now.seconds, window: pol.mfa.adjacentIntervals, usedUpTo: f.totpLastCounter)
            try write(sc) { st in
                try st.checkCode(match != nil, subject: "totp:\(user.localId)/\(id)", session: credential, now: now.seconds) {
                    $0.setMfaSession(credential, nil)
                }
            }
            guard let step = match else { throw EmulatorError.authBadRequest("INVALID_CODE") }
            factor = f
            totpStep = step
        } else {
            guard let code = ib.nonEmpty("code") else { throw EmulatorError.authBadRequest("MISSING_CODE") }
            guard let session = ib.nonEmpty("sessionInfo") else { throw EmulatorError.authBadRequest("MISSING_SESSION_INFO") }
            let sms = try checkSms(sc, session: session, code: code)
            factor = try Self.enrollment(provedBy: sms, user: user, credential: credential)
            smsSession = session
        }
        var hooked = user
        let session = try await runBlocking(
            sc, user: &hooked, isNew: false, method: pending.method ?? pending.provider ?? "password", secondFactor: factor.kind)
        let e = env(projectId)
        let second = SecondFactor(kind: factor.kind, enrollmentId: factor.mfaEnrollmentId)
        let provider = pending.provider ?? "password"
        // Commit: everything checked above is checked again under the lock (another request may
        // have used the code or credential while the hooks ran).
        let (u, refresh) = try write(sc) { st -> (AuthUser, String) in
            guard st.mfaSessions[credential] != nil else { throw EmulatorError.authBadRequest("INVALID_MFA_PENDING_CREDENTIAL") }
            guard var cur = st.user(user.localId), let index = cur.mfaInfo.firstIndex(where: { $0.mfaEnrollmentId == factor.mfaEnrollmentId }) else {
                throw EmulatorError.authBadRequest("MFA_ENROLLMENT_NOT_FOUND")
            }
            if let s = smsSession, st.smsCodes[s] == nil { throw EmulatorError.authBadRequest("INVALID_SESSION_INFO") }
            if let step = totpStep {
                if let used = cur.mfaInfo[index].totpLastCounter, step <= used { throw EmulatorError.authBadRequest("INVALID_CODE") }
                cur.mfaInfo[index].totpLastCounter = step
            }
            // Only what the hooks changed (an admin may have changed other fields meanwhile).
            if hooked.displayName != user.displayName { cur.displayName = hooked.displayName }
            if hooked.disabled != user.disabled { cur.disabled = hooked.disabled }
            if hooked.emailVerified != user.emailVerified { cur.emailVerified = hooked.emailVerified }
            if hooked.customAttributes != user.customAttributes { cur.customAttributes = hooked.customAttributes }
            if let s = smsSession { st.setSms(s, nil) }
            st.setMfaSession(credential, nil)
            if cur.disabled {
                st.put(cur)
                return (cur, "")
            }
            return recordSignIn(&st, user: cur, provider: provider, extra: session, secondFactor: second, now: now, ids: e.ids)
        }
        if u.disabled { throw EmulatorError.authBadRequest("USER_DISABLED") }
        let idToken = try mintIDToken(projectId: projectId, user: u, provider: provider, extra: session, secondFactor: second, now: now)
        return ["idToken": .string(idToken), "refreshToken": .string(refresh)]
    }

    /// The enrolment an SMS code proves for `user`: the one `mfaSignIn:start` named, or (older
    /// iOS SDKs) the phone factor whose number, or masked number, the code was sent to.
    static func enrollment(provedBy sms: SmsCode, user: AuthUser, credential: String) throws -> MfaEnrollment {
        switch sms.purpose {
        case .mfaSignIn:
            guard sms.localId == user.localId, sms.mfaPendingCredential == credential else {
                throw EmulatorError.authBadRequest("INVALID_SESSION_INFO")
            }
            guard let id = sms.mfaEnrollmentId, let f = user.mfaEnrollment(id) else { throw EmulatorError.authBadRequest("MFA_ENROLLMENT_NOT_FOUND") }
            return f
        case .signIn:
            let masked = MfaEnrollment.isMasked(sms.phoneNumber)
            let candidates = user.mfaInfo.filter { f in
                guard let p = f.phoneNumber else { return false }
                return masked ? MfaEnrollment.mask(p) == sms.phoneNumber : p == sms.phoneNumber
            }
            guard let f = candidates.first else { throw EmulatorError.authBadRequest("MFA_ENROLLMENT_NOT_FOUND") }
            guard candidates.count == 1 else {
                throw EmulatorError.authBadRequest(
                    "MFA_ENROLLMENT_NOT_FOUND : ((\(sms.phoneNumber) matches more than one second factor; use mfaSignIn:start.))")
            }
            return f
        case .mfaEnrollment:
            throw EmulatorError.authBadRequest("INVALID_SESSION_INFO")
        }
    }
}
