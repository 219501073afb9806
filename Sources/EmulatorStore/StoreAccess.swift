import EmulatorCore

/// The kind of access, as security rules name them.
public enum AccessMethod: String, Sendable {
    case get, list, create, update, delete
}

/// Reads other documents for an authorizer: as of the request (`get`/`exists`) and as they will
/// be after the pending writes of the batch or transaction (`getAfter`/`existsAfter`).
public protocol StoreReader: Sendable {
    /// The document at a database-relative path, as of the request.
    func document(at path: String) -> Document?
    /// The document as it will be after the pending writes.
    func documentAfter(at path: String) -> Document?
}

/// One access the authorization hook must judge. Admin callers never reach the hook.
public struct StoreAccess: Sendable {
    /// Who is asking.
    public var caller: Caller
    /// Project and database.
    public var project: String, database: String
    /// What kind of access.
    public var method: AccessMethod
    /// Database-relative document path (for `list`, the collection path; for collection
    /// groups, `parent/**/collectionId`).
    public var path: String
    /// The stored document (`resource`), if any.
    public var resource: Document?
    /// The document after the write (`request.resource`), for create/update.
    public var requestResource: Document?
    /// The query, for list accesses (rules judge its constraints, not the data).
    public var query: StructuredQuery?
    /// Request time (the project clock).
    public var time: Timestamp
    /// Access to other documents.
    public var reader: any StoreReader
}

/// The one authorization hook every client read and write passes. Throw to deny; the error is
/// returned to the client unchanged.
public protocol StoreAuthorizer: Sendable {
    /// Allows or denies `access`.
    func authorize(_ access: StoreAccess) throws
    /// Sees an administrator's access, which rules never judge (request logs list it). Runs inside
    /// the database lock, like `authorize`.
    func observeAdmin(_ access: StoreAccess)
}

extension StoreAuthorizer {
    /// Ignores administrator accesses.
    public func observeAdmin(_ access: StoreAccess) {}
}

/// The default hook: everything is allowed.
public struct AllowAllAuthorizer: StoreAuthorizer {
    /// Creates the hook.
    public init() {}
    /// Allows.
    public func authorize(_ access: StoreAccess) throws {}
}

/// Committed changes of one commit, in order, for triggers.
public struct StoreChangeBatch: Sendable {
    /// Project and database.
    public var project: String, database: String
    /// Commit time.
    public var commitTime: Timestamp
    /// Per-document changes in write order (creates, updates and deletes that changed something).
    public var changes: [AppliedWrite]
    /// Who committed them (nil: the emulator itself, e.g. an admin wipe).
    public var caller: Caller? = nil
}

/// Reads the state directly (inside the database lock).
struct StateReader: StoreReader {
    let before: DatabaseState
    let after: DatabaseState
    let readTime: Timestamp?
    func document(at path: String) -> Document? { before.document(path, at: readTime) }
    func documentAfter(at path: String) -> Document? { after.document(path) }
}

/// The reader of a commit applied in place: "after" is the state, "before" is the state seen
/// through the commit's undo log (the documents as they were before it).
struct CommitReader: StoreReader {
    let state: DatabaseState
    let undo: [String: DatabaseState.UndoEntry]
    func document(at path: String) -> Document? { undo[path].map { $0.document } ?? state.docs[path] }
    func documentAfter(at path: String) -> Document? { state.docs[path] }
}
