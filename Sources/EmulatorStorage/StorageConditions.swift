import EmulatorCore

/// Generation preconditions (`ifGenerationMatch` and friends) and a requested generation.
/// `ifGenerationMatch: 0` means "only if no live object has this name".
public struct StorageConditions: Sendable, Equatable {
    /// The live generation must equal this (0: the object must not exist).
    public var ifGenerationMatch: Int64?
    /// The live generation must differ from this (0: the object must exist).
    public var ifGenerationNotMatch: Int64?
    /// The live metageneration must equal this.
    public var ifMetagenerationMatch: Int64?
    /// The live metageneration must differ from this.
    public var ifMetagenerationNotMatch: Int64?
    /// A specific generation (`generation=`); without versioning only the live one exists.
    public var generation: Int64?

    /// No conditions.
    public init(
        ifGenerationMatch: Int64? = nil, ifGenerationNotMatch: Int64? = nil, ifMetagenerationMatch: Int64? = nil,
        ifMetagenerationNotMatch: Int64? = nil, generation: Int64? = nil
    ) {
        self.ifGenerationMatch = ifGenerationMatch
        self.ifGenerationNotMatch = ifGenerationNotMatch
        self.ifMetagenerationMatch = ifMetagenerationMatch
        self.ifMetagenerationNotMatch = ifMetagenerationNotMatch
        self.generation = generation
    }

    /// True when no condition is set.
    public var isEmpty: Bool { self == StorageConditions() }

    /// Checks the conditions against the live object (nil: none). Throws FAILED_PRECONDITION
    /// (HTTP 412) when one does not hold; `notModified` turns a failed "not match" into 304, as
    /// reads answer it.
    public func check(_ live: StorageObject?, notModified: Bool = false) throws {
        let gen = live?.generation ?? 0
        if let g = ifGenerationMatch, g != gen { throw StorageErrors.conditionNotMet() }
        if let g = ifGenerationNotMatch, g == gen { throw notModified && live != nil ? StorageErrors.notModified() : StorageErrors.conditionNotMet() }
        if let m = ifMetagenerationMatch {
            guard let live, live.metageneration == m else { throw StorageErrors.conditionNotMet() }
        }
        if let m = ifMetagenerationNotMatch, let live, live.metageneration == m {
            throw notModified ? StorageErrors.notModified() : StorageErrors.conditionNotMet()
        }
    }
}

/// The errors the service throws, with the HTTP statuses Cloud Storage uses; the HTTP adapters
/// give them each API's wire shape.
public enum StorageErrors {
    /// 404 for a missing object.
    public static func noSuchObject(_ bucket: String, _ name: String) -> EmulatorError {
        .notFound("No such object: \(bucket)/\(name)")
    }
    /// 404 for a missing bucket.
    public static func noSuchBucket(_ bucket: String) -> EmulatorError {
        .notFound("The specified bucket does not exist: \(bucket)")
    }
    /// 503 for bytes the disk would not take (full, an I/O or fsync failure, no file descriptor
    /// left): nothing was stored, and clients retry 503s.
    public static func notStored(_ error: StorageIOError) -> EmulatorError {
        EmulatorError(
            .unavailable,
            "The upload was refused and not stored: \(error.description). Retry; if this persists, check the disk's free space and the emulator's open-file limit (ulimit -n)."
        )
    }
    /// 412: a precondition did not hold.
    public static func conditionNotMet() -> EmulatorError {
        EmulatorError(.failedPrecondition, "At least one of the pre-conditions you specified did not hold.", httpStatus: 412)
    }
    /// 304: the object did not change (reads with a "not match" condition).
    public static func notModified() -> EmulatorError {
        EmulatorError(.failedPrecondition, "Not modified.", httpStatus: 304)
    }
    /// 400 with a message.
    public static func invalid(_ message: String) -> EmulatorError { .invalidArgument(message) }
    /// 413: an object larger than the configured limit.
    public static func objectTooLarge(_ limit: Int64) -> EmulatorError {
        EmulatorError(.resourceExhausted, "The object exceeds the maximum object size of \(limit) bytes (storage.maxObjectBytes).", httpStatus: 413)
    }
    /// 429: the configured total quota is used up.
    public static func quotaExceeded(_ limit: Int64) -> EmulatorError {
        EmulatorError(
            .resourceExhausted,
            "The emulator's storage quota of \(limit) bytes (storage.maxTotalBytes) is used up: delete objects or raise the limit.")
    }
}
