import COpenSSL

/// One-shot hashes, HMACs and password KDFs over byte arrays (all stateless, thread-safe).
public enum Digest {
    /// SHA-1 (legacy password imports only).
    public static func sha1(_ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 20)
        _ = SHA1(data, data.count, &out)
        return out
    }

    /// SHA-256.
    public static func sha256(_ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        _ = SHA256(data, data.count, &out)
        return out
    }

    /// SHA-512.
    public static func sha512(_ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 64)
        _ = SHA512(data, data.count, &out)
        return out
    }

    /// HMAC-SHA1 of `data` under `key` (TOTP/HOTP, RFC 4226 and RFC 6238).
    public static func hmacSHA1(key: [UInt8], _ data: [UInt8]) -> [UInt8] { hmac(EVP_sha1(), 20, key, data) }

    /// HMAC-SHA256 of `data` under `key`.
    public static func hmacSHA256(key: [UInt8], _ data: [UInt8]) -> [UInt8] { hmac(EVP_sha256(), 32, key, data) }

    /// HMAC-SHA512 of `data` under `key`.
    public static func hmacSHA512(key: [UInt8], _ data: [UInt8]) -> [UInt8] { hmac(EVP_sha512(), 64, key, data) }

    private static func hmac(_ md: OpaquePointer?, _ size: Int, _ key: [UInt8], _ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: size)
        var len: UInt32 = 0
        // An empty key is legal for HMAC; OpenSSL wants a non-null pointer, so pass a 1-byte buffer with length 0.
        let k = key.isEmpty ? [0] : key
        _ = HMAC(md, k, Int32(key.count), data, data.count, &out, &len)
        return Array(out.prefix(Int(len)))
    }

    /// PBKDF2-HMAC-SHA256 with `iterations` rounds producing `length` bytes.
    public static func pbkdf2SHA256(password: [UInt8], salt: [UInt8], iterations: Int, length: Int) throws -> [UInt8] {
        guard iterations > 0, iterations <= Int(Int32.max), length > 0, length <= 1024 else { throw CryptoError("PKCS5_PBKDF2_HMAC parameters") }
        var out = [UInt8](repeating: 0, count: length)
        let pw = password.map { CChar(bitPattern: $0) }
        let rc = PKCS5_PBKDF2_HMAC(
            pw.isEmpty ? [0] : pw, Int32(password.count), salt.isEmpty ? [0] : salt, Int32(salt.count),
            Int32(iterations), EVP_sha256(), Int32(length), &out)
        guard rc == 1 else { throw CryptoError("PKCS5_PBKDF2_HMAC") }
        return out
    }

    /// scrypt (RFC 7914) with cost `n` (a power of two), block size `r`, parallelism `p`.
    public static func scrypt(password: [UInt8], salt: [UInt8], n: UInt64, r: UInt64, p: UInt64, length: Int) throws -> [UInt8] {
        guard n >= 2, n & (n - 1) == 0, r > 0, p > 0, length > 0, length <= 1024 else { throw CryptoError("EVP_PBE_scrypt parameters") }
        var out = [UInt8](repeating: 0, count: length)
        let pw = password.map { CChar(bitPattern: $0) }
        // maxmem must cover 128*N*r*p plus slack; cap it so hostile imports can't exhaust memory.
        let need = 128 &* n &* r &* p
        guard need <= 1 << 30 else { throw CryptoError("EVP_PBE_scrypt memory") }
        let rc = EVP_PBE_scrypt(
            pw.isEmpty ? [0] : pw, password.count, salt.isEmpty ? [0] : salt, salt.count,
            n, r, p, need + (1 << 20), &out, length)
        guard rc == 1 else { throw CryptoError("EVP_PBE_scrypt") }
        return out
    }

    /// Firebase's modified scrypt (github.com/firebase/scrypt): derive 64 bytes with scrypt over
    /// `salt + saltSeparator` (N = 2^memCost, r = rounds, p = 1), then AES-256-CTR-encrypt the
    /// project's signer key under the first 32 bytes with a zero IV. The ciphertext is the hash.
    public static func firebaseScrypt(
        password: [UInt8], salt: [UInt8], saltSeparator: [UInt8], signerKey: [UInt8],
        rounds: Int, memoryCost: Int
    ) throws -> [UInt8] {
        guard (1...8).contains(rounds), (1...14).contains(memoryCost) else { throw CryptoError("firebase scrypt parameters") }
        let derived = try scrypt(
            password: password, salt: salt + saltSeparator, n: 1 << UInt64(memoryCost),
            r: UInt64(rounds), p: 1, length: 64)
        return try Cipher.aes256CTR(key: Array(derived.prefix(32)), iv: [UInt8](repeating: 0, count: 16), signerKey)
    }

    /// Compares in time independent of where the inputs differ.
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        if a.isEmpty { return true }
        return CRYPTO_memcmp(a, b, a.count) == 0
    }

    /// `count` bytes from OpenSSL's CSPRNG (key material, salts).
    public static func randomBytes(_ count: Int) throws -> [UInt8] {
        guard count >= 0, count <= 1 << 20 else { throw CryptoError("RAND_bytes length") }
        if count == 0 { return [] }
        var out = [UInt8](repeating: 0, count: count)
        guard RAND_bytes(&out, Int32(count)) == 1 else { throw CryptoError("RAND_bytes") }
        return out
    }
}
