import EmulatorCore
import Testing

@testable import EmulatorAuth

/// Creates a tenant and returns its id.
func makeTenant(_ a: AuthService, _ body: UTF8Dictionary<JSON>) throws -> String {
    let t = try a.createTenant(projectId: project, body: body)
    return String(try #require(t["name"]?.stringValue?.split(separator: "/").last))
}

@Test func tenantCrudWithPagingAndUpdateMask() async throws {
    let (a, _) = try makeService()
    let t = try a.createTenant(projectId: project, body: ["displayName": "Alpha-1"])
    let id = String(t["name"]!.stringValue!.split(separator: "/").last!)
    #expect(id.hasPrefix("alpha-1-") && id.count == "alpha-1-".count + 5)
    // Production's defaults: everything off.
    #expect(
        t["allowPasswordSignup"] == false && t["enableEmailLinkSignin"] == false && t["enableAnonymousUser"] == false && t["disableAuth"] == false)
    #expect(t["mfaConfig"]?["state"] == "DISABLED")
    for n in 0..<4 { _ = try a.createTenant(projectId: project, body: ["displayName": .string("Beta\(n)")]) }
    let p1 = try a.listTenants(projectId: project, pageSize: 3, pageToken: nil)
    let p2 = try a.listTenants(projectId: project, pageSize: 3, pageToken: p1["nextPageToken"]?.stringValue)
    #expect(p1["tenants"]?.arrayValue?.count == 3 && p2["tenants"]?.arrayValue?.count == 2 && p2["nextPageToken"] == nil)
    #expect(await message { try a.listTenants(projectId: project, pageSize: 0, pageToken: nil) }?.hasPrefix("INVALID_PAGE_SIZE") == true)
    // updateMask: named fields take the body's value (or their default when absent); others stay.
    _ = try a.updateTenant(
        projectId: project, tenantId: id, patch: ["allowPasswordSignup": true, "displayName": "ignored"], updateMask: "allowPasswordSignup")
    var got = try a.getTenant(projectId: project, tenantId: id)
    #expect(got["allowPasswordSignup"] == true && got["displayName"] == "Alpha-1")
    _ = try a.updateTenant(
        projectId: project, tenantId: id, patch: ["mfaConfig": ["state": "ENABLED"], "client": ["permissions": ["disabledUserSignup": true]]],
        updateMask: "mfaConfig.state,client.permissions.disabledUserSignup")
    got = try a.getTenant(projectId: project, tenantId: id)
    #expect(
        got["mfaConfig"]?["state"] == "ENABLED" && got["client"]?["permissions"]?["disabledUserSignup"] == true && got["allowPasswordSignup"] == true)
    _ = try a.updateTenant(projectId: project, tenantId: id, patch: [:], updateMask: "allow_password_signup")
    #expect(try a.getTenant(projectId: project, tenantId: id)["allowPasswordSignup"] == false)
    #expect(
        await message { try a.updateTenant(projectId: project, tenantId: id, patch: [:], updateMask: "bogus") }?.hasPrefix("INVALID_ARGUMENT") == true
    )
    #expect(
        await message { try a.updateTenant(projectId: project, tenantId: id, patch: ["allowPasswordSignup": "yes"], updateMask: nil) }?.hasPrefix(
            "INVALID_ARGUMENT") == true)
    #expect(
        await message { try a.createTenant(projectId: project, body: ["nope": true]) }
            == "INVALID_ARGUMENT : Invalid JSON payload received. Unknown name \"nope\" at 'tenant'.")
    #expect(
        await message { try a.createTenant(projectId: project, body: ["testPhoneNumbers": ["555": "123456"]]) }?.hasPrefix(
            "INVALID_TEST_PHONE_NUMBER") == true)
    // Delete: gone for good, no silent re-creation.
    try a.deleteTenant(projectId: project, tenantId: id)
    #expect(await message { try a.getTenant(projectId: project, tenantId: id) }?.hasPrefix("TENANT_NOT_FOUND") == true)
    #expect(await message { try a.deleteTenant(projectId: project, tenantId: id) }?.hasPrefix("TENANT_NOT_FOUND") == true)
    #expect(
        await message { try await a.signUp(projectId: project, tenantId: id, body: [:], privileged: false) }?.hasPrefix("TENANT_NOT_FOUND") == true)
}

