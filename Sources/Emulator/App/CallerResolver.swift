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
        return value.withUTF8Bytes(usualBearer) ?? generalBearer(value)
    }

    /// The token of the usual form, `Bearer <token>` (the scheme in any case, one space, no space
    /// or tab at either end of the token, an ASCII byte first), read from the bytes; nil for any
    /// other form, which `generalBearer` reads (with the same answer for this one). A walk of
    /// `utf8`'s indices and `Character` trimming cost every authenticated call 2,000 instructions.
    private static func usualBearer(_ b: UnsafeBufferPointer<UInt8>) -> String? {
        guard b.count > 7, b[6] == 0x20 else { return nil }
        guard ASCIIBytes.equalsIgnoringCase(b, 0, 6, "bearer") else { return nil }
        let first = b[7], last = b[b.count - 1]
        guard first < 0x80, first != 0x20, first != 0x09, last != 0x20, last != 0x09 else { return nil }
        return String(decoding: UnsafeBufferPointer(rebasing: b[7...]), as: UTF8.self)
    }

    /// `bearer(fromAuthorization:)` for any form: the scheme, one split at spaces, the token
    /// trimmed.
    static func generalBearer(_ value: String) -> String? {
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return String(parts[1]).trimming(" \t")
    }

    /// Whether `token` is `owner` in any case: the five ASCII letters, compared by byte, without
    /// building a lowercased copy per call (a walk of two `utf8` views cost 450 instructions).
    static func isOwner(_ token: String) -> Bool {
        token.withUTF8Bytes { ASCIIBytes.equalsIgnoringCase($0, 0, $0.count, "owner") }
    }

    /// The caller for a bearer token (REST's `Authorization` header or gRPC's `authorization`
    /// metadata, after `Bearer `); nil means unauthenticated.
    static func resolve(bearerToken: String?, projectId: String, services: EmulatorServices) throws -> Caller {
        guard let token = bearerToken else { return .unauthenticated }
        if isOwner(token) || token.hasPrefix("ya29.") { return .admin }
        do {
            return .user(try services.auth.verifyIDToken(projectId: projectId, token: token))
        } catch let e as EmulatorError {
            throw EmulatorError.unauthenticated("Invalid ID token: \(e.message).")
        }
    }
}
