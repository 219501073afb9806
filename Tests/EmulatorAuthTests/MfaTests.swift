import EmulatorCore
import Testing

@testable import EmulatorAuth

@Test func phoneEnrolmentRevokesOtherSessionsAndTokensCarryTheFactor() async throws {
    let (a, env) = try makeService()
    let u = try await verifiedUser(a, "enrol@example.com")
    try env.clock.advance(seconds: 2)
    let e = try await enrollPhone(a, idToken: u.idToken, phone: "+15555550100")
    let c = try claims(.string(e.idToken))
    #expect(c["firebase"]?["sign_in_second_factor"] == "phone" && c["firebase"]?["sign_in_provider"] == "password")
    // auth_time stays the first factor's; the old refresh token and ID token are revoked.
    #expect(c["auth_time"] == .int(start.seconds))
    #expect(await message { try a.refresh(projectId: project, grantType: "refresh_token", refreshToken: u.refreshToken) } == "TOKEN_EXPIRED")
    #expect(await message { try a.lookup(projectId: project, body: ["idToken": .string(u.idToken)], privileged: false) } == "TOKEN_EXPIRED")
    // Refreshed tokens keep the second factor.
    let refreshed = try a.refresh(projectId: project, grantType: "refresh_token", refreshToken: e.refreshToken)
    #expect(try claims(refreshed["id_token"])["firebase"]?["second_factor_identifier"] == .string(e.enrollmentId))
    // The user record shows the full number; iOS-parsable enrolledAt.
    let info = try #require(
        a.lookup(projectId: project, body: ["idToken": .string(e.idToken)], privileged: false)["users"]?.arrayValue?.first?["mfaInfo"]?.arrayValue?
            .first)
    #expect(info["phoneInfo"] == "+15555550100" && info["unobfuscatedPhoneInfo"] == "+15555550100" && info["displayName"] == "phone")
    #expect(info["enrolledAt"] == .string(Timestamp(seconds: start.seconds + 2).rfc3339(fractionDigits: 3)))
    #expect(info["mfaEnrollmentId"]?.stringValue?.count == 28)
}

@Test func enrolmentErrorsInProductionOrder() async throws {
    let (a, env) = try makeService()
    let anon = try await a.signUp(projectId: project, body: [:], privileged: false)
    let start: (JSON) async -> String? = { token in
        await message {
            try a.mfaEnrollmentStart(projectId: project, body: ["idToken": token, "phoneEnrollmentInfo": ["phoneNumber": "+15555550111"]])
        }
    }
    #expect(await message { try a.mfaEnrollmentStart(projectId: project, body: [:]) } == "MISSING_ID_TOKEN")
    #expect(await start("garbage") == "INVALID_ID_TOKEN")
    #expect(await start(anon["idToken"]!) == "UNSUPPORTED_FIRST_FACTOR : MFA is not available for the given first factor.")
    let unverified = try await signUp(a, "unverified@example.com")
    #expect(await start(unverified["idToken"]!) == "UNVERIFIED_EMAIL : Need to verify email first before enrolling second factors.")
    let u = try await verifiedUser(a, "order@example.com")
    #expect(
        await message { try a.mfaEnrollmentStart(projectId: project, body: ["idToken": .string(u.idToken)]) }
            == "INVALID_ARGUMENT : ((Missing phoneEnrollmentInfo.))")
    #expect(
        await message {
            try a.mfaEnrollmentStart(projectId: project, body: ["idToken": .string(u.idToken), "phoneEnrollmentInfo": ["phoneNumber": "5555"]])
        }
            == "INVALID_PHONE_NUMBER : Invalid format.")
    let e = try await enrollPhone(a, idToken: u.idToken, phone: "+15555550112")
    #expect(
        await message {
            try a.mfaEnrollmentStart(
                projectId: project, body: ["idToken": .string(e.idToken), "phoneEnrollmentInfo": ["phoneNumber": "+15555550112"]])
        }
            == "SECOND_FACTOR_EXISTS : Phone number already enrolled as second factor for this account.")
    // Five minutes after the first factor, enrolment needs a fresh sign-in.
    try env.clock.advance(seconds: 301)
    let fresh = try a.refresh(projectId: project, grantType: "refresh_token", refreshToken: e.refreshToken)
    #expect(
        await message {
            try a.mfaEnrollmentStart(
                projectId: project, body: ["idToken": fresh["id_token"]!, "phoneEnrollmentInfo": ["phoneNumber": "+15555550113"]])
        }
            == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
    // The SMS gate comes first.
    _ = try a.updateConfig(projectId: project, patch: ["mfa": ["enabledProviders": []]])
    #expect(await message { try a.mfaEnrollmentStart(projectId: project, body: [:]) } == "OPERATION_NOT_ALLOWED : SMS based MFA not enabled.")
}

