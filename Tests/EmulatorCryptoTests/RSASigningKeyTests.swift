import EmulatorCore
import Testing

@testable import EmulatorCrypto

/// One key for the whole suite: generation is the slow part.
let sharedKey: RSASigningKey = try! RSASigningKey.generate()

@Test func signsAndVerifiesRS256() throws {
    let data = Array("header.payload".utf8)
    let sig = try sharedKey.signRS256(data)
    #expect(sig.count == 256)
    #expect(sharedKey.verifyRS256(data, signature: sig))
    #expect(!sharedKey.verifyRS256(Array("header.payloaX".utf8), signature: sig))
    #expect(!sharedKey.verifyRS256(data, signature: []))
}

@Test func pemRoundTripKeepsKidAndVerifies() throws {
    let pem = try sharedKey.privateKeyPEM()
    #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
    let again = try RSASigningKey.fromPEM(pem)
    #expect(again.kid == sharedKey.kid)
    let sig = try again.signRS256([1, 2, 3])
    #expect(sharedKey.verifyRS256([1, 2, 3], signature: sig))
    #expect(throws: CryptoError.self) { try RSASigningKey.fromPEM("not a key") }
}

@Test func jwkHasModulusAndExponent() throws {
    let jwk = try sharedKey.jwk()
    #expect(jwk["kty"] == "RSA" && jwk["alg"] == "RS256" && jwk["kid"]?.stringValue == sharedKey.kid)
    #expect(jwk["e"] == "AQAB")
    #expect(Base64.decode(jwk["n"]?.stringValue ?? "")?.count == 256)
}

@Test func certificateIsPEM() throws {
    let cert = try sharedKey.certificatePEM(notBefore: 1_700_000_000)
    #expect(cert.hasPrefix("-----BEGIN CERTIFICATE-----"))
    #expect(cert.hasSuffix("-----END CERTIFICATE-----\n"))
    #expect(try sharedKey.publicKeyPEM().hasPrefix("-----BEGIN PUBLIC KEY-----"))
}