@Test func tenantPoolsAreSeparateAndTheTenantTravels() async throws {
    let (a, _) = try makeService()
    let t1 = try makeTenant(a, ["displayName": "One", "allowPasswordSignup": true])
    let t2 = try makeTenant(a, ["displayName": "Two", "allowPasswordSignup": true])
    // The same email in the project and in two tenants: three accounts.
    let p = try await signUp(a, "same@example.com")
    let u1 = try await a.signUp(
        projectId: project, body: ["email": "same@example.com", "password": "secret1", "tenantId": .string(t1)], privileged: false)
    let u2 = try await a.signUp(projectId: project, tenantId: t2, body: ["email": "same@example.com", "password": "secret1"], privileged: false)
    #expect(Set([p["localId"], u1["localId"], u2["localId"]]).count == 3)
    let c1 = try claims(u1["idToken"])
    #expect(c1["firebase"]?["tenant"] == .string(t1))
    // Lookup by the token finds the tenant's user; naming another tenant is a mismatch.
    #expect(
        try a.lookup(projectId: project, body: ["idToken": u1["idToken"]!], privileged: false)["users"]?.arrayValue?.first?["tenantId"] == .string(t1)
    )
    #expect(
        await message { try a.lookup(projectId: project, body: ["idToken": u1["idToken"]!, "tenantId": .string(t2)], privileged: false) }
            == "TENANT_ID_MISMATCH")
    #expect(
        await message { try a.lookup(projectId: project, tenantId: t2, body: ["idToken": u1["idToken"]!], privileged: false) } == "TENANT_ID_MISMATCH"
    )
    #expect(
        await message { try await a.signUp(projectId: project, tenantId: t1, body: ["tenantId": .string(t2)], privileged: false) }
            == "TENANT_ID_MISMATCH")
    // Refresh tokens carry their tenant.
    let r = try a.refresh(projectId: project, grantType: "refresh_token", refreshToken: u1["refreshToken"]?.stringValue)
    #expect(try claims(r["id_token"])["firebase"]?["tenant"] == .string(t1))
    #expect(
        await message { try a.refresh(projectId: project, grantType: "refresh_token", refreshToken: u1["refreshToken"]?.stringValue, tenantId: t2) }
            == "TENANT_ID_MISMATCH")
    // Custom tokens: tenant_id must be the request's tenant.
    let aud = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"
    let ct = try JWT.encode(["aud": .string(aud), "uid": "cu", "tenant_id": .string(t1)], key: nil)
    #expect(await message { try await a.signInWithCustomToken(projectId: project, body: ["token": .string(ct)]) } == "TENANT_ID_MISMATCH")
    let signedIn = try await a.signInWithCustomToken(projectId: project, body: ["token": .string(ct), "tenantId": .string(t1)])
    #expect(try claims(signedIn["idToken"])["firebase"]?["tenant"] == .string(t1))
    // Other services verify tenant tokens against the tenant's pool.
    #expect(try a.verifyIDTokenStrictly(projectId: project, token: u1["idToken"]!.stringValue!).uid == u1["localId"]!.stringValue!)
    // OOB links name the tenant; codes are listed per tenant.
    _ = try await a.sendOobCode(
        projectId: project, tenantId: t1, body: ["requestType": "VERIFY_EMAIL", "idToken": u1["idToken"]!], privileged: false, linkBase: "")
    #expect(try a.listOobCodes(projectId: project)["oobCodes"] == [])
    let link = try #require(a.listOobCodes(projectId: project, tenantId: t1)["oobCodes"]?.arrayValue?.first?["oobLink"]?.stringValue)
    #expect(link.contains("&tenantId=\(t1)"))
    // Deleting a tenant removes its users; the others stay.
    try a.deleteTenant(projectId: project, tenantId: t1)
    #expect(
        await message { try a.refresh(projectId: project, grantType: "refresh_token", refreshToken: u1["refreshToken"]?.stringValue) }
            == "INVALID_REFRESH_TOKEN")
    #expect(a.snapshot(projectId: project).tenants[t2]?.pool.users.count == 1 && a.snapshot(projectId: project).users.count == 1)
}

