import EmulatorCrypto

/// The MD5 of an upload as it streams (EmulatorCrypto's `MD5Hasher`), kept behind this name so
/// the rest of the module does not depend on where the digest comes from.
final class MD5Stream: @unchecked Sendable {
    private let hasher = MD5Hasher()

    /// Adds bytes.
    func update(_ bytes: UnsafeRawBufferPointer) { hasher.update(bytes) }

    /// The 16-byte digest.
    func finish() -> [UInt8] { hasher.finish() }
}
