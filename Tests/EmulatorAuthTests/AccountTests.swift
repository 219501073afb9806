import EmulatorCore
import EmulatorCrypto
import Testing

@testable import EmulatorAuth

@Test func signUpAndPasswordErrorStrings() async throws {
    let (a, _) = try makeService()
    _ = try await signUp(a, "e@example.com")
    #expect(await message { try await signUp(a, "E@example.com") } == "EMAIL_EXISTS")
    #expect(await message { try await signUp(a, "x@example.com", "123") } == "WEAK_PASSWORD : Password should be at least 6 characters")
    #expect(await message { try await signUp(a, "bad-email") } == "INVALID_EMAIL")
    #expect(await message { try await a.signUp(projectId: project, body: ["password": "secret1"], privileged: false) } == "MISSING_EMAIL")
    #expect(await message { try await a.signUp(projectId: project, body: ["email": "m@example.com"], privileged: false) } == "MISSING_PASSWORD")
    #expect(await message { try await a.signUp(projectId: project, body: ["localId": "x"], privileged: false) } == "UNEXPECTED_PARAMETER : User ID")
    #expect(
        await message { try await a.signInWithPassword(projectId: project, body: ["email": "none@example.com", "password": "secret1"]) }
            == "EMAIL_NOT_FOUND")
    #expect(
        await message { try await a.signInWithPassword(projectId: project, body: ["email": "e@example.com", "password": "wrong12"]) }
            == "INVALID_PASSWORD")
    _ = try a.updateConfig(projectId: project, patch: ["emailPrivacyConfig": ["enableImprovedEmailPrivacy": true]])
    #expect(
        await message { try await a.signInWithPassword(projectId: project, body: ["email": "none@example.com", "password": "secret1"]) }
            == "INVALID_LOGIN_CREDENTIALS")
    #expect(
        await message { try await a.signInWithPassword(projectId: project, body: ["email": "e@example.com", "password": "wrong12"]) }
            == "INVALID_LOGIN_CREDENTIALS")
    let ok = try await a.signInWithPassword(projectId: project, body: ["email": "e@example.com", "password": "secret1"])
    #expect(ok["registered"] == true && ok["idToken"] != nil)
}

@Test func lookupReturnsHashNotPassword() async throws {
    let (a, _) = try makeService()
    let r = try await signUp(a, "h@example.com", "plaintext-pw")
    let u = try a.lookup(projectId: project, body: ["idToken": r["idToken"]!], privileged: false)["users"]?.arrayValue?.first
    #expect(Base64.decode(u?["passwordHash"]?.stringValue ?? "")?.count == 32)
    #expect(u?["salt"] != nil)
    #expect(!(u?.serialized().contains("plaintext-pw") ?? true))
    #expect(await message { try a.lookup(projectId: project, body: [:], privileged: false) } == "MISSING_ID_TOKEN")
    let byEmail = try a.lookup(projectId: project, body: ["email": ["h@example.com"]], privileged: true)
    #expect(byEmail["users"]?.arrayValue?.count == 1)
}

@Test func anonymousUpgradeKeepsUidAndAlreadyLinkedFails() async throws {
    let (a, _) = try makeService()
    // Phone: anonymous, then Apple linked → same uid, no longer anonymous.
    let anon = try await a.signUp(projectId: project, body: [:], privileged: false)
    let linked = try await a.signInWithIdp(
        projectId: project, body: idp("apple.com", sub: "alice-apple", email: "alice@example.com", idToken: anon["idToken"]!.stringValue!))
    #expect(linked["localId"] == anon["localId"])
    let user = try a.getUser(projectId: project, uid: anon["localId"]!.stringValue!)
    #expect(!user.isAnonymous && user.email == "alice@example.com")
    // Tablet: a new anonymous user tries to link the same Apple credential.
    let tablet = try await a.signUp(projectId: project, body: [:], privileged: false)
    #expect(
        await message {
            try await a.signInWithIdp(
                projectId: project, body: idp("apple.com", sub: "alice-apple", email: "alice@example.com", idToken: tablet["idToken"]!.stringValue!))
        } == "FEDERATED_USER_ID_ALREADY_LINKED")
    // Signing in with it instead becomes the phone's account.
    let signedIn = try await a.signInWithIdp(projectId: project, body: idp("apple.com", sub: "alice-apple", email: "alice@example.com"))
    #expect(signedIn["localId"] == anon["localId"] && signedIn["isNewUser"] == false)
    // Linking a credential whose email another account holds.
    let other = try await a.signUp(projectId: project, body: [:], privileged: false)
    #expect(
        await message {
            try await a.signInWithIdp(
                projectId: project, body: idp("google.com", sub: "g9", email: "alice@example.com", idToken: other["idToken"]!.stringValue!))
        } == "EMAIL_EXISTS")
}

