#if canImport(Glibc)
import EmulatorCore
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// bcrypt verification through the system's `crypt(3)` (libxcrypt on Linux supports `$2a$`,
/// `$2b$`, `$2y$`). OpenSSL has no bcrypt, so the library is opened at run time instead of linked:
/// the package needs no extra linker flag and hosts without it simply report bcrypt unsupported.
/// `crypt` returns a static buffer, so calls are serialised by a `Mutex`.
public enum BCrypt {
    private typealias CryptFn = @convention(c) (UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> UnsafeMutablePointer<CChar>?

    private static let lock = Mutex<Void>(())

    nonisolated(unsafe) private static let crypt: CryptFn? = {
        for name in ["libcrypt.so.1", "libcrypt.so.2", "libcrypt.so"] {
            if let h = dlopen(name, RTLD_NOW), let sym = dlsym(h, "crypt") {
                return unsafeBitCast(sym, to: CryptFn.self)
            }
        }
        return nil
    }()

    /// True when the host's crypt(3) can compute bcrypt.
    public static var isAvailable: Bool { crypt != nil }

    /// The modular-crypt prefixes `verify` accepts; any other string is refused before crypt(3)
    /// sees it, so what it makes of other schemes never decides a sign-in.
    public static let prefixes = ["$2a$", "$2b$", "$2y$"]

    /// The cost (log2 of the rounds) of the modular-crypt bcrypt string `hash` (`$2b$10$` and 53
    /// more characters), or nil when it is not one `verify` accepts. One reading of the shape for
    /// `verify` and for imports, so an import never keeps a hash that no password would match.
    public static func cost(ofHash hash: String) -> Int? {
        let b = Array(hash.utf8)
        guard b.count == 60, prefixes.contains(where: { hash.hasPrefix($0) }), b[6] == UInt8(ascii: "$") else { return nil }
        // Two ASCII digits: `Int` alone would also take a sign (`$2b$+1$`).
        let digits = b[4..<6]
        guard digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        return Int(String(decoding: digits, as: UTF8.self))
    }

    /// Whether `password` matches the modular-crypt bcrypt string `hash` (`$2b$10$...`).
    /// Throws when bcrypt is unavailable or the hash is not a bcrypt string.
    public static func verify(password: [UInt8], hash: String) throws -> Bool {
        guard cost(ofHash: hash) != nil else { throw CryptoError("bcrypt hash format") }
        guard let crypt else { throw CryptoError("bcrypt unavailable") }
        // bcrypt reads a NUL-terminated key; an embedded NUL would truncate it silently.
        guard !password.contains(0) else { return false }
        let computed: [UInt8]? = lock.withLock { _ in
            let pw = password.map { CChar(bitPattern: $0) } + [0]
            guard let out = crypt(pw, hash) else { return nil }
            return Array(String(cString: out).utf8)
        }
        guard let computed else { return false }
        return Digest.constantTimeEqual(computed, Array(hash.utf8))
    }
}
