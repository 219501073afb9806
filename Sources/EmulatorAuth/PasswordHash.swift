import EmulatorCore
import EmulatorCrypto

/// A stored password hash and how to recompute it. Native hashes are PBKDF2-HMAC-SHA256 at the
/// configured cost; imported ones keep their algorithm and parameters so sign-in can verify them.
public struct PasswordHash: Sendable, Equatable {
    /// `PBKDF2_SHA256`, `HMAC_SHA256`, `HMAC_SHA512`, `SCRYPT` (Firebase), `STANDARD_SCRYPT`, `BCRYPT`.
    public var algorithm: String
    /// The hash bytes.
    public var hash: [UInt8]
    /// The salt bytes.
    public var salt: [UInt8]
    /// Algorithm parameters (rounds, memoryCost, signerKey, ...).
    public var parameters: HashParameters

    /// Creates a hash record.
    public init(algorithm: String, hash: [UInt8], salt: [UInt8], parameters: HashParameters) {
        self.algorithm = algorithm
        self.hash = hash
        self.salt = salt
        self.parameters = parameters
    }

    /// Hashes `password` natively with a random salt from `ids`.
    public static func make(_ password: String, cost: Int, ids: IDGenerator) throws -> PasswordHash {
        let salt = ids.bytes(16)
        var p = HashParameters()
        p.rounds = cost
        let h = try Digest.pbkdf2SHA256(password: Array(password.utf8), salt: salt, iterations: cost, length: 32)
        return PasswordHash(algorithm: "PBKDF2_SHA256", hash: h, salt: salt, parameters: p)
    }

    /// Why an imported hash is refused, or nil. Every later sign-in recomputes it, so its cost is
    /// bounded here: bcrypt's cost doubles the work per step (an imported `$2b$31$` hash would
    /// take hours per attempt, and cost 16 held every sign-in for 4 s), and a PBKDF2 hash's length
    /// sets how many blocks each attempt derives.
    public static func importProblem(algorithm: String, hash: [UInt8]) -> String? {
        switch algorithm {
        case "BCRYPT":
            // Sign-in verifies with `BCrypt.verify`, so a string it would refuse is refused here
            // rather than imported as an account whose every password is wrong.
            guard let cost = BCrypt.cost(ofHash: String(decoding: hash, as: UTF8.self)) else {
                let prefixes = BCrypt.prefixes.dropLast().joined(separator: ", ") + " or " + (BCrypt.prefixes.last ?? "")
                return "BCRYPT hashes are 60-character modular-crypt strings starting \(prefixes) and a two-digit cost, such as $2b$10$"
            }
            return (4...maxBcryptCost).contains(cost) ? nil : "BCRYPT cost must be 4..\(maxBcryptCost), got \(cost)"
        case "PBKDF2_SHA256":
            return (1...64).contains(hash.count) ? nil : "PBKDF2_SHA256 hashes are 1..64 bytes, got \(hash.count)"
        default:
            return nil
        }
    }

    /// The largest bcrypt cost an import may carry: about 1 s a verification on a laptop core.
    public static let maxBcryptCost = 14

    /// Whether `password` matches, in constant time over the hash bytes.
    public func matches(_ password: String) -> Bool {
        if algorithm == "BCRYPT" {
            // The imported "hash" is the whole modular-crypt string (`$2b$10$...`).
            return (try? BCrypt.verify(password: Array(password.utf8), hash: String(decoding: hash, as: UTF8.self))) ?? false
        }
        guard let computed = try? compute(Array(password.utf8)) else { return false }
        return Digest.constantTimeEqual(computed, hash)
    }

    private func compute(_ pw: [UInt8]) throws -> [UInt8] {
        let p = parameters
        let input = p.saltFirst ? salt + pw : pw + salt
        switch algorithm {
        case "PBKDF2_SHA256":
            return try Digest.pbkdf2SHA256(password: pw, salt: salt, iterations: max(p.rounds, 1), length: hash.count)
        case "HMAC_SHA256":
            return Digest.hmacSHA256(key: p.signerKey, input)
        case "HMAC_SHA512":
            return Digest.hmacSHA512(key: p.signerKey, input)
        case "SCRYPT":
            return try Digest.firebaseScrypt(
                password: pw, salt: salt, saltSeparator: p.saltSeparator, signerKey: p.signerKey,
                rounds: p.rounds, memoryCost: p.memoryCost)
        case "STANDARD_SCRYPT":
            return try Digest.scrypt(
                password: pw, salt: salt, n: UInt64(max(p.cpuMemCost, 0)), r: UInt64(max(p.blockSize, 0)),
                p: UInt64(max(p.parallelization, 0)), length: p.dkLen > 0 ? p.dkLen : hash.count)
        default:
            throw CryptoError("unsupported hash algorithm \(algorithm)")
        }
    }

    /// Hash algorithms `batchCreate` accepts.
    public static let importable: Set<String> = ["BCRYPT", "PBKDF2_SHA256", "HMAC_SHA256", "HMAC_SHA512", "SCRYPT", "STANDARD_SCRYPT"]
}

/// Parameters of an imported hash (the `accounts:batchCreate` request's top-level fields).
public struct HashParameters: Sendable, Equatable {
    /// Rounds (PBKDF2 iterations, Firebase scrypt `rounds`).
    public var rounds = 0
    /// Firebase scrypt memory cost (log2 N).
    public var memoryCost = 0
    /// Firebase scrypt signer key, or the HMAC key.
    public var signerKey: [UInt8] = []
    /// Firebase scrypt salt separator.
    public var saltSeparator: [UInt8] = []
    /// Standard scrypt N.
    public var cpuMemCost = 0
    /// Standard scrypt r.
    public var blockSize = 0
    /// Standard scrypt p.
    public var parallelization = 0
    /// Standard scrypt output length.
    public var dkLen = 0
    /// `passwordHashOrder: SALT_AND_PASSWORD` puts the salt first for HMAC inputs.
    public var saltFirst = false

    /// No parameters.
    public init() {}
}
