import EmulatorCore

/// Cloud Storage for Firebase: buckets, objects with generations and metagenerations, download
/// tokens, and resumable upload sessions. No HTTP: the Firebase API (`/v0`) and Cloud Storage
/// JSON API adapters in `Emulator` call one function each.
///
/// Object bytes live in a `BlobStore` (files on disk in the product), so uploads stream to disk
/// and downloads stream from it; metadata is a value type per bucket, so a project's state is
/// captured and restored as a copy-on-write copy (`ProjectStateParticipant`). Buckets are global
/// by name, as in Cloud Storage, and each belongs to one project (the project's default buckets,
/// `{project}.appspot.com` and `{project}.firebasestorage.app`, exist from the start).
///
/// Client operations of the Firebase API pass the one `StorageAuthorizer` (outside the lock);
/// committed changes go to the one `StorageObserver` (inside the lock, in commit order). Under
/// `--data-dir` every change is handed to the write-ahead journal inside the lock before it is
/// applied (`StorageService+Persistence`); a refused append changes nothing and fails the request.
/// State is behind a `Mutex`; the authorizer and observer behind another. File I/O (writing an
/// upload, composing) never happens under the lock.
public final class StorageService: ProjectStateParticipant, Sendable {
    struct State {
        var buckets: [String: BucketState] = [:]
        var sessions: [String: UploadSession] = [:]
        /// The last generation handed out (generations increase even under a frozen clock).
        var lastGeneration: Int64 = 0
        /// Bytes of every live object.
        var storedBytes: Int64 = 0
        /// Bytes written by uploads that are not stored yet.
        var pendingBytes: Int64 = 0
        /// Sessions created so far (their order).
        var sessionCounter: UInt64 = 0
    }

    struct Hooks {
        var authorizer: any StorageAuthorizer = AllowAllStorageAuthorizer()
        var observer: (any StorageObserver)?
        /// Write-ahead journal (`--data-dir`).
        var journal: (@Sendable (_ project: String, _ entry: JSON) throws -> Void)?
    }

    /// Where object bytes are kept.
    public let blobs: any BlobStore
    /// Limits and switches.
    public let options: StorageOptions
    /// The project that owns buckets created without one (the emulator's default project).
    public let defaultProject: String
    let environments: any ProjectEnvironmentProvider
    let state = Mutex(State())
    let hooks = Mutex(Hooks())
    /// While the data directory loads: every blob its records name, kept alive (nil otherwise).
    let adoption = Mutex<[String: Blob]?>(nil)

    /// Monotonic nanoseconds (upload sessions' idleness; injected for tests).
    let monotonic: @Sendable () -> UInt64

    /// Creates the service; the default project's buckets exist at once.
    public init(
        environments: any ProjectEnvironmentProvider, defaultProject: String, blobs: any BlobStore, options: StorageOptions = StorageOptions(),
        monotonic: @escaping @Sendable () -> UInt64 = { MonotonicClock.nanoseconds() }
    ) {
        self.environments = environments
        self.monotonic = monotonic
        self.defaultProject = defaultProject
        self.blobs = blobs
        self.options = options
        ensureDefaultBuckets(defaultProject)
    }

    /// Sets the hook every Firebase API client operation passes.
    public func setAuthorizer(_ authorizer: any StorageAuthorizer) { hooks.withLock { $0.authorizer = authorizer } }

    /// Sets the receiver of committed changes.
    public func setObserver(_ observer: (any StorageObserver)?) { hooks.withLock { $0.observer = observer } }

    /// Installs the write-ahead journal (`--data-dir`); `replay(project:entry:)` reads its entries.
    public func setJournal(_ j: (@Sendable (_ project: String, _ entry: JSON) throws -> Void)?) { hooks.withLock { $0.journal = j } }

    deinit {
        // The blobs' files outlive the service when they belong to a data directory: values
        // dropped from now on must not delete them.
        blobs.keepFiles()
    }

