import EmulatorCore
import EmulatorCrypto

extension AuthService {
    /// How recent (project clock) the first-factor sign-in must be to enrol or withdraw a factor.
    static let recentSignInSeconds: Int64 = 300
    /// Second factors one user may hold (`SECOND_FACTOR_LIMIT_EXCEEDED` beyond).
    static let maxSecondFactors = 5
    /// First factors production refuses MFA for (`firebase.sign_in_provider`).
    static let mfaIneligibleProviders: Set<String> = ["anonymous", "phone", "custom", "gc.apple.com"]

    /// `OPERATION_NOT_ALLOWED` unless SMS second factors are enabled for the pool.
    func requireSmsMfa(_ pol: AuthPolicy) throws {
        guard pol.mfa.phoneEnabled else { throw EmulatorError.authBadRequest("OPERATION_NOT_ALLOWED : SMS based MFA not enabled.") }
    }

    /// `OPERATION_NOT_ALLOWED` unless TOTP second factors are enabled for the pool.
    func requireTotpMfa(_ pol: AuthPolicy) throws {
        guard pol.mfa.totpEnabled else { throw EmulatorError.authBadRequest("OPERATION_NOT_ALLOWED : TOTP based MFA not enabled.") }
    }

    /// The caller of an enrolment call, checked in production's order: the ID token, an
    /// MFA-eligible first factor, a verified email, then a recent sign-in.
    private func mfaCaller(_ sc: AuthScope, _ b: Body, eligible: Bool, verifiedEmail: Bool, recent: Bool) throws -> (AuthContext, AuthUser) {
        guard let token = b.nonEmpty("idToken") else { throw EmulatorError.authBadRequest("MISSING_ID_TOKEN") }
        let (ctx, user) = try userFromIDToken(sc, token: token)
        if eligible, Self.mfaIneligibleProviders.contains(ctx.signInProvider ?? "") {
            throw EmulatorError.authBadRequest("UNSUPPORTED_FIRST_FACTOR : MFA is not available for the given first factor.")
        }
        if verifiedEmail, !user.emailVerified || user.email == nil {
            throw EmulatorError.authBadRequest("UNVERIFIED_EMAIL : Need to verify email first before enrolling second factors.")
        }
        if recent { try requireRecentSignIn(sc, ctx) }
        return (ctx, user)
    }

