import COpenSSL

extension Digest {
    /// MD5 (only for the rules language's `hashing.md5`; never for security).
    public static func md5(_ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 16)
        var len: UInt32 = 0
        _ = EVP_Digest(data, data.count, &out, &len, EVP_md5(), nil)
        return out
    }
}
