import EmulatorCore

/// Limits and switches of the Storage service (`storage` in emulator.json).
public struct StorageOptions: Sendable, Equatable {
    /// Largest object accepted (Cloud Storage's limit, 5 TiB, is out of reach here; default 5 GiB).
    public var maxObjectBytes: Int64 = 5 << 30
    /// Most bytes all live objects and uploads in progress may hold together; nil: no limit.
    public var maxTotalBytes: Int64?
    /// Check V4 signed URL and POST policy signatures (and expiry); off by default, as in
    /// Firebase's emulator, since clients sign with keys the emulator does not have.
    public var verifySignedURLs = false
    /// Most resumable upload sessions open at once (each holds a file).
    public var maxUploadSessions = 10_000
    /// At `maxUploadSessions`, a session that has had no request for this long gives its place
    /// to a new one (its bytes go): sessions a client opened and left cannot lock every other
    /// client's uploads out. Real clients send their next chunk within seconds.
    public var idleUploadSessionSeconds = 60.0

    /// The defaults.
    public init() {}

    /// The keys the `storage` section accepts.
    public static let knownKeys: Set<String> = ["maxObjectBytes", "maxTotalBytes", "signedUrls"]

    /// Reads the `storage` section: `{"maxObjectBytes": N, "maxTotalBytes": N, "signedUrls": "ignore"|"verify"}`.
    public init(json: JSON) throws {
        guard case .object(let o) = json else { throw EmulatorError.invalidArgument("'storage' must be an object") }
        if let bad = o.keys.sorted().first(where: { !Self.knownKeys.contains($0) }) {
            throw EmulatorError.invalidArgument("unknown key 'storage.\(bad)' (known: \(Self.knownKeys.sorted().joined(separator: ", ")))")
        }
        if let v = o["maxObjectBytes"], !v.isNull {
            guard let n = v.intValue, n > 0 else {
                throw EmulatorError.invalidArgument("'storage.maxObjectBytes' must be a positive number of bytes")
            }
            maxObjectBytes = n
        }
        if let v = o["maxTotalBytes"], !v.isNull {
            guard let n = v.intValue, n > 0 else { throw EmulatorError.invalidArgument("'storage.maxTotalBytes' must be a positive number of bytes") }
            maxTotalBytes = n
        }
        if let v = o["signedUrls"], !v.isNull {
            guard let s = v.stringValue, s == "ignore" || s == "verify" else {
                throw EmulatorError.invalidArgument("'storage.signedUrls' must be \"ignore\" or \"verify\"")
            }
            verifySignedURLs = s == "verify"
        }
    }
}
