import EmulatorCore
import EmulatorHTTP

/// Turns the `Authorization` header into a `Caller`, as the Firebase emulators do:
/// `Bearer owner` (any case) and `Bearer ya29.*` are admin; any other bearer must be an ID token;
/// no header means unauthenticated.
///
/// Until the Auth service verifies signatures, tokens are decoded without verification and only
/// when they are well-formed JWTs (the Firestore emulator's behaviour); the Auth issue replaces
/// `verify` with real RS256/expiry/revocation checks.
enum CallerResolver {
    /// The caller of `request` for `projectId`.
    static func resolve(_ request: HTTPRequest, projectId: String, services: EmulatorServices) throws -> Caller {
        guard let token = request.bearerToken else { return .unauthenticated }
        if token.lowercased() == "owner" || token.hasPrefix("ya29.") { return .admin }
        return .user(try decodeUnverified(token))
    }

    /// Decodes a JWT's claims without checking the signature (mock tokens from rules-unit-testing).
    static func decodeUnverified(_ token: String) throws -> AuthContext {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64.decode(String(parts[1])),
              case .object(let claims)? = try? JSON.parse(payload),
              let sub = (claims["sub"] ?? claims["user_id"])?.stringValue, !sub.isEmpty
        else { throw EmulatorError.unauthenticated("Invalid ID token: expected a JWT with a 'sub' claim.") }
        return AuthContext(uid: sub, token: claims)
    }
}
