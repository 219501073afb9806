import Foundation

/// A signed-in user made for a test: uid, ID token, refresh token, and how it was made.
public struct TestUser: Sendable, Hashable {
    /// The user's uid.
    public let uid: String
    /// A fresh ID token (an hour on the project clock).
    public var idToken: String
    /// The refresh token.
    public var refreshToken: String
    /// `anonymous`, `password`, `custom`, `apple.com`, `google.com`, ...
    public let provider: String
    /// The email, when it has one.
    public let email: String?
    /// The password, for password users.
    public let password: String?
    /// The enrolled second factor's id, for MFA users.
    public let mfaEnrollmentId: String?

    /// A user from tokens obtained elsewhere (the factories make them for you).
    public init(
        uid: String, idToken: String, refreshToken: String = "", provider: String = "custom", email: String? = nil,
        password: String? = nil, mfaEnrollmentId: String? = nil
    ) {
        self.uid = uid
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.provider = provider
        self.email = email
        self.password = password
        self.mfaEnrollmentId = mfaEnrollmentId
    }

    /// The ID token's claims, decoded without verification.
    public var claims: JSONValue {
        let parts = idToken.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 2 else { return .null }
        var b64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        b64 += String(repeating: "=", count: (4 - b64.count % 4) % 4)
        guard let data = Data(base64Encoded: b64) else { return .null }
        return (try? JSONValue.parse(data)) ?? .null
    }
}

/// How `createUser` makes a user.
public enum UserKind: Sendable {
    /// Created by the Admin API and signed in with a custom token (`sign_in_provider: custom`).
    case custom(uid: String? = nil)
    /// An anonymous sign-up.
    case anonymous
    /// An email/password account, signed in with its password.
    case password(email: String? = nil, password: String = "password-123", emailVerified: Bool = false)
    /// Sign in with Apple (a fake IdP credential, as the emulator accepts), `sub` optional.
    case apple(email: String? = nil, sub: String? = nil)
    /// Google sign-in.
    case google(email: String? = nil, sub: String? = nil)
    /// Any other IdP by provider id (`facebook.com`, `oidc.x`, ...).
    case idp(providerId: String, email: String? = nil, sub: String? = nil)
    /// A password user with a verified email and an enrolled SMS second factor, signed in with both.
    case mfa(phone: String = "+15555550100", email: String? = nil, password: String = "password-123")

    /// `.custom()`.
    public static var custom: UserKind { .custom(uid: nil) }
}

/// An email action code (`GET /emulator/v1/projects/{p}/oobCodes`).
public struct OobCode: Sendable, Hashable {
    /// The recipient.
    public let email: String
    /// The code (`oobCode` in action links).
    public let code: String
    /// The whole action link.
    public let link: String
    /// `PASSWORD_RESET`, `VERIFY_EMAIL`, `EMAIL_SIGNIN`, `VERIFY_AND_CHANGE_EMAIL`, ...
    public let requestType: String
}

/// An SMS verification code (`GET /emulator/v1/projects/{p}/verificationCodes`).
public struct SMSCode: Sendable, Hashable {
    /// The number it was sent to (masked for older iOS SDKs' MFA sign-ins).
    public let phoneNumber: String
    /// The six digits.
    public let code: String
    /// The session the code belongs to.
    public let sessionInfo: String
}

extension EmulatorProject {
    /// An Identity Toolkit client call with the project's API key (`accounts:signUp`, ...).
    @discardableResult
    public func authCall(_ operation: String, _ body: JSONValue, version: String = "v1") async throws(FirebaseEmulatorError) -> JSONValue {
        let sep = version == "v1" ? ":" : "/"  // v2 MFA calls are accounts/mfaSignIn:start
        return try await emulator.json("POST", "/identitytoolkit.googleapis.com/\(version)/accounts\(sep)\(operation)?key=\(apiKey)", body)
    }

    /// An Admin API call on the project's users (`Bearer owner`): `""` creates, `":update"`, `":lookup"`, ...
    @discardableResult
    public func authAdmin(_ operation: String, _ body: JSONValue) async throws(FirebaseEmulatorError) -> JSONValue {
        try await emulator.json(
            "POST", "/identitytoolkit.googleapis.com/v1/projects/\(id)/accounts\(operation)", body,
            headers: [("Authorization", "Bearer owner")])
    }

