import EmulatorCore
import Testing

@testable import EmulatorAuth

@Test func emailLinkSignInCreatesVerifiedUser() async throws {
    let (a, _) = try makeService()
    _ = try await a.sendOobCode(
        projectId: project, body: ["requestType": "EMAIL_SIGNIN", "email": "link@example.com"], privileged: false, linkBase: "http://127.0.0.1:9099")
    let c = try #require(a.listOobCodes(projectId: project)["oobCodes"]?.arrayValue?.first)
    #expect(c["oobLink"]?.stringValue?.hasPrefix("http://127.0.0.1:9099/emulator/action?mode=signIn") == true)
    let code = c["oobCode"]!
    #expect(
        await message { try await a.signInWithEmailLink(projectId: project, body: ["email": "other@example.com", "oobCode": code]) }
            == "INVALID_EMAIL : The email provided does not match the sign-in email address.")
    let r = try await a.signInWithEmailLink(projectId: project, body: ["email": "link@example.com", "oobCode": code])
    #expect(r["isNewUser"] == true)
    #expect(JWT.decode(r["idToken"]!.stringValue!)?.payload["email_verified"] == true)
    #expect(
        await message { try await a.signInWithEmailLink(projectId: project, body: ["email": "link@example.com", "oobCode": code]) }
            == "INVALID_OOB_CODE")
}

@Test func passwordResetFlow() async throws {
    let (a, _) = try makeService()
    _ = try await signUp(a, "reset@example.com")
    #expect(
        await message {
            try await a.sendOobCode(
                projectId: project, body: ["requestType": "PASSWORD_RESET", "email": "no@example.com"], privileged: false, linkBase: "")
        } == "EMAIL_NOT_FOUND")
    #expect(await message { try await a.sendOobCode(projectId: project, body: [:], privileged: false, linkBase: "") } == "MISSING_REQ_TYPE")
    let sent = try await a.sendOobCode(
        projectId: project, body: ["requestType": "PASSWORD_RESET", "email": "reset@example.com", "returnOobLink": true], privileged: true,
        linkBase: "")
    let code = try #require(sent["oobCode"])
    #expect(try a.resetPassword(projectId: project, body: ["oobCode": code])["requestType"] == "PASSWORD_RESET")
    _ = try a.resetPassword(projectId: project, body: ["oobCode": code, "newPassword": "brandnew"])
    #expect(try await a.signInWithPassword(projectId: project, body: ["email": "reset@example.com", "password": "brandnew"])["idToken"] != nil)
    #expect(await message { try a.resetPassword(projectId: project, body: ["oobCode": code, "newPassword": "brandnew"]) } == "INVALID_OOB_CODE")
    #expect(await message { try a.resetPassword(projectId: project, body: [:]) } == "MISSING_OOB_CODE")
}

@Test func phoneSignInWithListedCode() async throws {
    let (a, _) = try makeService()
    let s = try a.sendVerificationCode(projectId: project, body: ["phoneNumber": "+15555550100"])
    let listed = try #require(a.listVerificationCodes(projectId: project)["verificationCodes"]?.arrayValue?.first)
    #expect(listed["sessionInfo"] == s["sessionInfo"])
    #expect(
        await message { try await a.signInWithPhoneNumber(projectId: project, body: ["sessionInfo": s["sessionInfo"]!, "code": "000000x"]) }
            == "INVALID_CODE")
    let r = try await a.signInWithPhoneNumber(projectId: project, body: ["sessionInfo": s["sessionInfo"]!, "code": listed["code"]!])
    let c = try #require(JWT.decode(r["idToken"]!.stringValue!)).payload
    #expect(c["phone_number"] == "+15555550100" && c["firebase"]?["identities"]?["phone"] == ["+15555550100"])
    #expect(
        await message { try a.sendVerificationCode(projectId: project, body: ["phoneNumber": "555"]) } == "INVALID_PHONE_NUMBER : Invalid format.")
}

