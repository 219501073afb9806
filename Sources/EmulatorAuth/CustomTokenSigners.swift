import EmulatorCore
import EmulatorCrypto

/// The service-account keys this emulator knows, whose RS256 custom tokens it accepts when
/// unsigned tokens are refused (`auth.acceptUnsignedTokens: false`, docs/auth.md "Custom
/// tokens"): keys named in `auth.serviceAccounts`, and the keys of the service-account files the
/// emulator generates for function processes. The emulator's own token key is trusted as well
/// (it signs `/emulator/v1/projects/{p}/customTokens`), but it lives in the `TokenKeyring`.
///
/// A production custom token is a JWT signed by a service account's private key, with `iss` and
/// `sub` its email; without such a check, anyone could exchange a token they made themselves for
/// a properly signed ID token for any uid. State (the key list) is behind a `Mutex`.
public final class CustomTokenSigners: Sendable {
    /// One trusted key.
    public struct Signer: Sendable {
        /// The key id service-account tokens carry in their header (`private_key_id`).
        public let keyId: String
        /// The service account's email (`client_email`); tokens must name it as `iss` when set.
        public let email: String?
        /// The key (only its public half is used).
        public let key: RSASigningKey
    }

    private let signers = Mutex<[Signer]>([])

    /// An empty set.
    public init() {}

    /// Trusts `key` for tokens whose header `kid` is `keyId`.
    public func trust(keyId: String, email: String?, key: RSASigningKey) {
        signers.withLock {
            $0.removeAll { $0.keyId == keyId }
            $0.append(Signer(keyId: keyId, email: email, key: key))
        }
    }

    /// Trusts the key of a service-account JSON file's contents (`private_key`, `private_key_id`,
    /// `client_email`). Throws a message naming what is missing.
    public func trust(serviceAccount json: JSON) throws {
        guard let pem = json["private_key"]?.stringValue else {
            throw EmulatorError.invalidArgument("no private_key: not a service-account key file")
        }
        let key: RSASigningKey
        do { key = try RSASigningKey.fromPEM(pem) } catch { throw EmulatorError.invalidArgument("private_key is not an RSA private key in PEM form") }
        trust(keyId: json["private_key_id"]?.stringValue ?? key.kid, email: json["client_email"]?.stringValue, key: key)
    }

    /// The signer named by `kid`, if trusted.
    public func signer(kid: String?) -> Signer? {
        guard let kid else { return nil }
        return signers.withLock { list in list.first { $0.keyId == kid } }
    }

    /// The signer whose service account is `email` (Cloud Storage signed URLs name the signer by
    /// email, not key id).
    public func signer(email: String) -> Signer? {
        signers.withLock { list in list.first { $0.email == email } }
    }

    /// How many keys are trusted (for the start-up log).
    public var count: Int { signers.withLock { $0.count } }
}
