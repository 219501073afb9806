import EmulatorCore
import EmulatorCrypto

/// A decoded (not yet verified) JSON Web Token.
public struct JWT: Sendable {
    /// The header object.
    public var header: UTF8Dictionary<JSON>
    /// The claims.
    public var payload: UTF8Dictionary<JSON>
    /// `base64url(header).base64url(payload)`, the bytes the signature covers.
    public var signingInput: [UInt8]
    /// The signature bytes (empty for `alg: none`).
    public var signature: [UInt8]

    /// `alg` from the header.
    public var algorithm: String? { header["alg"]?.stringValue }

    /// Splits and decodes `token`; nil unless it is three base64url parts with JSON objects.
    public static func decode(_ token: String) -> JWT? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let h = Base64.decode(String(parts[0])), let p = Base64.decode(String(parts[1])),
            let s = Base64.decode(String(parts[2])),
            case .object(let header)? = try? JSON.parse(h), case .object(let payload)? = try? JSON.parse(p)
        else { return nil }
        return JWT(header: header, payload: payload, signingInput: Array("\(parts[0]).\(parts[1])".utf8), signature: s)
    }

    /// Encodes and signs with RS256 when `key` is given, else as an unsigned `alg: none` token.
    public static func encode(_ payload: UTF8Dictionary<JSON>, key: RSASigningKey?) throws -> String {
        var header: UTF8Dictionary<JSON> = ["typ": "JWT"]
        if let key {
            header["alg"] = "RS256"
            header["kid"] = .string(key.kid)
        } else {
            header["alg"] = "none"
        }
        let input =
            Base64.urlEncode(Array(JSON.object(header).serialized().utf8)) + "." + Base64.urlEncode(Array(JSON.object(payload).serialized().utf8))
        guard let key else { return input + "." }
        return input + "." + Base64.urlEncode(try key.signRS256(Array(input.utf8)))
    }
}