@Test func blockingHooksRunOnSignUpAndSignIn() async throws {
    let (a, _) = try makeService()
    let hooks = RecordingHooks(result: BlockingResult(displayName: "Hooked", customClaims: ["tier": "gold"], sessionClaims: ["sess": 1]))
    a.setHooks(hooks)
    let r = try await signUp(a, "hook@example.com")
    let c = try #require(JWT.decode(r["idToken"]!.stringValue!)).payload
    #expect(c["tier"] == "gold" && c["sess"] == 1 && c["name"] == "Hooked")
    _ = try await a.signUp(projectId: project, body: [:], privileged: false)  // anonymous: no blocking hooks
    #expect(hooks.calls.withLock { $0 } == ["beforeCreate:password", "beforeSignIn:password", "created", "created"])
    let rejecting = RecordingHooks(rejectCreate: true)
    a.setHooks(rejecting)
    #expect(await message { try await signUp(a, "no@example.com") } == "BLOCKING_FUNCTION_ERROR_RESPONSE : ((not allowed))")
    #expect(a.snapshot(projectId: project).user(email: "no@example.com") == nil)
    try await a.deleteUser(projectId: project, uid: r["localId"]!.stringValue!)
    #expect(rejecting.calls.withLock { $0 }.last == "deleted")
}

@Test func stateIndexesFollowPutAndRemove() {
    var st = AuthPool()
    var u = AuthUser(localId: "u", now: start)
    u.email = "a@example.com"
    u.phoneNumber = "+1555"
    u.providers = [ProviderUserInfo(providerId: "google.com", rawId: "g")]
    st.put(u)
    #expect(st.user(email: "A@example.com")?.localId == "u" && st.user(phone: "+1555")?.localId == "u")
    #expect(st.user(providerId: "google.com", rawId: "g")?.localId == "u")
    u.email = "b@example.com"
    u.providers = []
    st.put(u)
    #expect(st.user(email: "a@example.com") == nil && st.user(providerId: "google.com", rawId: "g") == nil)
    st.remove("u")
    #expect(st.byEmail.isEmpty && st.byPhone.isEmpty && st.users.isEmpty)
}

@Test func participantResetKeepsConfigAndRestoreRoundTrips() async throws {
    let (a, _) = try makeService()
    _ = try a.updateConfig(projectId: project, patch: ["signIn": ["allowDuplicateEmails": true]])
    _ = try await signUp(a, "snap@example.com")
    let snap = a.captureProject(project)
    try a.resetProject(project)
    #expect(a.snapshot(projectId: project).users.isEmpty && a.snapshot(projectId: project).config.allowDuplicateEmails)
    try a.restoreProject(project, from: snap)
    #expect(a.snapshot(projectId: project).user(email: "snap@example.com") != nil)
    #expect(throws: EmulatorError.self) { try a.restoreProject(project, from: 42) }
}

@Test func configDecoding() throws {
    let c = try AuthServiceConfig(json: ["signIdTokens": true, "acceptUnsignedTokens": false, "passwordHashCost": 1000, "anonymousTtlSeconds": 60])
    #expect(c.signIdTokens && !c.acceptUnsignedTokens && c.passwordHashCost == 1000 && c.anonymousTtlSeconds == 60)
    #expect(!AuthServiceConfig().signIdTokens && AuthServiceConfig().acceptUnsignedTokens)
    #expect(throws: EmulatorError.self) { try AuthServiceConfig(json: ["passwordHashCost": "high"]) }
    #expect(throws: EmulatorError.self) { try AuthServiceConfig(json: ["signIdTokens": false, "acceptUnsignedTokens": false]) }
    // Refusing unsigned tokens while minting them would lock everyone out.
    #expect(throws: EmulatorError.self) { try AuthServiceConfig(json: ["acceptUnsignedTokens": false]) }
}

@Test func unsignedModeMintsAlgNoneTokensThatStillVerify() async throws {
    let (a, _) = try makeService(try AuthServiceConfig(json: ["signIdTokens": false]))
    let r = try await a.signUp(projectId: project, body: [:], privileged: false)
    let token = try #require(r["idToken"]?.stringValue)
    #expect(JWT.decode(token)?.algorithm == "none" && token.hasSuffix("."))
    #expect(try a.verifyIDToken(projectId: project, token: token, checkRevoked: true).uid == r["localId"]?.stringValue)
}

