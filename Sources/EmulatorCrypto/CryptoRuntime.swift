import COpenSSL

/// One-time OpenSSL set-up. OpenSSL registers an `atexit` clean-up by default; if the process
/// exits (e.g. a busy port) while the background key generation is running, that clean-up frees
/// state under the generating thread and the process crashes. Opting out must be the first
/// OpenSSL initialisation, so every entry point that may run first calls `ensure()`.
public enum CryptoRuntime {
    private static let initialised: Bool = OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil) == 1

    /// Initialises OpenSSL without its exit handler (idempotent, thread-safe).
    @discardableResult
    public static func ensure() -> Bool { initialised }
}