    /// `CREDENTIAL_TOO_OLD_LOGIN_AGAIN` when the token's `auth_time` is over five minutes old.
    private func requireRecentSignIn(_ sc: AuthScope, _ ctx: AuthContext) throws {
        // `auth_time` comes from the token (unsigned ones are accepted by default): subtract
        // without trapping; an age that does not fit is not recent.
        guard let at = ctx.token["auth_time"]?.intValue, case let (age, overflow) = now(sc).seconds.subtractingReportingOverflow(at),
            !overflow, age <= Self.recentSignInSeconds
        else {
            throw EmulatorError.authBadRequest("CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
        }
    }

    /// `v2 accounts/mfaEnrollment:start`: phone (`phoneEnrollmentInfo`, sends an SMS code) or
    /// TOTP (`totpEnrollmentInfo`, returns a fresh shared secret from the secure random source).
    public func mfaEnrollmentStart(projectId: String, tenantId: String? = nil, body raw: UTF8Dictionary<JSON>) throws -> JSON {
        let b = Body(raw)
        let sc = try scope(projectId, tenantId, b)
        let pol = try policy(sc)
        let totp = raw["totpEnrollmentInfo"] != nil && raw["phoneEnrollmentInfo"] == nil
        if totp { try requireTotpMfa(pol) } else { try requireSmsMfa(pol) }
        let (_, user) = try mfaCaller(sc, b, eligible: true, verifiedEmail: true, recent: true)
        let now = now(sc)
        if totp {
            guard user.mfaInfo.count < Self.maxSecondFactors else { throw EmulatorError.authBadRequest("SECOND_FACTOR_LIMIT_EXCEEDED") }
            let secret: [UInt8]
            do { secret = try Digest.randomBytes(TOTP.secretLength) } catch {
                logger.log(.error, "auth", "secure random failed: \(error)")
                throw EmulatorError.internal("Could not generate a TOTP secret.")
            }
            let session = env(projectId).ids.string(length: 40, alphabet: IDGenerator.alphanumerics)
            let pending = MfaSession(id: session, kind: .totpEnrollment, localId: user.localId, secret: secret, issuedAt: now.seconds)
            try write(sc) { $0.setMfaSession(session, pending) }
            let deadline = Timestamp(seconds: now.seconds + MfaSession.lifetimeSeconds, nanos: now.nanos)
            return [
                "totpSessionInfo": [
                    "sharedSecretKey": .string(Base32.encode(secret)), "verificationCodeLength": .int(Int64(TOTP.digits)),
                    "hashingAlgorithm": "SHA1", "periodSec": .int(TOTP.period), "sessionInfo": .string(session),
                    "finalizeEnrollmentTime": .string(deadline.rfc3339(fractionDigits: 3)),
                ]
            ]
        }
        guard case .object(let info)? = raw["phoneEnrollmentInfo"] else {
            throw EmulatorError.authBadRequest("INVALID_ARGUMENT : ((Missing phoneEnrollmentInfo.))")
        }
        guard let phone = Body(info).nonEmpty("phoneNumber"), (try? AuthValidation.phone(phone)) != nil else {
            throw EmulatorError.authBadRequest("INVALID_PHONE_NUMBER : Invalid format.")
        }
        if user.mfaInfo.contains(where: { $0.phoneNumber == phone }) {
            throw EmulatorError.authBadRequest("SECOND_FACTOR_EXISTS : Phone number already enrolled as second factor for this account.")
        }
        guard user.mfaInfo.count < Self.maxSecondFactors else { throw EmulatorError.authBadRequest("SECOND_FACTOR_LIMIT_EXCEEDED") }
        let session = try sendSms(sc, policy: pol, to: phone, purpose: .mfaEnrollment, localId: user.localId)
        return ["phoneSessionInfo": ["sessionInfo": .string(session)]]
    }

    /// `v2 accounts/mfaEnrollment:finalize`: checks the SMS code (also a `sendVerificationCode`
    /// session, as older iOS SDKs enrol in emulator mode) or the first TOTP code, stores the
    /// factor, revokes the user's other sessions (`validSince`), and returns new tokens whose
    /// second factor is the new one. Nothing changes unless every check passes.
    public func mfaEnrollmentFinalize(projectId: String, tenantId: String? = nil, body raw: UTF8Dictionary<JSON>) throws -> JSON {
        let b = Body(raw)
        let sc = try scope(projectId, tenantId, b)
        let pol = try policy(sc)
        let totp = raw["totpVerificationInfo"] != nil && raw["phoneVerificationInfo"] == nil
        if totp { try requireTotpMfa(pol) } else { try requireSmsMfa(pol) }
        let (ctx, user) = try mfaCaller(sc, b, eligible: true, verifiedEmail: false, recent: true)
        let displayName = b.nonEmpty("displayName")
        let now = now(sc)
        let ids = env(projectId).ids
        let max = Self.maxSecondFactors
        let enrolled: (AuthUser, MfaEnrollment)
        if totp {
            guard case .object(let info)? = raw["totpVerificationInfo"] else {
                throw EmulatorError.authBadRequest("INVALID_ARGUMENT : ((Missing totpVerificationInfo.))")
            }
            let ib = Body(info)
            guard let code = ib.nonEmpty("verificationCode") else { throw EmulatorError.authBadRequest("MISSING_CODE") }
            guard let session = ib.nonEmpty("sessionInfo") else { throw EmulatorError.authBadRequest("MISSING_SESSION_INFO") }
            let window = pol.mfa.adjacentIntervals
            enrolled = try write(sc) { st in
                guard let s = st.mfaSessions[session], s.kind == .totpEnrollment, s.localId == user.localId, let secret = s.secret else {
                    throw EmulatorError.authBadRequest("INVALID_SESSION_INFO")
                }
                if s.isExpired(at: now) {
                    st.setMfaSession(session, nil)
                    throw EmulatorError.authBadRequest("SESSION_EXPIRED")
                }
                let step = TOTP.match(code, secret: secret, at: now.seconds, window: window, usedUpTo: nil)
                try st.checkCode(step != nil, subject: "totp-enrollment:" + user.localId, session: session, now: now.seconds) {
                    $0.setMfaSession(session, nil)
                }
                guard let step else { throw EmulatorError.authBadRequest("INVALID_CODE") }
                guard var u = st.user(user.localId) else { throw EmulatorError.authBadRequest("USER_NOT_FOUND") }
                guard u.mfaInfo.count < max else { throw EmulatorError.authBadRequest("SECOND_FACTOR_LIMIT_EXCEEDED") }
                var f = MfaEnrollment(mfaEnrollmentId: ids.uid(), displayName: displayName, enrolledAt: now.milliseconds, totpSecret: secret)
                f.totpLastCounter = step  // the enrolment code may not sign in as well
                u.mfaInfo.append(f)
                u.validSince = now.seconds
                st.setMfaSession(session, nil)
                st.put(u)
                return (u, f)
            }
        } else {
            guard case .object(let info)? = raw["phoneVerificationInfo"] else {
                throw EmulatorError.authBadRequest("INVALID_ARGUMENT : ((Missing phoneVerificationInfo.))")
            }
            if info["androidVerificationProof"] != nil {
                throw EmulatorError(
                    .unimplemented, "androidVerificationProof is not implemented in the Auth Emulator.",
                    style: .identityToolkit(reason: "unimplemented", omitStatus: false))
            }
            let ib = Body(info)
            guard let code = ib.nonEmpty("code") else { throw EmulatorError.authBadRequest("MISSING_CODE") }
            guard let session = ib.nonEmpty("sessionInfo") else { throw EmulatorError.authBadRequest("MISSING_SESSION_INFO") }
            enrolled = try write(sc) { st in
                // This user's enrolment code, or a plain phone-verification code (older iOS SDKs).
                guard let s = st.smsCodes[session],
                    (s.purpose == .mfaEnrollment && s.localId == user.localId) || (s.purpose == .signIn && !MfaEnrollment.isMasked(s.phoneNumber))
                else { throw EmulatorError.authBadRequest("INVALID_SESSION_INFO") }
                if s.isExpired(at: now) {
                    st.setSms(session, nil)
                    throw EmulatorError.authBadRequest("SESSION_EXPIRED")
                }
                try st.checkCode(s.code == code, subject: "phone:" + s.phoneNumber, session: session, now: now.seconds) { $0.setSms(session, nil) }
                guard var u = st.user(user.localId) else { throw EmulatorError.authBadRequest("USER_NOT_FOUND") }
                if u.mfaInfo.contains(where: { $0.phoneNumber == s.phoneNumber }) {
                    throw EmulatorError.authBadRequest("SECOND_FACTOR_EXISTS : Phone number already enrolled as second factor for this account.")
                }
                guard u.mfaInfo.count < max else { throw EmulatorError.authBadRequest("SECOND_FACTOR_LIMIT_EXCEEDED") }
                let f = MfaEnrollment(mfaEnrollmentId: ids.uid(), displayName: displayName, enrolledAt: now.milliseconds, phoneNumber: s.phoneNumber)
                u.mfaInfo.append(f)
                u.validSince = now.seconds
                st.setSms(session, nil)
                st.put(u)
                return (u, f)
            }
        }
        let (u, f) = enrolled
        // Production emails the user about a new second factor; we log it.
        logger.log(.info, "auth", "A \(f.kind) second factor was enrolled for \(u.email ?? u.localId); other sessions are revoked.")
        let (_, tokens) = try signIn(
            sc, user: u, provider: ctx.signInProvider ?? "password",
            secondFactor: SecondFactor(kind: f.kind, enrollmentId: f.mfaEnrollmentId), login: false)
        var o: UTF8Dictionary<JSON> = ["idToken": tokens["idToken"] ?? .null, "refreshToken": tokens["refreshToken"] ?? .null]
        if totp { o["totpAuthInfo"] = [:] }
        return .object(o)
    }

    /// `v2 accounts/mfaEnrollment:withdraw`: removes a factor (`MFA_ENROLLMENT_NOT_FOUND` when the
    /// user has no such factor) and returns new tokens without second-factor claims.
    public func mfaEnrollmentWithdraw(projectId: String, tenantId: String? = nil, body raw: UTF8Dictionary<JSON>) throws -> JSON {
        let b = Body(raw)
        let sc = try scope(projectId, tenantId, b)
        _ = try policy(sc)
        let (ctx, user) = try mfaCaller(sc, b, eligible: false, verifiedEmail: false, recent: false)
        guard let id = b.nonEmpty("mfaEnrollmentId"), user.mfaEnrollment(id) != nil else {
            throw EmulatorError.authBadRequest("MFA_ENROLLMENT_NOT_FOUND")
        }
        try requireRecentSignIn(sc, ctx)
        let updated = try write(sc) { st -> AuthUser in
            guard var u = st.user(user.localId), u.mfaEnrollment(id) != nil else { throw EmulatorError.authBadRequest("MFA_ENROLLMENT_NOT_FOUND") }
            u.mfaInfo.removeAll { $0.mfaEnrollmentId == id }
            st.put(u)
            return u
        }
        let (_, tokens) = try signIn(sc, user: updated, provider: ctx.signInProvider ?? "password", login: false)
        return ["idToken": tokens["idToken"] ?? .null, "refreshToken": tokens["refreshToken"] ?? .null]
    }

    /// Admin factor lists (`mfa: {enrollments: [...]}` on update; create and import reuse it):
    /// each needs `mfaEnrollmentId` (unique) and `phoneInfo`, or `totpInfo` naming an existing
    /// TOTP factor (its secret cannot travel). No `enrollments` clears every factor.
    func adminEnrollments(_ mfa: JSON, existing: [MfaEnrollment], now: Timestamp, ids: IDGenerator) throws -> [MfaEnrollment] {
        guard case .object(let o) = mfa else { throw EmulatorError.authBadRequest("INVALID_ARGUMENT : mfa must be an object") }
        guard let list = o["enrollments"], !list.isNull else { return [] }
        guard let rows = list.arrayValue else { throw EmulatorError.authBadRequest("INVALID_ARGUMENT : mfa.enrollments must be a list") }
        var out: [MfaEnrollment] = []
        var seen: Set<String> = []
        for row in rows {
            guard case .object(let e) = row else { throw EmulatorError.authBadRequest("INVALID_ARGUMENT : an MFA enrollment must be an object") }
            guard let id = e["mfaEnrollmentId"]?.stringValue, !id.isEmpty else {
                throw EmulatorError.authBadRequest("INVALID_MFA_ENROLLMENT_ID : mfaEnrollmentId must be defined.")
            }
            guard id.count <= 128 else { throw EmulatorError.authBadRequest("INVALID_MFA_ENROLLMENT_ID : mfaEnrollmentId is too long.") }
            guard seen.insert(id).inserted else { throw EmulatorError.authBadRequest("DUPLICATE_MFA_ENROLLMENT_ID") }
            let old = existing.first { $0.mfaEnrollmentId == id }
            var enrolledAt = old?.enrolledAt ?? now.milliseconds
            if let t = e["enrolledAt"], !t.isNull {
                guard let ts = t.stringValue.flatMap({ Timestamp(rfc3339: $0) }), abs(ts.seconds) < 1 << 40 else {
                    throw EmulatorError.authBadRequest("INVALID_ARGUMENT : enrolledAt must be an RFC 3339 timestamp")
                }
                enrolledAt = ts.milliseconds
            }
            let name = e["displayName"]?.stringValue ?? (e["displayName"] == nil ? old?.displayName : nil)
            if let phone = e["phoneInfo"]?.stringValue {
                guard (try? AuthValidation.phone(phone)) != nil else {
                    throw EmulatorError.authBadRequest("INVALID_MFA_PHONE_NUMBER : Invalid format.")
                }
                out.append(MfaEnrollment(mfaEnrollmentId: id, displayName: name, enrolledAt: enrolledAt, phoneNumber: phone))
            } else if e["totpInfo"] != nil, var keep = old, keep.totpSecret != nil {
                keep.displayName = name
                keep.enrolledAt = enrolledAt
                out.append(keep)
            } else {
                throw EmulatorError.authBadRequest(
                    "INVALID_ARGUMENT : ((Second factors need phoneInfo; TOTP factors can only be kept, not created, by admin calls.))")
            }
        }
        return out
    }
}