@Test func enrolmentFinalizeValidatesBeforeAnyChange() async throws {
    let (a, _) = try makeService()
    let u = try await verifiedUser(a, "fin@example.com")
    let s = try a.mfaEnrollmentStart(
        projectId: project, body: ["idToken": .string(u.idToken), "phoneEnrollmentInfo": ["phoneNumber": "+15555550120"]])
    let session = s["phoneSessionInfo"]!["sessionInfo"]!
    let fin: (JSON) async -> String? = { info in
        await message { try a.mfaEnrollmentFinalize(projectId: project, body: ["idToken": .string(u.idToken), "phoneVerificationInfo": info]) }
    }
    #expect(
        await message { try a.mfaEnrollmentFinalize(projectId: project, body: ["idToken": .string(u.idToken)]) }
            == "INVALID_ARGUMENT : ((Missing phoneVerificationInfo.))")
    #expect(await fin(["sessionInfo": session]) == "MISSING_CODE")
    #expect(await fin(["code": "123456"]) == "MISSING_SESSION_INFO")
    #expect(await fin(["sessionInfo": "nope", "code": "123456"]) == "INVALID_SESSION_INFO")
    let code = try lastCode(a).code
    let wrong = code == "000000" ? "111111" : "000000"
    #expect(await fin(["sessionInfo": session, "code": .string(wrong)]) == "INVALID_CODE")
    #expect(a.snapshot(projectId: project).user(u.uid)?.mfaInfo.isEmpty == true)
    // A wrong guess keeps the code; the right one works once.
    _ = try a.mfaEnrollmentFinalize(
        projectId: project, body: ["idToken": .string(u.idToken), "phoneVerificationInfo": ["sessionInfo": session, "code": .string(code)]])
    #expect(a.snapshot(projectId: project).user(u.uid)?.mfaInfo.count == 1)
    #expect(await fin(["sessionInfo": session, "code": .string(code)]) == "INVALID_SESSION_INFO")
    #expect(await fin(["androidVerificationProof": "x"]) != nil)
}

@Test func smsCodesExpireAfterTenMinutes() async throws {
    let (a, env) = try makeService()
    let u = try await verifiedUser(a, "expire@example.com")
    let s = try a.mfaEnrollmentStart(
        projectId: project, body: ["idToken": .string(u.idToken), "phoneEnrollmentInfo": ["phoneNumber": "+15555550130"]])
    let code = try lastCode(a).code
    try env.clock.advance(seconds: Double(SmsCode.lifetimeSeconds + 1))
    // (The recent-login window is shorter, so sign in again to isolate the code's expiry.)
    let again = try await a.signInWithPassword(projectId: project, body: ["email": "expire@example.com", "password": "secret1"])
    #expect(
        await message {
            try a.mfaEnrollmentFinalize(
                projectId: project,
                body: [
                    "idToken": again["idToken"]!,
                    "phoneVerificationInfo": ["sessionInfo": s["phoneSessionInfo"]!["sessionInfo"]!, "code": .string(code)],
                ])
        } == "SESSION_EXPIRED")
    #expect(try a.listVerificationCodes(projectId: project)["verificationCodes"] == [])
}