@Test func linkEmailPasswordToAnonymousAndUnlink() async throws {
    let (a, _) = try makeService()
    let anon = try await a.signUp(projectId: project, body: [:], privileged: false)
    let linked = try await a.signUp(
        projectId: project, body: ["idToken": anon["idToken"]!, "email": "l@example.com", "password": "secret1"], privileged: false)
    #expect(linked["localId"] == anon["localId"])
    let g = try await a.signInWithIdp(projectId: project, body: idp("github.com", sub: "gh", email: nil, idToken: linked["idToken"]!.stringValue!))
    let u = try await a.update(projectId: project, body: ["idToken": g["idToken"]!, "deleteProvider": ["github.com"]], privileged: false)
    #expect(u["providerUserInfo"]?.arrayValue?.map { $0["providerId"] } == ["password"])
}

@Test func passwordChangeRevokesOldTokensAndReturnsNewOnes() async throws {
    let (a, env) = try makeService()
    let r = try await signUp(a, "p@example.com")
    try env.clock.advance(seconds: 2)
    let u = try await a.update(projectId: project, body: ["idToken": r["idToken"]!, "password": "newsecret"], privileged: false)
    #expect(u["idToken"] != nil)
    #expect(await message { try a.lookup(projectId: project, body: ["idToken": r["idToken"]!], privileged: false) } == "TOKEN_EXPIRED")
    #expect(try a.lookup(projectId: project, body: ["idToken": u["idToken"]!], privileged: false)["users"] != nil)
    #expect(
        await message { try await a.update(projectId: project, body: [:], privileged: false) } == "INVALID_REQ_TYPE : Unsupported request parameters."
    )
}

@Test func projectConfigSwitches() async throws {
    let (a, _) = try makeService()
    _ = try a.updateConfig(projectId: project, patch: ["client": ["permissions": ["disabledUserSignup": true, "disabledUserDeletion": true]]])
    #expect(await message { try await a.signUp(projectId: project, body: [:], privileged: false) } == "ADMIN_ONLY_OPERATION")
    #expect(await message { try await signUp(a, "n@example.com") } == "ADMIN_ONLY_OPERATION")
    let created = try await a.signUp(projectId: project, body: ["email": "n@example.com", "password": "secret1"], privileged: true)
    #expect(created["idToken"] == nil && created["localId"] != nil)
    let t = try await a.signInWithPassword(projectId: project, body: ["email": "n@example.com", "password": "secret1"])
    #expect(
        await message { try await a.deleteAccount(projectId: project, body: ["idToken": t["idToken"]!], privileged: false) } == "ADMIN_ONLY_OPERATION"
    )
    _ = try await a.deleteAccount(projectId: project, body: ["localId": created["localId"]!], privileged: true)
    _ = try a.updateConfig(projectId: project, patch: ["disabledProviders": ["password", "google.com"]])
    #expect(
        await message { try await a.signInWithIdp(projectId: project, body: idp("google.com", sub: "g", email: "z@gmail.com")) }
            == "OPERATION_NOT_ALLOWED")
    #expect(
        await message { try a.updateConfig(projectId: project, patch: ["signIn": ["allowDuplicateEmails": "yes"]]) }
            == "INVALID_CONFIG : signIn.allowDuplicateEmails must be a boolean")
    #expect(a.getConfig(projectId: project)["signIn"]?["allowDuplicateEmails"] == false)
}

@Test func purgeAnonymousByLastSignIn() async throws {
    let (a, env) = try makeService()
    let old = try await a.signUp(projectId: project, body: [:], privileged: false)
    _ = try await signUp(a, "keep@example.com")
    try env.clock.advance(seconds: 100)
    let fresh = try await a.signUp(projectId: project, body: [:], privileged: false)
    let purged = try await a.purgeAnonymous(projectId: project, olderThanSeconds: 50)
    #expect(purged == [old["localId"]!.stringValue!])
    #expect((try? a.getUser(projectId: project, uid: fresh["localId"]!.stringValue!)) != nil)
    #expect(a.snapshot(projectId: project).users.count == 2)
    #expect(
        await message { try await a.purgeAnonymous(projectId: project, olderThanSeconds: .max) }
            == "olderThanSeconds must be an integer between 0 and 1000000000000.")
    #expect(await message { try await a.purgeAnonymous(projectId: project, olderThanSeconds: -1) } != nil)
}

@Test func automaticAnonymousTTL() async throws {
    var cfg = AuthServiceConfig()
    cfg.anonymousTtlSeconds = 10
    let (a, env) = try makeService(cfg)
    _ = try await a.signUp(projectId: project, body: [:], privileged: false)
    try env.clock.advance(seconds: 11)
    let next = try await a.signUp(projectId: project, body: [:], privileged: false)
    #expect(a.snapshot(projectId: project).users.keys.sorted() == [next["localId"]!.stringValue!])
}

