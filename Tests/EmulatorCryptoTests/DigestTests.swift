import EmulatorCore
import Testing

@testable import EmulatorCrypto

func hex(_ b: [UInt8]) -> String { b.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined() }
func unhex(_ s: String) -> [UInt8] {
    var out: [UInt8] = []
    var it = s.makeIterator()
    while let a = it.next(), let b = it.next() { out.append(UInt8(String([a, b]), radix: 16)!) }
    return out
}

@Test func sha256AndSha1AndSha512KnownAnswers() {
    let abc = Array("abc".utf8)
    #expect(hex(Digest.sha256(abc)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(hex(Digest.sha1(abc)) == "a9993e364706816aba3e25717850c26c9cd0d89d")
    #expect(hex(Digest.sha512(abc)).hasPrefix("ddaf35a193617aba"))
}

@Test func hmacRFC4231Case2() {
    let key = Array("Jefe".utf8), msg = Array("what do ya want for nothing?".utf8)
    #expect(hex(Digest.hmacSHA256(key: key, msg)) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    #expect(hex(Digest.hmacSHA512(key: key, msg)).hasPrefix("164b7a7bfcf819e2e395fbe73b56e0a3"))
}

@Test func hmacSHA1RFC2202() {
    // RFC 2202 test cases 1 and 2.
    #expect(hex(Digest.hmacSHA1(key: [UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8))) == "b617318655057264e28bc0b6fb378c8ef146be00")
    #expect(hex(Digest.hmacSHA1(key: Array("Jefe".utf8), Array("what do ya want for nothing?".utf8))) == "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79")
}

@Test func pbkdf2KnownAnswer() throws {
    let out = try Digest.pbkdf2SHA256(password: Array("password".utf8), salt: Array("salt".utf8), iterations: 1, length: 32)
    #expect(hex(out) == "120fb6cffcf8b32c43e7225256c4f837a86548c92ccc35480805987cb70be17b")
    #expect(throws: CryptoError.self) { try Digest.pbkdf2SHA256(password: [], salt: [], iterations: 0, length: 32) }
}

@Test func scryptRFC7914Vector1() throws {
    let out = try Digest.scrypt(password: [], salt: [], n: 16, r: 1, p: 1, length: 64)
    #expect(
        hex(out) == "77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906"
    )
    #expect(throws: CryptoError.self) { try Digest.scrypt(password: [], salt: [], n: 15, r: 1, p: 1, length: 64) }
}

@Test func firebaseScryptMatchesTheReferenceVector() throws {
    // The example from github.com/firebase/scrypt's README.
    let hash = try Digest.firebaseScrypt(
        password: Array("user1password".utf8), salt: Base64.decode("42xEC+ixf3L2lw==")!,
        saltSeparator: Base64.decode("Bw==")!,
        signerKey: Base64.decode("jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==")!,
        rounds: 8, memoryCost: 14)
    #expect(Base64.encode(hash) == "lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==")
}

@Test func aes256CTRNISTVector() throws {
    let out = try Cipher.aes256CTR(
        key: unhex("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4"),
        iv: unhex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"), unhex("6bc1bee22e409f96e93d7e117393172a"))
    #expect(hex(out) == "601ec313775789a5b7a7f504bbf3d228")
    #expect(throws: CryptoError.self) { try Cipher.aes256CTR(key: [1], iv: [], []) }
}

@Test func constantTimeCompareAndRandom() throws {
    #expect(Digest.constantTimeEqual([1, 2, 3], [1, 2, 3]))
    #expect(!Digest.constantTimeEqual([1, 2, 3], [1, 2, 4]))
    #expect(!Digest.constantTimeEqual([1, 2], [1, 2, 3]))
    let a = try Digest.randomBytes(32), b = try Digest.randomBytes(32)
    #expect(a.count == 32 && a != b)
}

@Test func bcryptVerifiesAKnownHash() throws {
    guard BCrypt.isAvailable else { return }
    // Computed with libxcrypt for "password" and salt "abcdefghijklmnopqrstuu", cost 4.
    let h = "$2b$04$abcdefghijklmnopqrstuughE8Ev8uGFaUgY2cNEySvxngrb/Jzdm"
    #expect(try BCrypt.verify(password: Array("password".utf8), hash: h))
    #expect(try !BCrypt.verify(password: Array("passwore".utf8), hash: h))
    #expect(throws: CryptoError.self) { try BCrypt.verify(password: [], hash: "$1$nope") }
}

/// The cost import bounds is read by the same rule `verify` applies: a prefix or shape it refuses
/// has no cost, and `verify` throws for it whether or not bcrypt is available.
@Test func bcryptCostIsReadOnlyFromHashesVerifyAccepts() throws {
    let tail = String(repeating: "a", count: 53)
    #expect(BCrypt.cost(ofHash: "$2b$04$abcdefghijklmnopqrstuughE8Ev8uGFaUgY2cNEySvxngrb/Jzdm") == 4)
    #expect(["$2a$", "$2b$", "$2y$"].map { BCrypt.cost(ofHash: $0 + "31$" + tail) } == [31, 31, 31])
    for refused in ["$2x$10$" + tail, "$3a$10$" + tail, "$2b$+1$" + tail, "$2b$1a$" + tail, "$2b$10x" + tail, "$2b$10$" + tail + "a", "$2b$10$"] {
        #expect(BCrypt.cost(ofHash: refused) == nil, "\(refused)")
        #expect(throws: CryptoError.self) { try BCrypt.verify(password: [], hash: refused) }
    }
}