/// Sign-in with a second factor: the challenge, mfaSignIn:start and :finalize, token claims,
/// auth_time at finalize, beforeSignIn at finalize only.
@Test func passwordSignInIsChallengedAndResolvedByPhone() async throws {
    let (a, env) = try makeService()
    let u = try await verifiedUser(a, "mfa@example.com")
    let e = try await enrollPhone(a, idToken: u.idToken, phone: "+15555550140")
    let hooks = RecordingHooks()
    a.setHooks(hooks)
    try env.clock.advance(seconds: 60)
    let before = a.snapshot(projectId: project).user(u.uid)?.lastLoginAt
    let r = try await a.signInWithPassword(projectId: project, body: ["email": "mfa@example.com", "password": "secret1"])
    #expect(r["idToken"] == nil && r["refreshToken"] == nil && r["expiresIn"] == nil && r["localId"] == .string(u.uid))
    let hint = try #require(r["mfaInfo"]?.arrayValue?.first)
    #expect(hint["phoneInfo"] == "+*******0140" && hint["unobfuscatedPhoneInfo"] == nil && hint["mfaEnrollmentId"] == .string(e.enrollmentId))
    #expect(a.snapshot(projectId: project).user(u.uid)?.lastLoginAt == before && hooks.calls.withLock { $0 }.isEmpty)
    let pending = try #require(r["mfaPendingCredential"])
    // Start names the enrolment; the number the client sends is ignored.
    let s = try a.mfaSignInStart(
        projectId: project,
        body: [
            "mfaPendingCredential": pending, "mfaEnrollmentId": .string(e.enrollmentId),
            "phoneSignInInfo": ["phoneNumber": "+*******0140"],
        ])
    let sent = try lastCode(a)
    #expect(sent.phone == "+15555550140" && s["phoneResponseInfo"]?["sessionInfo"] == .string(sent.session))
    try env.clock.advance(seconds: 30)
    let f = try await a.mfaSignInFinalize(
        projectId: project,
        body: ["mfaPendingCredential": pending, "phoneVerificationInfo": ["sessionInfo": .string(sent.session), "code": .string(sent.code)]])
    let c = try claims(f["idToken"])
    #expect(c["firebase"]?["sign_in_second_factor"] == "phone" && c["firebase"]?["second_factor_identifier"] == .string(e.enrollmentId))
    #expect(c["firebase"]?["sign_in_provider"] == "password" && c["auth_time"] == .int(start.seconds + 90))
    #expect(hooks.calls.withLock { $0 } == ["beforeSignIn:password:phone"])
    #expect(Set(f.objectValue!.keys) == ["idToken", "refreshToken"])
    // The code and the pending credential are used up.
    #expect(
        await message {
            try await a.mfaSignInFinalize(
                projectId: project,
                body: ["mfaPendingCredential": pending, "phoneVerificationInfo": ["sessionInfo": .string(sent.session), "code": .string(sent.code)]])
        }
            == "INVALID_MFA_PENDING_CREDENTIAL")
}

@Test func mfaSignInErrorsAndNoSideEffectsOnFailure() async throws {
    let (a, env) = try makeService()
    let u = try await verifiedUser(a, "err@example.com")
    let e = try await enrollPhone(a, idToken: u.idToken, phone: "+15555550150")
    let r = try await a.signInWithPassword(projectId: project, body: ["email": "err@example.com", "password": "secret1"])
    let pending = r["mfaPendingCredential"]!
    #expect(
        await message { try a.mfaSignInStart(projectId: project, body: [:]) }
            == "MISSING_MFA_PENDING_CREDENTIAL : Request does not have MFA pending credential.")
    #expect(
        await message { try a.mfaSignInStart(projectId: project, body: ["mfaPendingCredential": pending]) }
            == "MISSING_MFA_ENROLLMENT_ID : No second factor identifier is provided.")
    #expect(
        await message { try a.mfaSignInStart(projectId: project, body: ["mfaPendingCredential": "bogus", "mfaEnrollmentId": "x"]) }
            == "INVALID_MFA_PENDING_CREDENTIAL")
    #expect(
        await message { try a.mfaSignInStart(projectId: project, body: ["mfaPendingCredential": pending, "mfaEnrollmentId": "x"]) }
            == "MFA_ENROLLMENT_NOT_FOUND")
    #expect(
        await message { try await a.mfaSignInFinalize(projectId: project, body: [:]) } == "MISSING_CREDENTIAL : Please set MFA Pending Credential.")
    #expect(
        await message { try await a.mfaSignInFinalize(projectId: project, body: ["mfaPendingCredential": pending]) }
            == "INVALID_ARGUMENT : MFA provider not supported!")
    _ = try a.mfaSignInStart(projectId: project, body: ["mfaPendingCredential": pending, "mfaEnrollmentId": .string(e.enrollmentId)])
    let sent = try lastCode(a)
    let fin: (UTF8Dictionary<JSON>) async -> String? = { info in
        await message {
            try await a.mfaSignInFinalize(projectId: project, body: ["mfaPendingCredential": pending, "phoneVerificationInfo": .object(info)])
        }
    }
    #expect(await fin(["sessionInfo": .string(sent.session)]) == "MISSING_CODE")
    #expect(await fin(["code": .string(sent.code)]) == "MISSING_SESSION_INFO")
    #expect(await fin(["sessionInfo": "nope", "code": .string(sent.code)]) == "INVALID_SESSION_INFO")
    #expect(await fin(["sessionInfo": .string(sent.session), "code": .string(sent.code == "000000" ? "111111" : "000000")]) == "INVALID_CODE")
    // A code from another pending sign-in of the same user is not this one's.
    let other = try await a.signInWithPassword(projectId: project, body: ["email": "err@example.com", "password": "secret1"])
    #expect(
        await message {
            try await a.mfaSignInFinalize(
                projectId: project,
                body: [
                    "mfaPendingCredential": other["mfaPendingCredential"]!,
                    "phoneVerificationInfo": ["sessionInfo": .string(sent.session), "code": .string(sent.code)],
                ])
        }
            == "INVALID_SESSION_INFO")
    // Nothing was consumed by the failures; a disabled user fails before anything changes.
    _ = try await a.update(projectId: project, body: ["localId": .string(u.uid), "disableUser": true], privileged: true)
    #expect(await fin(["sessionInfo": .string(sent.session), "code": .string(sent.code)]) == "USER_DISABLED")
    #expect(try lastCode(a).session == sent.session)
    _ = try await a.update(projectId: project, body: ["localId": .string(u.uid), "disableUser": false], privileged: true)
    // The pending credential expires on the project clock.
    try env.clock.advance(seconds: Double(MfaSession.lifetimeSeconds + 1))
    #expect(await fin(["sessionInfo": .string(sent.session), "code": .string(sent.code)])?.hasPrefix("INVALID_MFA_PENDING_CREDENTIAL") == true)
}

