import EmulatorAuth
import EmulatorCore

/// The `jwt` target: `JWT.decode`, then the decoded claims re-encoded as an unsigned token,
/// which must decode to the same claims (compared by their serialization).
public enum JWTTarget {
    /// Runs the target on `data`.
    public static func run(_ data: [UInt8]) throws(FuzzViolation) {
        guard let token = JWT.decode(String(decoding: data, as: UTF8.self)) else { return }
        _ = token.algorithm
        let claims = JSON.object(token.payload).serialized()
        guard let encoded = try? JWT.encode(token.payload, key: nil), let again = JWT.decode(encoded) else {
            throw FuzzViolation(.jwt, "claims \(claims.prefix(200)) do not survive an unsigned re-encoding")
        }
        guard JSON.object(again.payload).serialized() == claims else {
            throw FuzzViolation(.jwt, "re-encoding changed the claims \(claims.prefix(200))")
        }
    }
}