@Test func tenantSwitches() async throws {
    let (a, env) = try makeService()
    let off = try makeTenant(a, ["displayName": "Off"])
    #expect(await message { try await a.signUp(projectId: project, tenantId: off, body: [:], privileged: false) } == "ADMIN_ONLY_OPERATION")
    #expect(
        await message {
            try await a.signUp(projectId: project, tenantId: off, body: ["email": "x@example.com", "password": "secret1"], privileged: false)
        } == "OPERATION_NOT_ALLOWED")
    #expect(
        await message { try await a.signInWithPassword(projectId: project, tenantId: off, body: ["email": "x@example.com", "password": "secret1"]) }
            == "PASSWORD_LOGIN_DISABLED")
    #expect(
        await message {
            try await a.sendOobCode(
                projectId: project, tenantId: off, body: ["requestType": "EMAIL_SIGNIN", "email": "x@example.com"], privileged: false, linkBase: "")
        } == "OPERATION_NOT_ALLOWED")
    // Admin calls still work where end users are refused (user actions).
    let locked = try makeTenant(
        a,
        [
            "displayName": "Locked", "allowPasswordSignup": true, "enableAnonymousUser": true,
            "client": ["permissions": ["disabledUserSignup": true, "disabledUserDeletion": true]],
        ])
    #expect(await message { try await a.signUp(projectId: project, tenantId: locked, body: [:], privileged: false) } == "ADMIN_ONLY_OPERATION")
    #expect(
        await message {
            try await a.signUp(projectId: project, tenantId: locked, body: ["email": "y@example.com", "password": "secret1"], privileged: false)
        } == "ADMIN_ONLY_OPERATION")
    let made = try await a.signUp(projectId: project, tenantId: locked, body: ["email": "y@example.com", "password": "secret1"], privileged: true)
    let s = try await a.signInWithPassword(projectId: project, tenantId: locked, body: ["email": "y@example.com", "password": "secret1"])
    #expect(
        await message { try await a.deleteAccount(projectId: project, tenantId: locked, body: ["idToken": s["idToken"]!], privileged: false) }
            == "ADMIN_ONLY_OPERATION")
    _ = try await a.deleteAccount(projectId: project, tenantId: locked, body: ["localId": made["localId"]!], privileged: true)
    // disableAuth: everything in the tenant answers PROJECT_DISABLED, admin calls included.
    let disabled = try makeTenant(a, ["displayName": "Disabled", "disableAuth": true, "allowPasswordSignup": true])
    #expect(await message { try await a.signUp(projectId: project, tenantId: disabled, body: [:], privileged: false) } == "PROJECT_DISABLED")
    #expect(await message { try a.batchGet(projectId: project, tenantId: disabled, maxResults: 10, pageToken: nil) } == "PROJECT_DISABLED")
    // Test phone numbers: the fixed code, and no random one.
    let phones = try makeTenant(a, ["displayName": "Phones", "testPhoneNumbers": ["+15555550999": "123456"]])
    let sent = try a.sendVerificationCode(projectId: project, tenantId: phones, body: ["phoneNumber": "+15555550999"])
    let ph = try await a.signInWithPhoneNumber(projectId: project, tenantId: phones, body: ["sessionInfo": sent["sessionInfo"]!, "code": "123456"])
    #expect(try claims(ph["idToken"])["firebase"]?["tenant"] == .string(phones))
    #expect(try a.listVerificationCodes(projectId: project)["verificationCodes"] == [])
    // autodeleteAnonymousUsers: anonymous users idle 30 days (no auth.anonymousTtlSeconds) are purged.
    let auto = try makeTenant(a, ["displayName": "Auto", "enableAnonymousUser": true, "autodeleteAnonymousUsers": true])
    let keep = try makeTenant(a, ["displayName": "Keep", "enableAnonymousUser": true])
    let old = try await a.signUp(projectId: project, tenantId: auto, body: [:], privileged: false)
    let kept = try await a.signUp(projectId: project, tenantId: keep, body: [:], privileged: false)
    try env.clock.advance(seconds: 30 * 86_400 + 1)
    _ = try await a.signUp(projectId: project, tenantId: auto, body: [:], privileged: false)
    #expect(await message { try a.getUser(projectId: project, tenantId: auto, uid: old["localId"]!.stringValue!) } == "USER_NOT_FOUND")
    #expect(try a.getUser(projectId: project, tenantId: keep, uid: kept["localId"]!.stringValue!).localId == kept["localId"]!.stringValue!)
}