@Test func concurrentSignUpsWithOneEmailCreateOneAccount() async throws {
    let (a, _) = try makeService()
    let results = await withTaskGroup(of: String?.self) { g in
        for _ in 0..<8 { g.addTask { await message { try await signUp(a, "race@example.com") } } }
        var out: [String?] = []
        for await r in g { out.append(r) }
        return out
    }
    #expect(results.filter { $0 == nil }.count == 1)
    #expect(results.compactMap { $0 }.allSatisfy { $0 == "EMAIL_EXISTS" })
    #expect(a.snapshot(projectId: project).users.count == 1)
}

@Test func blockingHookCanDisableTheUser() async throws {
    let (a, _) = try makeService()
    a.setHooks(RecordingHooks(result: BlockingResult(disabled: true)))
    #expect(await message { try await signUp(a, "off@example.com") } == "USER_DISABLED")
    // The user is written first (as production does), disabled.
    #expect(a.snapshot(projectId: project).user(email: "off@example.com")?.disabled == true)
}

@Test func checkActionCodeDoesNotConsume() async throws {
    let (a, _) = try makeService()
    let r = try await signUp(a, "chk@example.com")
    _ = try await a.sendOobCode(projectId: project, body: ["requestType": "VERIFY_EMAIL", "idToken": r["idToken"]!], privileged: false, linkBase: "")
    let code = try #require(a.listOobCodes(projectId: project)["oobCodes"]?.arrayValue?.first?["oobCode"])
    #expect(try a.resetPassword(projectId: project, body: ["oobCode": code])["requestType"] == "VERIFY_EMAIL")
    #expect(await message { try a.resetPassword(projectId: project, body: ["oobCode": code, "newPassword": "whatever1"]) } == "INVALID_OOB_CODE")
    _ = try await a.update(projectId: project, body: ["oobCode": code], privileged: false)
    #expect(try a.getUser(projectId: project, uid: r["localId"]!.stringValue!).emailVerified)
    #expect(await message { try a.resetPassword(projectId: project, body: ["oobCode": code]) } == "INVALID_OOB_CODE")
}

@Test func samlProvidersUseTheAssertionNameId() async throws {
    let (a, _) = try makeService()
    let saml = #"{"assertion":{"subject":{"nameId":"Sam@Corp.example"}}}"#
    let r = try await a.signInWithIdp(
        projectId: project,
        body: [
            "requestUri": "http://localhost",
            "postBody": .string("providerId=saml.corp&SAMLResponse=\(AuthService.percentEncode(saml))"),
        ])
    #expect(r["email"] == "sam@corp.example" && r["federatedId"] == "Sam@Corp.example" && r["idToken"] != nil)
    #expect(
        await message { try await a.signInWithIdp(projectId: project, body: ["requestUri": "http://localhost", "postBody": "providerId=saml.corp"]) }
            == "INVALID_IDP_RESPONSE : ((Missing assertion.subject.nameId in SAMLResponse.))")
    #expect(await message { try await a.signInWithIdp(projectId: project, body: ["postBody": "providerId=google.com"]) } == "MISSING_REQUEST_URI")
    #expect(
        await message { try await a.signInWithIdp(projectId: project, body: ["requestUri": "http://localhost", "postBody": "id_token=x"]) }?
            .hasPrefix("INVALID_CREDENTIAL_OR_PROVIDER_ID") == true)
    #expect(
        await message {
            try await a.signInWithIdp(
                projectId: project, body: ["requestUri": "http://localhost", "postBody": "providerId=google.com&id_token=%7Bbad"])
        }?
        .hasPrefix("INVALID_IDP_RESPONSE : Unable to parse id_token") == true)
}