/// Older iOS SDKs in emulator mode: `sendVerificationCode` with the masked hint number, then
/// finalize with the session only.
@Test func olderIOSMaskedNumberPath() async throws {
    let (a, _) = try makeService()
    let u = try await verifiedUser(a, "ios@example.com")
    // Enrolment through sendVerificationCode with the real number.
    let sent = try a.sendVerificationCode(projectId: project, body: ["phoneNumber": "+15555550160"])
    let enrol = try a.mfaEnrollmentFinalize(
        projectId: project,
        body: [
            "idToken": .string(u.idToken),
            "phoneVerificationInfo": ["sessionInfo": sent["sessionInfo"]!, "code": .string(try lastCode(a).code)],
        ])
    let id = try #require(try claims(enrol["idToken"])["firebase"]?["second_factor_identifier"])
    let r = try await a.signInWithPassword(projectId: project, body: ["email": "ios@example.com", "password": "secret1"])
    let masked = try #require(r["mfaInfo"]?.arrayValue?.first?["phoneInfo"])
    let s = try a.sendVerificationCode(projectId: project, body: ["phoneNumber": masked])
    let listed = try lastCode(a)
    #expect(listed.phone == "+*******0160")
    // The masked number's code cannot sign anyone in as a first factor.
    #expect(
        await message {
            try await a.signInWithPhoneNumber(projectId: project, body: ["sessionInfo": s["sessionInfo"]!, "code": .string(listed.code)])
        } == "INVALID_SESSION_INFO")
    let f = try await a.mfaSignInFinalize(
        projectId: project,
        body: [
            "mfaPendingCredential": r["mfaPendingCredential"]!,
            "phoneVerificationInfo": ["sessionInfo": s["sessionInfo"]!, "code": .string(listed.code)],
        ])
    #expect(try claims(f["idToken"])["firebase"]?["second_factor_identifier"] == id)
}

