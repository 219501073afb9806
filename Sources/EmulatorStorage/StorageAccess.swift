import EmulatorCore

/// The kind of access, as Storage security rules name them (`read` is `get` + `list`, `write`
/// is `create` + `update` + `delete`).
public enum StorageAccessMethod: String, Sendable {
    case get, list, create, update, delete
}

/// One client access the authorization hook must judge. Administrators (`Bearer owner`, the
/// Cloud Storage JSON API) never reach the hook; a valid download token skips it too.
public struct StorageAccess: Sendable {
    /// Who is asking.
    public var caller: Caller
    /// The project owning the bucket.
    public var project: String
    /// The bucket.
    public var bucket: String
    /// What kind of access.
    public var method: StorageAccessMethod
    /// The object name (for `list`, the listed prefix; rules match it as `/b/{bucket}/o/{path}`).
    public var path: String
    /// The stored object (`resource`), if any.
    public var resource: StorageObject?
    /// The object after the write (`request.resource`): for create and update.
    public var requestResource: StorageObject?
    /// For `list`: the delimiter and page size asked for.
    public var delimiter: String?
    /// For `list`: the page size asked for.
    public var maxResults: Int?
    /// Request time (the project clock).
    public var time: Timestamp
}

/// The one authorization hook every Firebase API (`/v0`) client operation passes. Throw to deny
/// (the SDKs show 403 as `storage/unauthorized`); the error goes back unchanged. Runs outside the
/// service's lock, so it may take its time (part 2: Storage rules on the rules engine, with
/// `firestore.get()` reads).
public protocol StorageAuthorizer: Sendable {
    /// Allows or denies `access`.
    func authorize(_ access: StorageAccess) throws
}

/// The default hook until Storage rules exist: every client operation is allowed.
public struct AllowAllStorageAuthorizer: StorageAuthorizer {
    /// Creates the hook.
    public init() {}
    /// Allows.
    public func authorize(_ access: StorageAccess) throws {}
}

/// What happened to an object, for triggers (`google.cloud.storage.object.v1.*`) and journals.
public enum StorageChangeKind: String, Sendable {
    /// A new generation was written (upload, copy, rewrite, compose): `finalized`.
    case finalized
    /// Metadata changed (same generation, metageneration + 1): `metadataUpdated`.
    case metadataUpdated
    /// The object was deleted: `deleted`.
    case deleted
    /// Download tokens changed without a metadata event (Firebase creates one on first read):
    /// for journals, never a trigger.
    case tokensChanged
    /// A bucket was created (journals only).
    case bucketCreated
    /// A bucket was deleted (journals only).
    case bucketDeleted
}

/// One committed change.
public struct StorageChange: Sendable {
    /// The project owning the bucket.
    public var project: String
    /// The bucket.
    public var bucket: String
    /// What happened.
    public var kind: StorageChangeKind
    /// The object after the change (nil for deletes and bucket changes).
    public var object: StorageObject?
    /// The object before it (nil for creations).
    public var previous: StorageObject?
    /// Who made it (nil: the emulator itself).
    public var caller: Caller?
    /// When (the project clock).
    public var time: Timestamp
}

/// Receives committed changes, in commit order, inside the service's lock: it should only read
/// what it is given or enqueue (journal append, trigger queue), like the store's observer.
public protocol StorageObserver: Sendable {
    /// One committed change.
    func storageChanged(_ change: StorageChange)
}
