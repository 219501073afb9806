import COpenSSL
import EmulatorCore

/// An RSA key pair for RS256 JWTs. Immutable after creation; OpenSSL's EVP_PKEY is safe for
/// concurrent sign/verify, so the class is `Sendable` without a lock.
public final class RSASigningKey: @unchecked Sendable {
    /// The owned EVP_PKEY (freed in deinit).
    let pkey: OpaquePointer
    /// Key id: base64url of the first 20 bytes of SHA-256 over the public modulus, so the same key
    /// always has the same id (stable across a PEM round trip).
    public let kid: String

    private init(pkey: OpaquePointer) throws {
        self.pkey = pkey
        let n = try RSASigningKey.bigNumParam(pkey, "n")
        self.kid = Base64.urlEncode(Digest.sha256(n).prefix(20))
    }

    deinit { EVP_PKEY_free(pkey) }

    /// Generates a fresh 2048-bit key (tens of milliseconds: do it off the start-up path).
    public static func generate(bits: Int = 2048) throws -> RSASigningKey {
        CryptoRuntime.ensure()
        guard let ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_RSA, nil) else { throw CryptoError("EVP_PKEY_CTX_new_id") }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_keygen_init(ctx) == 1, EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, Int32(bits)) == 1 else {
            throw CryptoError("EVP_PKEY_keygen_init")
        }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen(ctx, &key) == 1, let key else { throw CryptoError("EVP_PKEY_keygen") }
        return try RSASigningKey(pkey: key)
    }

    /// Loads a PEM private key (PKCS#8 or traditional RSA).
    public static func fromPEM(_ pem: String) throws -> RSASigningKey {
        CryptoRuntime.ensure()
        let bytes = Array(pem.utf8)
        // A memory BIO reads the caller's buffer in place, so the buffer must outlive the read:
        // an array passed as a bare pointer lives only for that call, and optimised builds freed
        // it before PEM_read_bio_PrivateKey ran (release binaries refused every service account key).
        let read: OpaquePointer? = try bytes.withUnsafeBufferPointer { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { throw CryptoError("BIO_new_mem_buf") }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let key = read else {
            ERR_clear_error()
            throw CryptoError("PEM_read_bio_PrivateKey")
        }
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA else {
            EVP_PKEY_free(key)
            throw CryptoError("not an RSA key")
        }
        return try RSASigningKey(pkey: key)
    }

    /// The private key as PKCS#8 PEM, for persistence.
    public func privateKeyPEM() throws -> String {
        try withMemoryBIO { bio in PEM_write_bio_PrivateKey(bio, pkey, nil, nil, 0, nil, nil) == 1 }
    }

    /// The public key as SubjectPublicKeyInfo PEM.
    public func publicKeyPEM() throws -> String {
        try withMemoryBIO { bio in PEM_write_bio_PUBKEY(bio, pkey) == 1 }
    }

    /// RSASSA-PKCS1-v1_5 with SHA-256 over `data`.
    public func signRS256(_ data: [UInt8]) throws -> [UInt8] {
        guard let ctx = EVP_MD_CTX_new() else { throw CryptoError("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestSignInit(ctx, nil, EVP_sha256(), nil, pkey) == 1 else { throw CryptoError("EVP_DigestSignInit") }
        var len = 0
        guard EVP_DigestSign(ctx, nil, &len, data, data.count) == 1 else { throw CryptoError("EVP_DigestSign") }
        var sig = [UInt8](repeating: 0, count: len)
        guard EVP_DigestSign(ctx, &sig, &len, data, data.count) == 1 else { throw CryptoError("EVP_DigestSign") }
        return Array(sig.prefix(len))
    }

    /// True when `signature` is a valid RS256 signature of `data` by this key.
    public func verifyRS256(_ data: [UInt8], signature: [UInt8]) -> Bool {
        guard !signature.isEmpty, let ctx = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestVerifyInit(ctx, nil, EVP_sha256(), nil, pkey) == 1 else { return false }
        let ok = EVP_DigestVerify(ctx, signature, signature.count, data, data.count) == 1
        ERR_clear_error()
        return ok
    }

    /// The public key as a JWK: `{kty, alg, use, kid, n, e}` with base64url big-endian n and e.
    public func jwk() throws -> JSON {
        let n = try Self.bigNumParam(pkey, "n")
        let e = try Self.bigNumParam(pkey, "e")
        return [
            "kty": "RSA", "alg": "RS256", "use": "sig", "kid": .string(kid),
            "n": .string(Base64.urlEncode(n)), "e": .string(Base64.urlEncode(e)),
        ]
    }

    /// A self-signed X.509 v3 certificate for the public key, valid from `notBefore` (Unix
    /// seconds) for `days`, as Google's securetoken x509 endpoint serves them.
    public func certificatePEM(notBefore: Int64, days: Int = 365, commonName: String = "securetoken.system.gserviceaccount.com") throws -> String {
        guard let cert = X509_new() else { throw CryptoError("X509_new") }
        var start = time_t(notBefore)
        defer { X509_free(cert) }
        guard X509_set_version(cert, 2) == 1,
            ASN1_INTEGER_set(X509_get_serialNumber(cert), 1) == 1,
            X509_time_adj_ex(X509_getm_notBefore(cert), 0, 0, &start) != nil,
            X509_time_adj_ex(X509_getm_notAfter(cert), Int32(days), 0, &start) != nil,
            X509_set_pubkey(cert, pkey) == 1,
            let name = X509_get_subject_name(cert)
        else { throw CryptoError("X509 fields") }
        let cn = Array(commonName.utf8)
        guard X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, cn, Int32(cn.count), -1, 0) == 1,
            X509_set_issuer_name(cert, name) == 1,
            X509_sign(cert, pkey, EVP_sha256()) > 0
        else { throw CryptoError("X509_sign") }
        return try withMemoryBIO { bio in PEM_write_bio_X509(bio, cert) == 1 }
    }

    private func withMemoryBIO(_ write: (OpaquePointer) -> Bool) throws -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw CryptoError("BIO_new") }
        defer { BIO_free(bio) }
        guard write(bio) else { throw CryptoError("PEM_write") }
        let pending = Int(BIO_ctrl_pending(bio))
        var buf = [UInt8](repeating: 0, count: pending)
        let read = BIO_read(bio, &buf, Int32(pending))
        guard read == Int32(pending) else { throw CryptoError("BIO_read") }
        return String(decoding: buf, as: UTF8.self)
    }

    private static func bigNumParam(_ pkey: OpaquePointer, _ name: String) throws -> [UInt8] {
        var bn: OpaquePointer?
        guard EVP_PKEY_get_bn_param(pkey, name, &bn) == 1, let bn else { throw CryptoError("EVP_PKEY_get_bn_param \(name)") }
        defer { BN_free(bn) }
        var out = [UInt8](repeating: 0, count: (Int(BN_num_bits(bn)) + 7) / 8)
        _ = BN_bn2bin(bn, &out)
        return out
    }
}