/// Unused codes are bounded per pool, oldest dropped first: a client minting codes it never
/// used grew the pool (and every listing) without limit. Dropping is journaled like consuming.
@Test func unusedCodesStopAtTheLimitOldestFirst() {
    var pool = AuthPool()
    let n = AuthPool.maxCodes + 2
    for i in 0..<n {
        pool.addOob(OobCode(code: "oob\(i)", requestType: "VERIFY_EMAIL", email: "a@example.com", oobLink: "x"))
        pool.setSms("sms\(i)", SmsCode(sessionInfo: "sms\(i)", phoneNumber: "+15555550100", code: "123456"))
    }
    #expect(pool.oobCodes.count == AuthPool.maxCodes && pool.oobOrder.count == AuthPool.maxCodes)
    #expect(pool.oobCodes["oob1"] == nil && pool.oobOrder.first == "oob2" && pool.oobOrder.last == "oob\(n - 1)")
    #expect(pool.smsCodes.count == AuthPool.maxCodes && pool.smsOrder.count == AuthPool.maxCodes)
    #expect(pool.smsCodes["sms1"] == nil && pool.smsOrder.first == "sms2")
    #expect(pool.changes.oob.contains("oob0") && pool.changes.sms.contains("sms0"))
    // Replacing a code keeps one entry in the order; dropping one removes it.
    pool.setSms("sms5", SmsCode(sessionInfo: "sms5", phoneNumber: "+15555550100", code: "654321"))
    pool.setSms("sms6", nil)
    #expect(pool.smsOrder.count == AuthPool.maxCodes - 1 && pool.smsCodes.count == AuthPool.maxCodes - 1)
}

/// A continue URL is kept in the code's link until it is used: its length is bounded.
@Test func continueUrlsAreBounded() async throws {
    let (a, _) = try makeService()
    _ = try await signUp(a, "long@example.com")
    let base = "https://app.example.com/"
    func send(_ url: String) async throws -> JSON {
        try await a.sendOobCode(
            projectId: project, body: ["requestType": "PASSWORD_RESET", "email": "long@example.com", "continueUrl": .string(url)],
            privileged: false, linkBase: "")
    }
    _ = try await send(base + String(repeating: "a", count: 4096 - base.utf8.count))
    #expect(
        await message { try await send(base + String(repeating: "a", count: 4097 - base.utf8.count)) }
            == "INVALID_CONTINUE_URI : ((longer than 4096 bytes))")
}

/// Refresh tokens are indexed by user: a user keeps the newest 100 (the one just issued always
/// among them), deleting a user drops exactly theirs, and a rolled-back write restores the index.
@Test func refreshTokensAreCappedPerUserAndIndexedForDeletion() {
    var pool = AuthPool()
    pool.put(AuthUser(localId: "u1", now: start))
    pool.put(AuthUser(localId: "u2", now: start))
    let n = AuthPool.maxRefreshTokensPerUser + 5
    for i in 0..<n {
        pool.setRefresh("t\(i)", RefreshRecord(localId: "u1", provider: "password", extraClaims: [:], issuedAt: Int64(1000 + i)))
    }
    pool.setRefresh("other", RefreshRecord(localId: "u2", provider: "password", extraClaims: [:], issuedAt: 0))
    #expect(pool.refreshByUser["u1"]?.count == AuthPool.maxRefreshTokensPerUser)
    #expect((0..<5).allSatisfy { pool.refreshTokens["t\($0)"] == nil } && pool.refreshTokens["t\(n - 1)"] != nil)
    // Issued in the same second: the token just issued is never the one dropped.
    pool.setRefresh("same", RefreshRecord(localId: "u1", provider: "password", extraClaims: [:], issuedAt: 0))
    #expect(pool.refreshTokens["same"] != nil && pool.refreshTokens["t5"] == nil)
    pool.changes = AuthChangeSet()  // as after a journal write
    let before = pool
    pool.remove("u1")
    #expect(pool.refreshTokens.keys.sorted() == ["other"] && pool.refreshByUser == ["u2": ["other"]])
    pool.rollBack()
    #expect(pool.refreshByUser == before.refreshByUser && pool.refreshTokens == before.refreshTokens)
}