@Test func totpEnrolmentAndSignInWithReplayAndClockSteps() async throws {
    let (a, env) = try makeService()
    let u = try await verifiedUser(a, "totp@example.com")
    let s = try a.mfaEnrollmentStart(projectId: project, body: ["idToken": .string(u.idToken), "totpEnrollmentInfo": [:]])
    let info = try #require(s["totpSessionInfo"])
    #expect(info["verificationCodeLength"] == 6 && info["hashingAlgorithm"] == "SHA1" && info["periodSec"] == 30)
    #expect(info["finalizeEnrollmentTime"] == .string(Timestamp(seconds: start.seconds + 600).rfc3339(fractionDigits: 3)))
    let secret = try #require(info["sharedSecretKey"]?.stringValue.flatMap(Base32.decode))
    #expect(secret.count == 20)
    func code(_ at: Int64) -> String { TOTP.code(secret: secret, counter: TOTP.counter(at: at)) }
    let now = { env.clock.now().seconds }
    let wrong = code(now()) == "000000" ? "111111" : "000000"
    #expect(
        await message {
            try a.mfaEnrollmentFinalize(
                projectId: project,
                body: [
                    "idToken": .string(u.idToken), "totpVerificationInfo": ["sessionInfo": info["sessionInfo"]!, "verificationCode": .string(wrong)],
                ])
        } == "INVALID_CODE")
    let f = try a.mfaEnrollmentFinalize(
        projectId: project,
        body: [
            "idToken": .string(u.idToken), "displayName": "app",
            "totpVerificationInfo": ["sessionInfo": info["sessionInfo"]!, "verificationCode": .string(code(now()))],
        ])
    #expect(f["totpAuthInfo"] == [:])
    let id = try #require(try claims(f["idToken"])["firebase"]?["second_factor_identifier"])
    #expect(try claims(f["idToken"])["firebase"]?["sign_in_second_factor"] == "totp")
    let r = try await a.signInWithPassword(projectId: project, body: ["email": "totp@example.com", "password": "secret1"])
    #expect(r["mfaInfo"]?.arrayValue?.first?["totpInfo"] == [:] && r["mfaInfo"]?.arrayValue?.first?["phoneInfo"] == nil)
    let pending = r["mfaPendingCredential"]!
    let fin: (String) async throws -> JSON = { c in
        try await a.mfaSignInFinalize(
            projectId: project,
            body: ["mfaPendingCredential": pending, "mfaEnrollmentId": id, "totpVerificationInfo": ["verificationCode": .string(c)]])
    }
    // The code that enrolled cannot sign in (same step), the next step's can.
    #expect(await message { try await fin(code(now())) } == "INVALID_CODE")
    try env.clock.advance(seconds: 30)
    let done = try await fin(code(now()))
    #expect(try claims(done["idToken"])["firebase"]?["sign_in_second_factor"] == "totp")
    // Replays are refused; ±5 steps (the default adjacentIntervals) are accepted, 6 are not.
    let r2 = try await a.signInWithPassword(projectId: project, body: ["email": "totp@example.com", "password": "secret1"])
    let fin2: (String) async throws -> JSON = { c in
        try await a.mfaSignInFinalize(
            projectId: project,
            body: [
                "mfaPendingCredential": r2["mfaPendingCredential"]!, "mfaEnrollmentId": id, "totpVerificationInfo": ["verificationCode": .string(c)],
            ])
    }
    #expect(await message { try await fin2(code(now())) } == "INVALID_CODE")
    #expect(await message { try await fin2(code(now() + 6 * 30)) } == "INVALID_CODE")
    _ = try await fin2(code(now() + 5 * 30))
    #expect(
        await message {
            try a.mfaSignInStart(projectId: project, body: ["mfaPendingCredential": r2["mfaPendingCredential"]!, "mfaEnrollmentId": id])
        } == "INVALID_MFA_PENDING_CREDENTIAL")
    // TOTP has no start.
    let r3 = try await a.signInWithPassword(projectId: project, body: ["email": "totp@example.com", "password": "secret1"])
    #expect(
        await message {
            try a.mfaSignInStart(projectId: project, body: ["mfaPendingCredential": r3["mfaPendingCredential"]!, "mfaEnrollmentId": id])
        } == "INVALID_ARGUMENT : MFA provider not supported!")
}

@Test func withdrawRemovesTheFactorAndChallengeStops() async throws {
    let (a, _) = try makeService()
    let u = try await verifiedUser(a, "wd@example.com")
    let e = try await enrollPhone(a, idToken: u.idToken, phone: "+15555550170")
    #expect(
        await message { try a.mfaEnrollmentWithdraw(projectId: project, body: ["idToken": .string(e.idToken), "mfaEnrollmentId": "nope"]) }
            == "MFA_ENROLLMENT_NOT_FOUND")
    let w = try a.mfaEnrollmentWithdraw(projectId: project, body: ["idToken": .string(e.idToken), "mfaEnrollmentId": .string(e.enrollmentId)])
    #expect(try claims(w["idToken"])["firebase"]?["sign_in_second_factor"] == nil)
    let r = try await a.signInWithPassword(projectId: project, body: ["email": "wd@example.com", "password": "secret1"])
    #expect(r["idToken"] != nil && r["mfaPendingCredential"] == nil)
    // Refreshing a token whose factor is gone drops the second-factor claims.
    let refreshed = try a.refresh(projectId: project, grantType: "refresh_token", refreshToken: e.refreshToken)
    #expect(try claims(refreshed["id_token"])["firebase"]?["sign_in_second_factor"] == nil)
}