    /// An RS256 custom token for `uid`, minted by the emulator and accepted in every token mode.
    public func customToken(uid: String, claims: [String: JSONValue]? = nil) async throws(FirebaseEmulatorError) -> String {
        var body: [String: JSONValue] = ["uid": .string(uid)]
        if let claims { body["claims"] = .object(claims) }
        guard let t = try await emulator.json("POST", admin("/customTokens"), .object(body))["token"]?.stringValue else {
            throw .decoding("customTokens answered no token")
        }
        return t
    }

    /// A fresh ID token for `uid` (the user is created on first use) through a custom token;
    /// `claims` are the custom token's claims (in the token, not stored on the user).
    public func idToken(uid: String, claims: [String: JSONValue]? = nil) async throws(FirebaseEmulatorError) -> String {
        let r = try await authCall(
            "signInWithCustomToken", ["token": .string(try await customToken(uid: uid, claims: claims)), "returnSecureToken": true])
        guard let t = r["idToken"]?.stringValue else { throw .decoding("signInWithCustomToken answered no idToken") }
        return t
    }

    /// Stores custom claims on a user (they appear in its next ID token).
    public func setCustomClaims(uid: String, _ claims: [String: JSONValue]) async throws(FirebaseEmulatorError) {
        try await authAdmin(":update", ["localId": .string(uid), "customAttributes": .string(JSONValue.object(claims).serialized)])
    }

    /// Creates a signed-in user of the given kind; `claims` become custom claims in its token.
    public func createUser(_ kind: UserKind = .custom, claims: [String: JSONValue]? = nil) async throws(FirebaseEmulatorError) -> TestUser {
        var user: TestUser
        switch kind {
        case .custom(let uid):
            let uid = uid ?? Self.newUid()
            try await authAdmin("", ["localId": .string(uid)])
            if let claims { try await setCustomClaims(uid: uid, claims) }
            let r = try await authCall("signInWithCustomToken", ["token": .string(try await customToken(uid: uid)), "returnSecureToken": true])
            return try Self.user(r, uid: uid, provider: "custom")
        case .anonymous:
            user = try Self.user(try await authCall("signUp", ["returnSecureToken": true]), provider: "anonymous")
        case .password(let email, let password, let verified):
            let email = email ?? "\(Self.newUid())@example.com"
            let created = try await authAdmin("", ["email": .string(email), "password": .string(password), "emailVerified": .bool(verified)])
            if let claims, let uid = created["localId"]?.stringValue { try await setCustomClaims(uid: uid, claims) }
            let r = try await authCall("signInWithPassword", ["email": .string(email), "password": .string(password), "returnSecureToken": true])
            return try Self.user(r, provider: "password", email: email, password: password)
        case .apple(let email, let sub):
            user = try await signInWithIdp("apple.com", email: email, sub: sub)
        case .google(let email, let sub):
            user = try await signInWithIdp("google.com", email: email, sub: sub)
        case .idp(let provider, let email, let sub):
            user = try await signInWithIdp(provider, email: email, sub: sub)
        case .mfa(let phone, let email, let password):
            return try await mfaUser(phone: phone, email: email ?? "\(Self.newUid())@example.com", password: password, claims: claims)
        }
        if let claims {
            try await setCustomClaims(uid: user.uid, claims)
            try await refresh(&user)
        }
        return user
    }

    /// Signs in with a fake IdP credential (an unsigned JWT with `sub`, as the emulator accepts);
    /// with `linkingTo`, links the provider to that signed-in user instead.
    public func signInWithIdp(
        _ providerId: String, email: String? = nil, sub: String? = nil,
        linkingTo user: TestUser? = nil
    ) async throws(FirebaseEmulatorError) -> TestUser {
        var body: [String: JSONValue] = [
            "postBody": .string(Self.idpPostBody(providerId, sub: sub ?? Self.newUid(), email: email)),
            "requestUri": "http://localhost", "returnSecureToken": true,
        ]
        if let user { body["idToken"] = .string(user.idToken) }
        return try Self.user(try await authCall("signInWithIdp", .object(body)), provider: providerId, email: email)
    }

    /// Exchanges the user's refresh token for new tokens (claims and profile as stored now).
    public func refresh(_ user: inout TestUser) async throws(FirebaseEmulatorError) {
        let r = try await emulator.json(
            "POST", "/securetoken.googleapis.com/v1/token?key=\(apiKey)",
            ["grant_type": "refresh_token", "refresh_token": .string(user.refreshToken)])
        guard let id = r["id_token"]?.stringValue, let refresh = r["refresh_token"]?.stringValue else {
            throw .decoding("token refresh answered \(r)")
        }
        user.idToken = id
        user.refreshToken = refresh
    }