@Test func batchCreateVerifiesImportedHashes() async throws {
    let (a, _) = try makeService()
    let r = try a.batchCreate(
        projectId: project,
        body: [
            "hashAlgorithm": "SCRYPT", "rounds": 8, "memoryCost": 14, "saltSeparator": "Bw==",
            "signerKey": "jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==",
            "users": [
                [
                    "localId": "imp1", "email": "imp@example.com", "salt": "42xEC+ixf3L2lw==",
                    "passwordHash": "lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==",
                ],
                ["email": "nouid@example.com"],
            ],
        ])
    #expect(r["error"]?.arrayValue?.count == 1)
    let s = try await a.signInWithPassword(projectId: project, body: ["email": "imp@example.com", "password": "user1password"])
    #expect(s["localId"] == "imp1")
    #expect(
        await message { try await a.signInWithPassword(projectId: project, body: ["email": "imp@example.com", "password": "wrong-pw"]) }
            == "INVALID_PASSWORD")
    // HMAC_SHA256: hash = HMAC(key, password + salt).
    let key: [UInt8] = Array("hmac-key".utf8), salt: [UInt8] = [1, 2, 3]
    let h = Digest.hmacSHA256(key: key, Array("pw-hmac1".utf8) + salt)
    _ = try a.batchCreate(
        projectId: project,
        body: [
            "hashAlgorithm": "HMAC_SHA256", "signerKey": .string(Base64.encode(key)),
            "users": [["localId": "h1", "email": "h1@example.com", "salt": .string(Base64.encode(salt)), "passwordHash": .string(Base64.encode(h))]],
        ])
    #expect(try await a.signInWithPassword(projectId: project, body: ["email": "h1@example.com", "password": "pw-hmac1"])["localId"] == "h1")
    let p = try Digest.pbkdf2SHA256(password: Array("pw-pbkdf2".utf8), salt: salt, iterations: 10, length: 32)
    _ = try a.batchCreate(
        projectId: project,
        body: [
            "hashAlgorithm": "PBKDF2_SHA256", "rounds": 10,
            "users": [["localId": "p1", "email": "p1@example.com", "salt": .string(Base64.encode(salt)), "passwordHash": .string(Base64.encode(p))]],
        ])
    #expect(try await a.signInWithPassword(projectId: project, body: ["email": "p1@example.com", "password": "pw-pbkdf2"])["localId"] == "p1")
    #expect(
        await message { try a.batchCreate(projectId: project, body: ["hashAlgorithm": "MD4", "users": [["localId": "x"]]]) }
            == "INVALID_HASH_ALGORITHM")
    #expect(await message { try a.batchCreate(projectId: project, body: [:]) } == "MISSING_USER_ACCOUNT")
    #expect(
        await message {
            try a.batchCreate(projectId: project, body: ["hashAlgorithm": "PBKDF2_SHA256", "rounds": 99_999_999, "users": [["localId": "x"]]])
        }
            == "INVALID_HASH_PARAMETERS : PBKDF2_SHA256 needs rounds 1..120000")
    #expect(
        await message {
            try a.batchCreate(
                projectId: project,
                body: [
                    "hashAlgorithm": "STANDARD_SCRYPT", "cpuMemCost": .int(1 << 30), "blockSize": 8, "parallelization": 1,
                    "users": [["localId": "x"]],
                ])
        }?
        .hasPrefix("INVALID_HASH_PARAMETERS") == true)
}

@Test func batchGetPagesAndBatchDeleteNeedsForce() async throws {
    let (a, _) = try makeService()
    for i in 0..<3 { _ = try await a.signUp(projectId: project, body: ["localId": .string("u\(i)")], privileged: true) }
    let page = try a.batchGet(projectId: project, maxResults: 2, pageToken: nil)
    #expect(page["users"]?.arrayValue?.map { $0["localId"] } == ["u0", "u1"] && page["nextPageToken"] == "u1")
    #expect(try a.batchGet(projectId: project, maxResults: 2, pageToken: "u1")["users"]?.arrayValue?.count == 1)
    #expect(try a.batchGet(projectId: project, maxResults: -1, pageToken: nil)["users"]?.arrayValue?.count == 3)
    let d = try await a.batchDelete(projectId: project, body: ["localIds": ["u0", "u1"]])
    #expect(d["errors"]?.arrayValue?.first?["message"] == "NOT_DISABLED : Disable the account before batch deletion.")
    _ = try await a.batchDelete(projectId: project, body: ["localIds": ["u0", "u1"], "force": true])
    #expect(a.snapshot(projectId: project).users.keys.sorted() == ["u2"])
    #expect(await message { try await a.signUp(projectId: project, body: ["localId": "u2"], privileged: true) } == "DUPLICATE_LOCAL_ID")
}

