import COpenSSL

/// Symmetric ciphers (stateless).
public enum Cipher {
    /// AES-256-CTR over `data` (encryption and decryption are the same operation).
    public static func aes256CTR(key: [UInt8], iv: [UInt8], _ data: [UInt8]) throws -> [UInt8] {
        try aesCTR(EVP_aes_256_ctr(), 32, key: key, iv: iv, data)
    }

    /// AES-128-CTR over `data`.
    public static func aes128CTR(key: [UInt8], iv: [UInt8], _ data: [UInt8]) throws -> [UInt8] {
        try aesCTR(EVP_aes_128_ctr(), 16, key: key, iv: iv, data)
    }

    private static func aesCTR(_ cipher: OpaquePointer?, _ keySize: Int, key: [UInt8], iv: [UInt8], _ data: [UInt8]) throws -> [UInt8] {
        guard key.count == keySize, iv.count == 16 else { throw CryptoError("AES-CTR key/iv size") }
        guard let ctx = EVP_CIPHER_CTX_new() else { throw CryptoError("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        guard EVP_EncryptInit_ex(ctx, cipher, nil, key, iv) == 1 else { throw CryptoError("EVP_EncryptInit_ex") }
        var out = [UInt8](repeating: 0, count: data.count + 16)
        var len: Int32 = 0
        var total = 0
        if !data.isEmpty {
            guard EVP_EncryptUpdate(ctx, &out, &len, data, Int32(data.count)) == 1 else { throw CryptoError("EVP_EncryptUpdate") }
            total = Int(len)
        }
        let ok = out.withUnsafeMutableBufferPointer { p -> Int32 in
            guard let base = p.baseAddress else { return 0 }
            return EVP_EncryptFinal_ex(ctx, base + total, &len)
        }
        guard ok == 1 else { throw CryptoError("EVP_EncryptFinal_ex") }
        return Array(out.prefix(total + Int(len)))
    }
}