    /// Email action codes sent so far.
    public func oobCodes() async throws(FirebaseEmulatorError) -> [OobCode] {
        (try await emulator.json("GET", admin("/oobCodes"))["oobCodes"]?.arrayValue ?? []).map {
            OobCode(
                email: $0["email"]?.stringValue ?? "", code: $0["oobCode"]?.stringValue ?? "",
                link: $0["oobLink"]?.stringValue ?? "", requestType: $0["requestType"]?.stringValue ?? "")
        }
    }

    /// SMS verification codes sent so far.
    public func smsCodes() async throws(FirebaseEmulatorError) -> [SMSCode] {
        (try await emulator.json("GET", admin("/verificationCodes"))["verificationCodes"]?.arrayValue ?? []).map {
            SMSCode(
                phoneNumber: $0["phoneNumber"]?.stringValue ?? "", code: $0["code"]?.stringValue ?? "",
                sessionInfo: $0["sessionInfo"]?.stringValue ?? "")
        }
    }

    // MARK: Helpers

    private func mfaUser(phone: String, email: String, password: String, claims: [String: JSONValue]?) async throws(FirebaseEmulatorError) -> TestUser
    {
        let created = try await authAdmin(
            "",
            [
                "email": .string(email), "password": .string(password), "emailVerified": true,
                "mfaInfo": [["phoneInfo": .string(phone)]],
            ])
        if let claims, let uid = created["localId"]?.stringValue { try await setCustomClaims(uid: uid, claims) }
        let first = try await authCall("signInWithPassword", ["email": .string(email), "password": .string(password), "returnSecureToken": true])
        guard let pending = first["mfaPendingCredential"]?.stringValue, let enrollment = first["mfaInfo"]?[0]?["mfaEnrollmentId"]?.stringValue,
            let uid = first["localId"]?.stringValue
        else { throw .decoding("the MFA user's sign-in was not challenged: \(first)") }
        let started = try await authCall(
            "mfaSignIn:start",
            [
                "mfaPendingCredential": .string(pending), "mfaEnrollmentId": .string(enrollment),
                "phoneSignInInfo": ["phoneNumber": .string(phone)],
            ], version: "v2")
        guard let session = started["phoneResponseInfo"]?["sessionInfo"]?.stringValue,
            let code = try await smsCodes().last(where: { $0.sessionInfo == session })?.code
        else {
            throw .decoding("mfaSignIn:start sent no code: \(started)")
        }
        let done = try await authCall(
            "mfaSignIn:finalize",
            [
                "mfaPendingCredential": .string(pending),
                "phoneVerificationInfo": ["sessionInfo": .string(session), "code": .string(code)],
            ], version: "v2")
        guard let idToken = done["idToken"]?.stringValue, let refresh = done["refreshToken"]?.stringValue else {
            throw .decoding("mfaSignIn:finalize answered \(done)")
        }
        return TestUser(
            uid: uid, idToken: idToken, refreshToken: refresh, provider: "password", email: email, password: password, mfaEnrollmentId: enrollment)
    }

    static func user(_ r: JSONValue, uid: String? = nil, provider: String, email: String? = nil, password: String? = nil)
        throws(FirebaseEmulatorError) -> TestUser
    {
        guard let idToken = r["idToken"]?.stringValue, let refresh = r["refreshToken"]?.stringValue,
            let uid = uid ?? r["localId"]?.stringValue
        else { throw .decoding("a sign-in answered no tokens: \(r)") }
        return TestUser(
            uid: uid, idToken: idToken, refreshToken: refresh, provider: provider, email: email ?? r["email"]?.stringValue,
            password: password, mfaEnrollmentId: nil)
    }

    /// The `postBody` of a fake IdP sign-in: an unsigned JWT with `sub` (and a verified `email`).
    public static func idpPostBody(_ providerId: String, sub: String, email: String? = nil) -> String {
        func b64(_ v: JSONValue) -> String {
            Data(v.serialized.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        var claims: [String: JSONValue] = ["sub": .string(sub)]
        if let email {
            claims["email"] = .string(email)
            claims["email_verified"] = true
        }
        let jwt = b64(["alg": "none", "typ": "JWT"]) + "." + b64(.object(claims)) + "."
        return "id_token=\(jwt)&providerId=\(providerId)"
    }

    static func newUid() -> String { "u" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(19) }
}
