import EmulatorCore

/// An object's bytes while they arrive: a `BlobWriter` plus the service's size and quota checks.
/// Owned by one request at a time (a resumable session hands it from request to request).
public final class StorageUpload: @unchecked Sendable {
    private let service: StorageService
    let writer: BlobWriter
    /// Quota reserved for the bytes written (given back when the upload ends either way).
    private(set) var reserved: Int64 = 0

    init(service: StorageService, writer: BlobWriter) {
        self.service = service
        self.writer = writer
    }

    /// Bytes received.
    public var size: Int64 { writer.size }

    /// Appends bytes; refuses an object past `maxObjectBytes` (413) or past the total quota (429).
    public func append(_ bytes: [UInt8]) throws {
        guard !bytes.isEmpty else { return }
        let limit = service.options.maxObjectBytes
        guard Int64(bytes.count) <= limit - writer.size else { throw StorageErrors.objectTooLarge(limit) }
        try service.reserve(Int64(bytes.count))
        reserved += Int64(bytes.count)
        do { try writer.append(bytes) } catch {
            throw StorageErrors.notStored(error)
        }
    }

    /// The upload ended (stored or not): its reservation is no longer pending.
    func releaseReservation() -> Int64 {
        defer { reserved = 0 }
        return reserved
    }

    deinit { service.release(reserved) }
}

/// A resumable upload session (Firebase's `X-Goog-Upload-*` protocol and the JSON API's
/// `uploadType=resumable`): where the object will go, what it will be, and the bytes so far.
struct UploadSession: Sendable {
    enum Phase: Sendable {
        /// Receiving bytes.
        case active
        /// Stored: re-finalizing answers the same object.
        case final(StorageObject)
        /// Cancelled by the client.
        case cancelled
        /// Finalizing failed (a precondition, a denial): finalizing again answers the same error.
        case failed(EmulatorError)
    }

    let id: String
    let project: String
    let bucket: String
    let name: String
    var metadata: ObjectMetadata
    var downloadTokens: [String]?
    let conditions: StorageConditions
    /// The Firebase API started it (the stored object gets a download token).
    let firebase: Bool
    /// `X-Goog-Upload-Header-Content-Length` / `X-Upload-Content-Length`, when announced.
    let expectedSize: Int64?
    /// Creation order (the oldest finished sessions are forgotten first).
    let order: UInt64
    /// When a request last used it (the service's monotonic clock).
    var lastActive: UInt64
    var phase: Phase = .active
    /// Why finalizing failed.
    var failure: EmulatorError?
    /// The bytes so far; nil while a request holds them (`busy`) or after the end.
    var upload: StorageUpload?
    var busy = false
    var received: Int64 = 0
}

/// What a client learns about a session (status probes, `query`).
public struct UploadSessionStatus: Sendable {
    /// Bytes received and kept.
    public var received: Int64
    /// The stored object, once finalized.
    public var object: StorageObject?
    /// The client cancelled it.
    public var cancelled: Bool
    /// The size announced at start, if any.
    public var expectedSize: Int64?
    /// Bucket and name the object will have.
    public var bucket: String, name: String
    /// Why finalizing failed, if it did.
    public var failure: EmulatorError?
}
