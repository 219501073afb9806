import FirebaseEmulatorTesting
import Foundation
import Testing

/// Every kind of user the factories make, and their tokens' claims.
@Suite struct UserTests {
    @Test(arguments: Backend.allCases) func everyKindSignsIn(backend: Backend) async throws {
        let project = try await backend.emulator().createProject(hint: "users")
        defer { Task { try? await project.emulator.removeProject(project) } }

        let custom = try await project.createUser(claims: ["admin": true])
        #expect(custom.provider == "custom" && custom.claims["admin"] == true)
        #expect(custom.claims["firebase"]?["sign_in_provider"] == "custom")

        let named = try await project.createUser(.custom(uid: "alice"))
        #expect(named.uid == "alice" && named.claims["user_id"] == "alice")

        let anonymous = try await project.createUser(.anonymous, claims: ["role": "tester"])
        #expect(anonymous.claims["provider_id"] == "anonymous" && anonymous.claims["role"] == "tester")

        let password = try await project.createUser(.password(email: "bob@example.com", emailVerified: true), claims: ["tier": 2])
        #expect(password.email == "bob@example.com" && password.claims["email_verified"] == true && password.claims["tier"] == 2)

        let apple = try await project.createUser(.apple(email: "carol@privaterelay.appleid.com"))
        #expect(apple.claims["firebase"]?["sign_in_provider"] == "apple.com")
        let google = try await project.createUser(.google(email: "dan@gmail.com"))
        #expect(google.claims["firebase"]?["sign_in_provider"] == "google.com")

        let mfa = try await project.createUser(.mfa(phone: "+15555550123"))
        #expect(mfa.claims["firebase"]?["sign_in_second_factor"] == "phone")
        #expect(mfa.mfaEnrollmentId != nil)
        try await project.authCall("sendVerificationCode", ["phoneNumber": "+15555550199"])
        #expect(try await project.smsCodes().contains { $0.phoneNumber == "+15555550199" && $0.code.count == 6 && !$0.sessionInfo.isEmpty })

        let token = try await project.idToken(uid: "erin", claims: ["beta": true])
        #expect(TestUser(uid: "erin", idToken: token).claims["beta"] == true)
    }

    @Test(arguments: Backend.allCases) func refreshAndLinking(backend: Backend) async throws {
        let project = try await backend.emulator().createProject(hint: "linking")
        var anonymous = try await project.createUser(.anonymous)
        try await project.setCustomClaims(uid: anonymous.uid, ["plan": "pro"])
        try await project.refresh(&anonymous)
        #expect(anonymous.claims["plan"] == "pro")
        let linked = try await project.signInWithIdp("apple.com", email: "x@privaterelay.appleid.com", sub: "apple-x", linkingTo: anonymous)
        #expect(linked.uid == anonymous.uid)
        let again = try await project.signInWithIdp("apple.com", sub: "apple-x")
        #expect(again.uid == anonymous.uid)
        try await project.emulator.removeProject(project)
    }

    @Test(arguments: Backend.allCases) func emailActionCodesAreListed(backend: Backend) async throws {
        let project = try await backend.emulator().createProject(hint: "oob")
        let user = try await project.createUser(.password(email: "reset@example.com"))
        try await project.authCall("sendOobCode", ["requestType": "PASSWORD_RESET", "email": .string(user.email ?? "")])
        let codes = try await project.oobCodes()
        #expect(codes.count == 1 && codes[0].requestType == "PASSWORD_RESET" && codes[0].link.contains(codes[0].code))
        try await project.emulator.removeProject(project)
    }
}
