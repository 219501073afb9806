import EmulatorCore
import Testing

@testable import EmulatorAuth

/// RFC 6238 Appendix B (SHA-1 rows, 6 digits: the last six of the 8-digit values).
@Test(arguments: [
    (Int64(59), "287082"), (1_111_111_109, "081804"), (1_111_111_111, "050471"), (1_234_567_890, "005924"),
    (2_000_000_000, "279037"), (20_000_000_000, "353130"),
])
func totpMatchesRFC6238Vectors(time: Int64, code: String) {
    let secret = Array("12345678901234567890".utf8)
    #expect(TOTP.code(secret: secret, counter: TOTP.counter(at: time)) == code)
}

@Test func rfc4226HotpVectorsAndBase32() throws {
    // RFC 4226 Appendix D, counters 0 and 9.
    let secret = Array("12345678901234567890".utf8)
    #expect(TOTP.code(secret: secret, counter: 0) == "755224" && TOTP.code(secret: secret, counter: 9) == "520489")
    #expect(Base32.encode(secret) == "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ")
    #expect(Base32.decode("gezdgnbvgy3tqojqgezdgnbvgy3tqojq") == secret)
    // RFC 4648 §10 vectors (padding omitted on encode, tolerated on decode).
    for (plain, encoded) in [
        ("", ""), ("f", "MY"), ("fo", "MZXQ"), ("foo", "MZXW6"), ("foob", "MZXW6YQ"), ("fooba", "MZXW6YTB"), ("foobar", "MZXW6YTBOI"),
    ] {
        #expect(Base32.encode(Array(plain.utf8)) == encoded)
        #expect(Base32.decode(encoded + "======") == Array(plain.utf8))
    }
    #expect(Base32.decode("MZ1W") == nil)
    #expect(TOTP.counter(at: -1) == -1 && TOTP.counter(at: 29) == 0 && TOTP.counter(at: 30) == 1)
}

@Test func totpWindowAndReplay() {
    let secret = Array("12345678901234567890".utf8)
    let now: Int64 = 1_111_111_111
    let step = TOTP.counter(at: now)
    let previous = TOTP.code(secret: secret, counter: step - 1)
    #expect(TOTP.match(previous, secret: secret, at: now, window: 0, usedUpTo: nil) == nil)
    #expect(TOTP.match(previous, secret: secret, at: now, window: 1, usedUpTo: nil) == step - 1)
    // Once a step was accepted, it and every older step are refused.
    #expect(TOTP.match(previous, secret: secret, at: now, window: 1, usedUpTo: step - 1) == nil)
    #expect(TOTP.match(TOTP.code(secret: secret, counter: step), secret: secret, at: now, window: 1, usedUpTo: step - 1) == step)
    #expect(TOTP.match("12345", secret: secret, at: now, window: 10, usedUpTo: nil) == nil)
    #expect(TOTP.match("12345x", secret: secret, at: now, window: 10, usedUpTo: nil) == nil)
}
