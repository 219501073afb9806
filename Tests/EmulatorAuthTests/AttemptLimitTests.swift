import EmulatorCore
import Testing

@testable import EmulatorAuth

/// Six-digit codes cannot be brute-forced (issue 22, item 12): wrong SMS and TOTP codes are
/// limited per verification session and per phone number or factor (`AttemptLimiter`).

private func wrong(_ code: String) -> String { code == "000000" ? "111111" : "000000" }

@Test func anSmsSessionTakesFiveWrongCodesThenEnds() async throws {
    let (a, _) = try makeService()
    _ = try a.sendVerificationCode(projectId: project, body: ["phoneNumber": "+15555550101"])
    let c = try lastCode(a)
    let attempt: (String) async -> String? = { code in
        await message { try await a.signInWithPhoneNumber(projectId: project, body: ["sessionInfo": .string(c.session), "code": .string(code)]) }
    }
    for _ in 0..<AttemptLimiter.perSession { #expect(await attempt(wrong(c.code)) == "INVALID_CODE") }
    // Even the right code: the session is spent and dropped.
    #expect(await attempt(c.code)?.hasPrefix("TOO_MANY_ATTEMPTS_TRY_LATER") == true)
    #expect(await attempt(c.code) == "INVALID_SESSION_INFO")
}

@Test func aNumberTakesTenWrongCodesPerHourAcrossSessions() async throws {
    let (a, env) = try makeService()
    let phone = "+15555550102"
    func session() throws -> (code: String, session: String, phone: String) {
        _ = try a.sendVerificationCode(projectId: project, body: ["phoneNumber": .string(phone)])
        return try lastCode(a)
    }
    func attempt(_ s: (code: String, session: String, phone: String), _ code: String) async -> String? {
        await message { try await a.signInWithPhoneNumber(projectId: project, body: ["sessionInfo": .string(s.session), "code": .string(code)]) }
    }
    for _ in 0..<(AttemptLimiter.perSubject / 2) {
        let s = try session()
        for _ in 0..<2 { #expect(await attempt(s, wrong(s.code)) == "INVALID_CODE") }
    }
    // A fresh session with the right code is refused while the number's window lasts...
    let fresh = try session()
    #expect(await attempt(fresh, fresh.code)?.hasPrefix("TOO_MANY_ATTEMPTS_TRY_LATER") == true)
    // ...and a new one works once it has passed (project clock).
    try env.clock.advance(seconds: Double(AttemptLimiter.windowSeconds))
    let later = try session()
    #expect(await attempt(later, later.code) == nil)
}

@Test func totpSignInIsLimitedPerPendingCredentialAndPerFactor() async throws {
    let (a, env) = try makeService()
    let u = try await verifiedUser(a, "guess@example.com")
    let s = try a.mfaEnrollmentStart(projectId: project, body: ["idToken": .string(u.idToken), "totpEnrollmentInfo": [:]])
    let info = try #require(s["totpSessionInfo"])
    let secret = try #require(info["sharedSecretKey"]?.stringValue.flatMap(Base32.decode))
    let now = { env.clock.now().seconds }
    func code(_ at: Int64) -> String { TOTP.code(secret: secret, counter: TOTP.counter(at: at)) }
    let f = try a.mfaEnrollmentFinalize(
        projectId: project,
        body: [
            "idToken": .string(u.idToken),
            "totpVerificationInfo": ["sessionInfo": info["sessionInfo"]!, "verificationCode": .string(code(now()))],
        ])
    let id = try #require(try claims(f["idToken"])["firebase"]?["second_factor_identifier"])
    try env.clock.advance(seconds: 30)
    func pending() async throws -> JSON {
        try #require(
            try await a.signInWithPassword(projectId: project, body: ["email": "guess@example.com", "password": "secret1"])["mfaPendingCredential"])
    }
    func fin(_ p: JSON, _ c: String) async -> String? {
        await message {
            try await a.mfaSignInFinalize(
                projectId: project,
                body: ["mfaPendingCredential": p, "mfaEnrollmentId": id, "totpVerificationInfo": ["verificationCode": .string(c)]])
        }
    }
    let first = try await pending()
    for _ in 0..<AttemptLimiter.perSession { #expect(await fin(first, wrong(code(now()))) == "INVALID_CODE") }
    #expect(await fin(first, code(now()))?.hasPrefix("TOO_MANY_ATTEMPTS_TRY_LATER") == true)
    #expect(await fin(first, code(now())) == "INVALID_MFA_PENDING_CREDENTIAL")
    // Five more wrong codes under a new credential spend the factor's hour.
    let second = try await pending()
    for _ in 0..<(AttemptLimiter.perSubject - AttemptLimiter.perSession) { #expect(await fin(second, wrong(code(now()))) == "INVALID_CODE") }
    let third = try await pending()
    #expect(await fin(third, code(now()))?.hasPrefix("TOO_MANY_ATTEMPTS_TRY_LATER") == true)
    try env.clock.advance(seconds: Double(AttemptLimiter.windowSeconds))
    let fourth = try await pending()
    #expect(await fin(fourth, code(now())) == nil)
}

@Test func totpEnrolmentIsLimitedPerSession() async throws {
    let (a, env) = try makeService()
    let u = try await verifiedUser(a, "enrolguess@example.com")
    let s = try a.mfaEnrollmentStart(projectId: project, body: ["idToken": .string(u.idToken), "totpEnrollmentInfo": [:]])
    let info = try #require(s["totpSessionInfo"])
    let secret = try #require(info["sharedSecretKey"]?.stringValue.flatMap(Base32.decode))
    let right = TOTP.code(secret: secret, counter: TOTP.counter(at: env.clock.now().seconds))
    func fin(_ c: String) async -> String? {
        await message {
            try a.mfaEnrollmentFinalize(
                projectId: project,
                body: ["idToken": .string(u.idToken), "totpVerificationInfo": ["sessionInfo": info["sessionInfo"]!, "verificationCode": .string(c)]])
        }
    }
    for _ in 0..<AttemptLimiter.perSession { #expect(await fin(wrong(right)) == "INVALID_CODE") }
    #expect(await fin(right)?.hasPrefix("TOO_MANY_ATTEMPTS_TRY_LATER") == true)
    #expect(await fin(right) == "INVALID_SESSION_INFO")
}
