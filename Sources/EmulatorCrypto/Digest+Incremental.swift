import COpenSSL

/// An MD5 computed over data that arrives in pieces (Cloud Storage's `md5Hash` of an upload that
/// streams to disk). Never for security. One owner at a time: the type is not thread-safe, and
/// `@unchecked Sendable` only so an upload can move between tasks.
public final class MD5Hasher: @unchecked Sendable {
    private let ctx: OpaquePointer?

    /// Starts an empty digest.
    public init() {
        ctx = EVP_MD_CTX_new()
        _ = EVP_DigestInit_ex(ctx, EVP_md5(), nil)
    }

    deinit { EVP_MD_CTX_free(ctx) }

    /// Adds bytes.
    public func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Adds bytes from a raw buffer.
    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        _ = EVP_DigestUpdate(ctx, base, bytes.count)
    }

    /// The 16-byte digest of everything added (the hasher must not be used afterwards).
    public func finish() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 16)
        var len: UInt32 = 0
        _ = EVP_DigestFinal_ex(ctx, &out, &len)
        return out
    }
}