@Test func customTokensAndPhoneFirstFactorsWithMfaUsers() async throws {
    let (a, _) = try makeService()
    let u = try await verifiedUser(a, "ct@example.com")
    _ = try await enrollPhone(a, idToken: u.idToken, phone: "+15555550180")
    let aud = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"
    let ct = try await a.signInWithCustomToken(
        projectId: project, body: ["token": .string(try JWT.encode(["aud": .string(aud), "uid": .string(u.uid)], key: nil))])
    #expect(ct["idToken"] != nil && ct["mfaPendingCredential"] == nil)
    _ = try await a.update(projectId: project, body: ["localId": .string(u.uid), "phoneNumber": "+15555550181"], privileged: true)
    #expect(
        await message { try a.sendVerificationCode(projectId: project, body: ["phoneNumber": "+15555550181"]) }
            == "UNSUPPORTED_FIRST_FACTOR : A phone number cannot be set as a first factor on an SMS based MFA user.")
    // With MFA off for the project, the same user signs in without a challenge.
    _ = try a.updateConfig(projectId: project, patch: ["mfa": ["state": "DISABLED"]])
    #expect(try await a.signInWithPassword(projectId: project, body: ["email": "ct@example.com", "password": "secret1"])["idToken"] != nil)
}

@Test func adminCreateUpdateAndImportWithFactors() async throws {
    let (a, _) = try makeService()
    let created = try await a.signUp(
        projectId: project,
        body: [
            "email": "adm@example.com", "emailVerified": true,
            "mfaInfo": [["phoneInfo": "+15555550190", "displayName": "one"], ["phoneInfo": "+15555550190"]],
        ],
        privileged: true)
    let uid = created["localId"]!.stringValue!
    let f = try #require(a.snapshot(projectId: project).user(uid)?.mfaInfo)
    #expect(f.count == 1 && f[0].displayName == "one" && f[0].enrolledAt == start.milliseconds)
    let upd: (UTF8Dictionary<JSON>) async -> String? = { mfa in
        await message { try await a.update(projectId: project, body: ["localId": .string(uid), "mfa": .object(mfa)], privileged: true) }
    }
    #expect(await upd(["enrollments": [["phoneInfo": "+15555550191"]]]) == "INVALID_MFA_ENROLLMENT_ID : mfaEnrollmentId must be defined.")
    #expect(
        await upd(["enrollments": [["mfaEnrollmentId": "a", "phoneInfo": "+15555550191"], ["mfaEnrollmentId": "a", "phoneInfo": "+15555550192"]]])
            == "DUPLICATE_MFA_ENROLLMENT_ID")
    #expect(await upd(["enrollments": [["mfaEnrollmentId": "a", "phoneInfo": "123"]]]) == "INVALID_MFA_PHONE_NUMBER : Invalid format.")
    #expect(await upd(["enrollments": [["mfaEnrollmentId": "a", "phoneInfo": "+15555550191", "enrolledAt": "2030-01-02T03:04:05.678Z"]]]) == nil)
    #expect(a.snapshot(projectId: project).user(uid)?.mfaInfo.map(\.mfaEnrollmentId) == ["a"])
    // No mfa key: factors stay; mfa {} clears.
    _ = try await a.update(projectId: project, body: ["localId": .string(uid), "displayName": "x"], privileged: true)
    #expect(a.snapshot(projectId: project).user(uid)?.mfaInfo.count == 1)
    #expect(await upd([:]) == nil)
    #expect(a.snapshot(projectId: project).user(uid)?.mfaInfo.isEmpty == true)
    // End users may not set factors through accounts:update.
    let u = try await verifiedUser(a, "self@example.com")
    #expect(
        await message { try await a.update(projectId: project, body: ["idToken": .string(u.idToken), "mfa": [:]], privileged: false) }
            == "INSUFFICIENT_PERMISSION")
    // Import: factors need a verified email; ids generated; TOTP cannot be imported.
    let imp = try a.batchCreate(
        projectId: project,
        body: [
            "users": [
                ["localId": "i1", "email": "i1@example.com", "emailVerified": true, "mfaInfo": [["phoneInfo": "+15555550193"]]],
                ["localId": "i2", "mfaInfo": [["phoneInfo": "+15555550194"]]],
                ["localId": "i3", "email": "i3@example.com", "mfaInfo": [["phoneInfo": "+15555550195"]]],
                ["localId": "i4", "email": "i4@example.com", "emailVerified": true, "mfaInfo": [["totpInfo": [:]]]],
            ]
        ])
    #expect(
        imp["error"]?.arrayValue?.map { $0["message"]!.stringValue! } == [
            "Second factor account requires email to be presented.",
            "Second factor account requires email to be verified.", "Second factor not supported.",
        ])
    #expect(a.snapshot(projectId: project).user("i1")?.mfaInfo.first?.mfaEnrollmentId.count == 28)
}