@Test func tenantMfaFollowsTheTenantsConfig() async throws {
    let (a, _) = try makeService()
    let none = try makeTenant(a, ["displayName": "NoMfa", "allowPasswordSignup": true])
    let u = try await verifiedUser(a, "t@example.com", tenant: none)
    #expect(
        await message {
            try a.mfaEnrollmentStart(
                projectId: project,
                body: ["idToken": .string(u.idToken), "tenantId": .string(none), "phoneEnrollmentInfo": ["phoneNumber": "+15555550300"]])
        }
            == "OPERATION_NOT_ALLOWED : SMS based MFA not enabled.")
    let mfa = try makeTenant(
        a, ["displayName": "Mfa", "allowPasswordSignup": true, "mfaConfig": ["state": "ENABLED", "enabledProviders": ["PHONE_SMS"]]])
    let v = try await verifiedUser(a, "t@example.com", tenant: mfa)
    #expect(
        await message {
            try a.mfaEnrollmentStart(projectId: project, body: ["idToken": .string(v.idToken), "tenantId": .string(mfa), "totpEnrollmentInfo": [:]])
        }
            == "OPERATION_NOT_ALLOWED : TOTP based MFA not enabled.")
    let e = try await enrollPhone(a, idToken: v.idToken, phone: "+15555550301", tenant: mfa)
    #expect(try claims(.string(e.idToken))["firebase"]?["tenant"] == .string(mfa))
    // The code went to the tenant's list only.
    #expect(try a.listVerificationCodes(projectId: project)["verificationCodes"] == [])
    let r = try await a.signInWithPassword(projectId: project, tenantId: mfa, body: ["email": "t@example.com", "password": "secret1"])
    let pending = try #require(r["mfaPendingCredential"])
    // The pending credential is bound to its tenant.
    #expect(
        await message {
            try a.mfaSignInStart(projectId: project, body: ["mfaPendingCredential": pending, "mfaEnrollmentId": .string(e.enrollmentId)])
        } == "INVALID_MFA_PENDING_CREDENTIAL")
    _ = try a.mfaSignInStart(projectId: project, tenantId: mfa, body: ["mfaPendingCredential": pending, "mfaEnrollmentId": .string(e.enrollmentId)])
    let sent = try lastCode(a, tenant: mfa)
    let f = try await a.mfaSignInFinalize(
        projectId: project,
        body: [
            "tenantId": .string(mfa), "mfaPendingCredential": pending,
            "phoneVerificationInfo": ["sessionInfo": .string(sent.session), "code": .string(sent.code)],
        ])
    let c = try claims(f["idToken"])
    #expect(c["firebase"]?["tenant"] == .string(mfa) && c["firebase"]?["sign_in_second_factor"] == "phone")
}

@Test func resetSnapshotsAndRestoreCoverTenants() async throws {
    let (a, _) = try makeService()
    let t = try makeTenant(a, ["displayName": "Snap", "allowPasswordSignup": true])
    _ = try await a.signUp(projectId: project, tenantId: t, body: ["email": "s@example.com", "password": "secret1"], privileged: false)
    let snap = a.captureProject(project)
    try a.resetProject(project)
    #expect(a.tenants(projectId: project).isEmpty)
    try a.restoreProject(project, from: snap)
    #expect(a.snapshot(projectId: project).tenants[t]?.pool.user(email: "s@example.com") != nil)
}