    /// Hands a change to the journal before it is applied (call inside the state lock); throws
    /// UNAVAILABLE, and the caller changes nothing, when it cannot be written.
    func journal(_ project: String, _ entry: JSON) throws {
        guard let j = hooks.withLock({ $0.journal }) else { return }
        try j(project, entry)
    }

    // MARK: - Shared helpers

    /// The project's clock reading.
    public func now(_ project: String) -> Timestamp { environments.environment(for: project).clock.now() }

    /// A generation for a write at `time`: its microseconds, or one more than the last one.
    func nextGeneration(_ s: inout State, _ time: Timestamp) -> Int64 {
        let g = max(time.microseconds, s.lastGeneration + 1)
        s.lastGeneration = g
        return g
    }

    /// The project owning `bucket`: its recorded owner, the project of a default bucket name, or
    /// the default project.
    public func project(ofBucket bucket: String) -> String {
        state.withLock { $0.buckets[bucket]?.bucket.project } ?? StorageBucket.defaultProject(of: bucket) ?? defaultProject
    }

    /// Finds a bucket inside the lock: a default bucket exists on first mention; other missing
    /// buckets are created for `createFor` when given, else NOT_FOUND.
    func resolveBucket(_ s: inout State, _ name: String, createFor: String? = nil, time: Timestamp? = nil) throws -> StorageBucket {
        if let b = s.buckets[name] { return b.bucket }
        let owner = StorageBucket.defaultProject(of: name) ?? createFor
        guard let owner else { throw StorageErrors.noSuchBucket(name) }
        try StorageNames.validateBucket(name)
        let b = StorageBucket(name: name, project: owner, timeCreated: time ?? now(owner))
        // A default bucket comes back on first mention after a restart; another one is journaled.
        if StorageBucket.defaultProject(of: name) == nil { try journal(owner, ["op": "bucket", "bucket": StorageRecord.bucket(b)]) }
        s.buckets[name] = BucketState(bucket: b)
        notify(StorageChange(project: owner, bucket: name, kind: .bucketCreated, object: nil, previous: nil, caller: nil, time: b.timeCreated))
        return b
    }

    /// Asks the authorizer about a client access (administrators skip it). Outside the lock.
    func authorize(
        _ caller: Caller, project: String, bucket: String, method: StorageAccessMethod, path: String,
        resource: StorageObject?, requestResource: StorageObject? = nil, delimiter: String? = nil, maxResults: Int? = nil
    ) throws {
        guard !caller.isAdmin else { return }
        let auth = hooks.withLock { $0.authorizer }
        try auth.authorize(
            StorageAccess(
                caller: caller, project: project, bucket: bucket, method: method, path: path,
                resource: resource, requestResource: requestResource, delimiter: delimiter,
                maxResults: maxResults, time: now(project)))
    }

    /// Hands a committed change to the observer (call inside the state lock, in commit order).
    func notify(_ change: StorageChange) {
        hooks.withLock { $0.observer }?.storageChanged(change)
    }

    /// Reserves quota for `bytes` more bytes of an upload.
    func reserve(_ bytes: Int64) throws {
        guard let limit = options.maxTotalBytes else { return }
        try state.withLock { s in
            guard s.storedBytes + s.pendingBytes <= limit - bytes else { throw StorageErrors.quotaExceeded(limit) }
            s.pendingBytes += bytes
        }
    }

    /// Gives back a reservation of an upload that ended.
    func release(_ bytes: Int64) {
        guard bytes > 0, options.maxTotalBytes != nil else { return }
        state.withLock { $0.pendingBytes -= bytes }
    }

    /// Bytes held by live objects and by uploads in progress.
    public var usage: (stored: Int64, pending: Int64) { state.withLock { ($0.storedBytes, $0.pendingBytes) } }

    /// Ends the life of values taken out of the state inside the lock (objects whose blob may be
    /// the last reference): their files are deleted here, after the lock, not under it.
    func releaseOutsideLock<T>(_ value: T) {}

