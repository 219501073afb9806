import Dispatch
import EmulatorCore
import EmulatorCrypto

/// The process's one RS256 signing key. Generation (~50–100 ms) starts in the background at
/// construction when tokens are signed, so start-up stays fast and the first signer waits on the
/// `Mutex` if it is not done; otherwise the key is made on first use (published keys, RS256 custom
/// tokens), so no OpenSSL work is left running when a short-lived process exits. The key, and so
/// its `kid`, stays the same for the process lifetime.
public final class TokenKeyring: Sendable {
    private let state: Mutex<RSASigningKey?>

    /// A keyring; with `generateInBackground` the key is generated right away on another thread.
    public init(generateInBackground: Bool = true) {
        state = Mutex(nil)
        CryptoRuntime.ensure()
        if generateInBackground { DispatchQueue.global(qos: .utility).async { [self] in _ = try? key() } }
    }

    /// Uses an existing key (e.g. loaded from persistence).
    public init(key: RSASigningKey) { state = Mutex(key) }

    /// The signing key, generating it now if the background job has not finished.
    public func key() throws -> RSASigningKey {
        try state.withLock { k in
            if let k { return k }
            let made = try RSASigningKey.generate()
            k = made
            return made
        }
    }

    /// Replaces the key with a persisted one (at load time, before serving, so the `kid` stays
    /// stable across restarts). Bad PEM throws and keeps the current key.
    public func adopt(pem: String) throws {
        let k = try Self.parse(pem: pem)
        state.withLock { $0 = k }
    }

    /// Adopts an already parsed key.
    func adopt(_ key: RSASigningKey) { state.withLock { $0 = key } }

    /// The key in `pem`; INVALID_ARGUMENT when it is not an RSA private key PEM.
    static func parse(pem: String) throws -> RSASigningKey {
        do { return try RSASigningKey.fromPEM(pem) } catch {
            throw EmulatorError.invalidArgument("Auth import: signingKey is not an RSA private key PEM.")
        }
    }

    /// The key if one was made or loaded already (never generates).
    public var existingKey: RSASigningKey? { state.withLock { $0 } }

    /// `{"keys":[jwk]}`.
    public func jwks() throws -> JSON { ["keys": [try key().jwk()]] }

    /// `{kid: "-----BEGIN CERTIFICATE-----..."}`, the securetoken x509 shape.
    public func x509(notBefore: Int64) throws -> JSON {
        let k = try key()
        return [k.kid: .string(try k.certificatePEM(notBefore: notBefore))]
    }
}
