import EmulatorCore
import EmulatorHTTP

/// Turns the `Authorization` header into a `Caller`, as the Firebase emulators do:
/// `Bearer owner` (any case) and `Bearer ya29.*` are admin; any other bearer must be an ID token
/// that the Auth service verifies (RS256 with our key, or unsigned `alg: none` when
/// `auth.acceptUnsignedTokens`; issuer/audience for signed tokens; expiry against the project
/// clock); no header means unauthenticated.
enum CallerResolver {
    /// The caller of `request` for `projectId`.
    static func resolve(_ request: HTTPRequest, projectId: String, services: EmulatorServices) throws -> Caller {
        try resolve(bearerToken: request.bearerToken, projectId: projectId, services: services)
    }

    /// The token of an `Authorization` value with the Bearer scheme (case-insensitive), else nil.
    static func bearer(fromAuthorization value: String?) -> String? {
        guard let value else { return nil }
        // The usual form, `Bearer <token>` (any case, one space, an ASCII byte next), read by
        // byte; anything else the general way below, which gives the same answer for this form.
        let u = value.utf8
        if u.count > 7, zip(u.prefix(6), "bearer".utf8).allSatisfy({ $0 | 0x20 == $1 }), u[u.index(u.startIndex, offsetBy: 6)] == 0x20 {
            let next = u[u.index(u.startIndex, offsetBy: 7)]
            if next < 0x80 && next != 0x20 {
                // With no space or tab at either end there is nothing to trim, so no `Character`
                // work at all (`trimming` breaks graphemes: it was 2,000 instructions per call).
                let last = u[u.index(before: u.endIndex)]
                if next != 0x09 && last != 0x20 && last != 0x09 { return String(value[u.index(u.startIndex, offsetBy: 7)...]) }
                return String(value.utf8.dropFirst(7))?.trimming(" \t")
            }
        }
        return generalBearer(value)
    }

    /// `bearer(fromAuthorization:)` for any form: the scheme, one split at spaces, the token
    /// trimmed.
    static func generalBearer(_ value: String) -> String? {
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return String(parts[1]).trimming(" \t")
    }

    /// The caller for a bearer token (REST's `Authorization` header or gRPC's `authorization`
    /// metadata, after `Bearer `); nil means unauthenticated.
    static func resolve(bearerToken: String?, projectId: String, services: EmulatorServices) throws -> Caller {
        guard let token = bearerToken else { return .unauthenticated }
        if token.lowercased() == "owner" || token.hasPrefix("ya29.") { return .admin }
        do {
            return .user(try services.auth.verifyIDToken(projectId: projectId, token: token))
        } catch let e as EmulatorError {
            throw EmulatorError.unauthenticated("Invalid ID token: \(e.message).")
        }
    }
}
