import EmulatorCore

/// Remembers ID tokens whose RS256 signature already verified, so a client that sends the same
/// token with every request pays for the RSA check and the JWT decoding once, not per request.
///
/// Only the signature is cached: issuer, audience, expiry (on the project clock), revocation and
/// disabled users are still checked on every request by the caller. An entry is keyed by the whole
/// token text (so any altered byte misses) and remembers the `kid` it was verified with, so a
/// replaced signing key invalidates it. Bounded: when full, the cache is emptied and refills.
/// State is behind a `Mutex`.
final class VerifiedTokenCache: Sendable {
    private struct Entry {
        let kid: String
        let jwt: JWT
    }

    private let entries: Mutex<[String: Entry]> = Mutex([:])
    /// The most tokens kept at once.
    let capacity: Int

    /// Creates an empty cache that holds at most `capacity` tokens.
    init(capacity: Int = 10_000) { self.capacity = capacity }

    /// The decoded token if `token` verified earlier under the key `kid`.
    func lookup(_ token: String, kid: String) -> JWT? {
        entries.withLock { e in
            guard let hit = e[token], hit.kid == kid else { return nil }
            return hit.jwt
        }
    }

    /// Records that `token` (decoded as `jwt`) verified under the key `kid`.
    func insert(_ token: String, kid: String, jwt: JWT) {
        entries.withLock { e in
            if e.count >= capacity { e.removeAll(keepingCapacity: true) }
            e[token] = Entry(kid: kid, jwt: jwt)
        }
    }

    /// How many tokens are cached (for tests).
    var count: Int { entries.withLock { $0.count } }
}