    /// A new download token.
    func newToken(_ project: String) -> String { StorageNames.uuid(environments.environment(for: project).ids) }

    // MARK: - ProjectStateParticipant

    /// `storage`.
    public var participantName: String { "storage" }

    /// The project's data: its buckets with their objects.
    public struct ProjectSnapshot: Sendable {
        /// Buckets by name.
        public var buckets: [String: BucketState]
    }

    /// Drops the project's buckets, objects and upload sessions; its default buckets come back
    /// empty. No trigger fires (a reset is not a client delete). Journaled first.
    public func resetProject(_ projectId: String) throws {
        try replaceProject(projectId, with: [:])
    }

    /// Drops every project's data.
    public func resetAll() throws {
        let projects = state.withLock { s in Set(s.buckets.values.map(\.bucket.project)) }
        for p in projects.sorted() { try resetProject(p) }
        ensureDefaultBuckets(defaultProject)
    }

    /// The project's buckets (blobs are shared, not copied).
    public func captureProject(_ projectId: String) -> any Sendable {
        ProjectSnapshot(buckets: state.withLock { s in s.buckets.filter { $0.value.bucket.project == projectId } })
    }

    /// Puts captured buckets back (a restored bucket replaces a same-named bucket of another project).
    public func restoreProject(_ projectId: String, from snapshot: any Sendable) throws {
        guard let snap = snapshot as? ProjectSnapshot else { throw EmulatorError.internal("snapshot is not a storage snapshot") }
        try replaceProject(projectId, with: snap.buckets)
    }

    /// Replaces the project's buckets (journaled first); its default buckets exist afterwards in any case.
    public func replaceProject(_ projectId: String, with buckets: [String: BucketState]) throws {
        var dropped: [BucketState] = []  // released after the lock: their blobs' files go then
        try state.withLock { s in
            let owned = s.buckets.contains { $0.value.bucket.project == projectId } || !buckets.isEmpty
            if owned { try journal(projectId, ["op": "replace", "buckets": StorageRecord.buckets(buckets)]) }
            dropped = Self.replaceBuckets(&s, projectId, with: buckets)
            for (id, session) in s.sessions where session.project == projectId { s.sessions[id] = nil }
        }
        releaseOutsideLock(dropped)
        ensureDefaultBuckets(projectId)
    }

    /// Puts `buckets` in place of the project's buckets (and of same-named buckets of other
    /// projects) inside the lock; returns what was dropped (release it after the lock).
    static func replaceBuckets(_ s: inout State, _ projectId: String, with buckets: [String: BucketState]) -> [BucketState] {
        var dropped: [BucketState] = []
        for (name, b) in s.buckets where b.bucket.project == projectId || buckets[name] != nil {
            dropped.append(b)
            s.buckets[name] = nil
            s.storedBytes -= b.storedBytes
        }
        for (name, b) in buckets {
            s.buckets[name] = b
            s.storedBytes += b.storedBytes
            for o in b.objects.values { s.lastGeneration = max(s.lastGeneration, o.generation) }
        }
        return dropped
    }

    /// Deletes every object of one bucket (the control plane's per-bucket clear); no triggers.
    public func clearBucket(_ name: String) throws -> Int {
        var dropped: [String: StorageObject] = [:]
        try state.withLock { s in
            guard var b = s.buckets[name] else { throw StorageErrors.noSuchBucket(name) }
            if !b.objects.isEmpty { try journal(b.bucket.project, ["op": "clearBucket", "name": .string(name)]) }
            dropped = b.objects
            s.storedBytes -= b.storedBytes
            b.objects = [:]
            s.buckets[name] = b
        }
        defer { releaseOutsideLock(dropped) }
        return dropped.count
    }

    /// Makes sure the project's default buckets exist.
    public func ensureDefaultBuckets(_ projectId: String) {
        state.withLock { s in
            for name in StorageBucket.defaultNames(of: projectId) where s.buckets[name] == nil {
                _ = try? resolveBucket(&s, name)
            }
        }
    }
}
