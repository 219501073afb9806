/// A failure inside OpenSSL or bad key material. Callers in services map it to their own
/// canonical errors; the OpenSSL detail is for logs only.
public struct CryptoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What failed, e.g. `EVP_DigestSign`.
    public var operation: String

    /// Creates an error for `operation`.
    public init(_ operation: String) { self.operation = operation }

    /// `crypto: <operation> failed`.
    public var description: String { "crypto: \(operation) failed" }
}