@Test func inProcessAdminOperations() async throws {
    let (a, _) = try makeService()
    let u = try await a.createUser(projectId: project, properties: ["localId": "fn1", "email": "fn@example.com", "phoneNumber": "+15550001"])
    #expect(u.email == "fn@example.com" && u.phoneNumber == "+15550001")
    let v = try await a.updateUser(projectId: project, uid: "fn1", properties: ["displayName": "Fn", "disableUser": true])
    #expect(v.displayName == "Fn" && v.disabled)
    #expect(await message { try await a.createUser(projectId: project, properties: ["phoneNumber": "+15550001"]) } == "PHONE_NUMBER_EXISTS")
    #expect(await message { try await a.updateUser(projectId: project, uid: "missing", properties: [:]) } == "USER_NOT_FOUND")
    #expect(try a.signInMethods(projectId: project, email: "fn@example.com") == [])
}

@Test func createAuthUriListsMethods() async throws {
    let (a, _) = try makeService()
    _ = try await signUp(a, "m@example.com")
    _ = try await a.signInWithIdp(projectId: project, body: idp("apple.com", sub: "ap", email: "m@example.com"))
    // Apple (trusted) took over the unverified password account, so only Apple remains.
    #expect(try a.signInMethods(projectId: project, email: "M@example.com") == ["apple.com"])
    _ = try a.updateConfig(projectId: project, patch: ["emailPrivacyConfig": ["enableImprovedEmailPrivacy": true]])
    #expect(try a.signInMethods(projectId: project, email: "m@example.com") == [])
}

@Test func batchCreateAcceptsBcrypt() async throws {
    guard BCrypt.isAvailable else { return }
    let (a, _) = try makeService()
    let h = "$2b$04$abcdefghijklmnopqrstuughE8Ev8uGFaUgY2cNEySvxngrb/Jzdm"
    _ = try a.batchCreate(
        projectId: project,
        body: [
            "hashAlgorithm": "BCRYPT",
            "users": [["localId": "b1", "email": "b1@example.com", "passwordHash": .string(Base64.encode(Array(h.utf8)))]],
        ])
    #expect(try await a.signInWithPassword(projectId: project, body: ["email": "b1@example.com", "password": "password"])["localId"] == "b1")
    #expect(
        await message { try await a.signInWithPassword(projectId: project, body: ["email": "b1@example.com", "password": "passwore"]) }
            == "INVALID_PASSWORD")
}

/// Every sign-in recomputes an imported hash: a bcrypt cost of 16 held each attempt for 4 s (31
/// would take hours), and a PBKDF2 hash of 1,024 bytes cost 2 s. Such rows are refused by index,
/// as are bcrypt strings sign-in would never accept (`$2x$`, `$3a$`: every password was wrong).
@Test func batchCreateRefusesHashesThatMakeSignInExpensive() async throws {
    let (a, _) = try makeService()
    func row(_ id: String, _ hash: [UInt8]) -> JSON {
        ["localId": .string(id), "email": .string("\(id)@example.com"), "passwordHash": .string(Base64.encode(hash))]
    }
    func bcrypt(_ prefix: String) -> [UInt8] { Array((prefix + String(repeating: "a", count: 22) + String(repeating: "b", count: 31)).utf8) }
    let fine = Array("$2b$04$abcdefghijklmnopqrstuughE8Ev8uGFaUgY2cNEySvxngrb/Jzdm".utf8)
    let r = try a.batchCreate(
        projectId: project,
        body: [
            "hashAlgorithm": "BCRYPT",
            "users": [
                row("s1", bcrypt("$2b$16$")), row("s2", fine), row("s3", [1, 2]), row("s4", bcrypt("$2x$10$")), row("s5", bcrypt("$3a$10$")),
                row("s6", bcrypt("$2y$10$")),
            ],
        ])
    let errors = r["error"]?.arrayValue ?? []
    #expect(errors.map { $0["index"] } == [0, 2, 3, 4])
    #expect(errors.first?["message"] == "INVALID_PASSWORD_HASH : BCRYPT cost must be 4..14, got 16")
    let shape =
        "INVALID_PASSWORD_HASH : BCRYPT hashes are 60-character modular-crypt strings starting $2a$, $2b$ or $2y$ and a two-digit cost, such as $2b$10$"
    #expect(errors.dropFirst().map { $0["message"] } == [.string(shape), .string(shape), .string(shape)])
    let long = try a.batchCreate(
        projectId: project,
        body: [
            "hashAlgorithm": "PBKDF2_SHA256", "rounds": 1000,
            "users": [row("p1", [UInt8](repeating: 7, count: 1024)), row("p2", [UInt8](repeating: 7, count: 32))],
        ])
    #expect(long["error"]?.arrayValue?.map { $0["index"] } == [0])
}