@Test func mfaStateSurvivesJournalReplayAndExport() async throws {
    let (a, env) = try makeService()
    let entries = Mutex<[JSON]>([])
    a.setJournal { p, e in if p == project { entries.withLock { $0.append(e) } } }
    let u = try await verifiedUser(a, "persist@example.com")
    _ = try await enrollPhone(a, idToken: u.idToken, phone: "+15555550200")
    let s = try a.mfaEnrollmentStart(projectId: project, body: ["idToken": .string(u.idToken), "totpEnrollmentInfo": [:]])
    let secret = Base32.decode(s["totpSessionInfo"]!["sharedSecretKey"]!.stringValue!)!
    _ = try a.mfaEnrollmentFinalize(
        projectId: project,
        body: [
            "idToken": .string(u.idToken),
            "totpVerificationInfo": [
                "sessionInfo": s["totpSessionInfo"]!["sessionInfo"]!,
                "verificationCode": .string(TOTP.code(secret: secret, counter: TOTP.counter(at: env.clock.now().seconds))),
            ],
        ])
    _ = try await a.signInWithPassword(projectId: project, body: ["email": "persist@example.com", "password": "secret1"])
    let t = try a.createTenant(
        projectId: project,
        body: ["displayName": "Persist", "allowPasswordSignup": true, "mfaConfig": ["state": "ENABLED", "enabledProviders": ["PHONE_SMS"]]])
    let tid = String(t["name"]!.stringValue!.split(separator: "/").last!)
    _ = try await verifiedUser(a, "tenant@example.com", tenant: tid)
    let b = AuthService(environments: LocalEnvironmentProvider(), keyring: testKeyring)
    for e in entries.withLock({ $0 }) { try b.replay(project: project, entry: e) }
    #expect(b.snapshot(projectId: project) == a.snapshot(projectId: project))
    let user = try #require(b.snapshot(projectId: project).user(u.uid))
    #expect(user.mfaInfo.map(\.kind) == ["phone", "totp"] && user.mfaInfo[1].totpSecret == secret && user.mfaInfo[1].totpLastCounter != nil)
    #expect(b.snapshot(projectId: project).pool.mfaSessions.count == 1)
    // A whole-project export imports to the same state.
    let c = AuthService(environments: LocalEnvironmentProvider(), keyring: testKeyring)
    try c.importProject(project, a.exportProject(project))
    #expect(c.snapshot(projectId: project) == a.snapshot(projectId: project))
}

/// An unsigned token's `auth_time` of -2^63 once overflowed the age subtraction and trapped.
@Test func anAuthTimeFarInThePastIsTooOldNotACrash() async throws {
    let (a, _) = try makeService()
    let u = try await verifiedUser(a, "ancient@example.com")
    var payload = try claims(.string(u.idToken))
    payload["auth_time"] = .int(.min)
    let token =
        Base64.urlEncode(JSON.object(["alg": "none", "typ": "JWT"]).serializedBytes()) + "."
        + Base64.urlEncode(JSON.object(payload).serializedBytes()) + "."
    #expect(
        await message {
            try a.mfaEnrollmentStart(
                projectId: project, body: ["idToken": .string(token), "phoneEnrollmentInfo": ["phoneNumber": "+15555550199"]])
        } == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
}
