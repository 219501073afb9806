import EmulatorCore

/// Uploads: single-request (media, multipart, POST policy) and resumable sessions. The bytes go
/// to a `StorageUpload` (a file) as they arrive; the object is stored in one step at the end.
extension StorageService {
    /// What an upload stores besides its bytes.
    public struct UploadTarget: Sendable {
        /// Bucket (created for the default project when it does not exist).
        public var bucket: String
        /// Object name.
        public var name: String
        /// Content headers and custom metadata.
        public var metadata: ObjectMetadata
        /// Download tokens given by the client (`firebaseStorageDownloadTokens`); nil: none given.
        public var downloadTokens: [String]?
        /// The Firebase API uploads it: the object gets a download token when none was given.
        public var firebase: Bool
        /// Preconditions on the object being replaced.
        public var conditions: StorageConditions

        /// Describes an upload.
        public init(
            bucket: String, name: String, metadata: ObjectMetadata = ObjectMetadata(), downloadTokens: [String]? = nil,
            firebase: Bool = false, conditions: StorageConditions = StorageConditions()
        ) {
            self.bucket = bucket
            self.name = name
            self.metadata = metadata
            self.downloadTokens = downloadTokens
            self.firebase = firebase
            self.conditions = conditions
        }
    }

    /// Checks names and the bucket before any byte is received (a missing non-default bucket is
    /// created for the default project, as Firebase's emulator does).
    public func prepare(_ target: UploadTarget) throws {
        try StorageNames.validateObject(target.name)
        try Self.checkCustomMetadata(target.metadata.custom)
        try state.withLock { s in _ = try resolveBucket(&s, target.bucket, createFor: defaultProject) }
    }

    /// Starts receiving bytes.
    public func startUpload() throws -> StorageUpload {
        do { return StorageUpload(service: self, writer: try BlobWriter(store: blobs)) } catch {
            throw StorageErrors.notStored(error)
        }
    }

    /// Stores the received bytes as `target` for `caller` (the `create` access for a new name,
    /// `update` for a replacement): a new generation, after the preconditions.
    public func store(_ upload: StorageUpload, as target: UploadTarget, caller: Caller) throws -> StorageObject {
        try prepare(target)
        let project = project(ofBucket: target.bucket)
        let blob: Blob
        do { blob = try upload.writer.finish() } catch {
            throw StorageErrors.notStored(error)
        }
        let reserved = upload.releaseReservation()
        defer { release(reserved) }
        var tokens = target.downloadTokens ?? []
        if tokens.isEmpty && target.firebase { tokens = [newToken(project)] }
        for _ in 0..<8 {
            let time = now(project)
            let before = state.withLock { $0.buckets[target.bucket]?.objects[target.name] }
            try target.conditions.check(before)
            let proposed = StorageObject(
                bucket: target.bucket, name: target.name, generation: 0, metadata: target.metadata,
                downloadTokens: tokens, timeCreated: time, updated: time, blob: blob)
            try authorize(
                caller, project: project, bucket: target.bucket, method: before == nil ? .create : .update,
                path: target.name, resource: before, requestResource: proposed)
            var replaced: StorageObject?  // released after the lock: its blob's file goes then
            let stored = try state.withLock { s -> StorageObject? in
                let live = s.buckets[target.bucket]?.objects[target.name]
                try target.conditions.check(live)
                guard live?.generation == before?.generation else { return nil }  // judge the new state again
                guard s.buckets[target.bucket] != nil else { throw StorageErrors.noSuchBucket(target.bucket) }
                var o = proposed
                let last = s.lastGeneration
                o.generation = nextGeneration(&s, time)
                do { try journal(project, ["op": "object", "object": StorageRecord.object(o)]) } catch {
                    s.lastGeneration = last
                    throw error
                }
                s.buckets[target.bucket]?.objects[target.name] = o
                s.storedBytes += o.size - (live?.size ?? 0)
                replaced = live
                notify(
                    StorageChange(project: project, bucket: target.bucket, kind: .finalized, object: o, previous: live, caller: caller, time: time))
                return o
            }
            releaseOutsideLock(replaced)
            if let stored { return stored }
        }
        throw EmulatorError(.aborted, "The object kept changing while it was being stored; retry.", httpStatus: 503)
    }

    /// Stores `bytes` in one step (small objects, tests).
    public func store(bytes: [UInt8], as target: UploadTarget, caller: Caller) throws -> StorageObject {
        let upload = try startUpload()
        try upload.append(bytes)
        return try store(upload, as: target, caller: caller)
    }

    // MARK: - Resumable sessions

    /// Opens a resumable session for `target`; `expectedSize` is the size announced, if any.
    /// Preconditions are checked now and again when it is finalized.
    public func startSession(_ target: UploadTarget, expectedSize: Int64?, caller: Caller) throws -> String {
        try prepare(target)
        if let n = expectedSize {
            guard n >= 0 else { throw StorageErrors.invalid("The announced upload size is negative.") }
            guard n <= options.maxObjectBytes else { throw StorageErrors.objectTooLarge(options.maxObjectBytes) }
        }
        let project = project(ofBucket: target.bucket)
        try target.conditions.check(state.withLock { $0.buckets[target.bucket]?.objects[target.name] })
        let id = environments.environment(for: project).ids.string(length: 40, alphabet: IDGenerator.alphanumerics)
        let upload = try startUpload()
        var evicted: [UploadSession] = []
        let now = monotonic()
        try state.withLock { s in
            if s.sessions.count >= options.maxUploadSessions {
                guard let victim = Self.reclaimable(s.sessions, now: now, idleSeconds: options.idleUploadSessionSeconds) else {
                    throw EmulatorError(
                        .resourceExhausted,
                        "Too many resumable uploads in progress (\(options.maxUploadSessions)); finish or cancel some. A session with no request for \(Int(options.idleUploadSessionSeconds)) s gives its place to a new one."
                    )
                }
                if let gone = s.sessions.removeValue(forKey: victim) { evicted.append(gone) }
            }
            s.sessionCounter += 1
            s.sessions[id] = UploadSession(
                id: id, project: project, bucket: target.bucket, name: target.name, metadata: target.metadata,
                downloadTokens: target.downloadTokens, conditions: target.conditions, firebase: target.firebase,
                expectedSize: expectedSize, order: s.sessionCounter, lastActive: now, upload: upload)
        }
        releaseOutsideLock(evicted)
        return id
    }

    /// The session to forget when the table is full: the oldest finished one (kept only for
    /// repeated finalize calls), else the active one idle longest, if it has been idle for
    /// `idleSeconds` and no request holds it; nil when every session is in use.
    static func reclaimable(_ sessions: [String: UploadSession], now: UInt64, idleSeconds: Double) -> String? {
        var ended: (key: String, order: UInt64)?
        var idle: (key: String, since: UInt64, order: UInt64)?
        for (key, session) in sessions {
            if case .active = session.phase {
                // Ties (one clock reading) go to the older session, so the choice never depends on
                // the dictionary's order.
                if !session.busy, idle.map({ (session.lastActive, session.order) < ($0.since, $0.order) }) ?? true {
                    idle = (key, session.lastActive, session.order)
                }
            } else if session.order < ended?.order ?? .max {
                ended = (key, session.order)
            }
        }
        if let ended { return ended.key }
        guard let idle, MonotonicClock.deadline(afterSeconds: idleSeconds, from: idle.since) <= now else { return nil }
        return idle.key
    }

    /// Where a session stands.
    public func sessionStatus(_ id: String) throws -> UploadSessionStatus {
        try state.withLock { s in
            guard let session = s.sessions[id] else { throw Self.noSuchSession(id) }
            return Self.status(session)
        }
    }

    static func status(_ session: UploadSession) -> UploadSessionStatus {
        var object: StorageObject?
        var cancelled = false
        switch session.phase {
        case .active: break
        case .final(let o): object = o
        case .cancelled: cancelled = true
        case .failed: break
        }
        return UploadSessionStatus(
            received: session.received, object: object, cancelled: cancelled, expectedSize: session.expectedSize,
            bucket: session.bucket, name: session.name, failure: session.failure)
    }

    static func noSuchSession(_ id: String) -> EmulatorError {
        .notFound("No such upload session: '\(id)'. It may have been finalized, cancelled or reset.")
    }

    /// Takes a session's bytes for one request: the caller appends and then checks them back in
    /// (or finalizes). A session another request holds answers 503 (clients retry).
    public func checkOutSession(_ id: String) throws -> (upload: StorageUpload, status: UploadSessionStatus) {
        try state.withLock { s in
            guard var session = s.sessions[id] else { throw Self.noSuchSession(id) }
            guard case .active = session.phase else {
                throw EmulatorError(.failedPrecondition, "The upload session is no longer active.", httpStatus: 400)
            }
            guard !session.busy, let upload = session.upload else {
                throw EmulatorError(.unavailable, "Another request is writing to this upload session; retry.")
            }
            session.busy = true
            session.upload = nil
            session.lastActive = monotonic()
            s.sessions[id] = session
            return (upload, Self.status(session))
        }
    }

    /// Gives a session its bytes back after a request appended to them (or failed).
    public func checkInSession(_ id: String, _ upload: StorageUpload) {
        var orphan: StorageUpload? = upload  // a session reset meanwhile: its bytes go
        state.withLock { s in
            guard var session = s.sessions[id], session.busy else { return }
            session.busy = false
            guard case .active = session.phase else {  // cancelled meanwhile: the bytes go
                s.sessions[id] = session
                return
            }
            session.upload = upload
            session.received = upload.size
            session.lastActive = monotonic()
            s.sessions[id] = session
            orphan = nil
        }
        releaseOutsideLock(orphan)
    }

    /// Stores a session's object from the bytes checked out (`upload`) for `caller`. Finalizing
    /// a finished session answers its object again (or its failure).
    public func finalizeSession(_ id: String, _ upload: StorageUpload?, caller: Caller) throws -> StorageObject {
        let session = try state.withLock { s -> UploadSession in
            guard let session = s.sessions[id] else { throw Self.noSuchSession(id) }
            return session
        }
        switch session.phase {
        case .final(let o): return o
        case .failed(let e): throw e
        case .cancelled: throw EmulatorError(.failedPrecondition, "The upload session was cancelled.", httpStatus: 400)
        case .active: break
        }
        guard let upload else {
            // Finalize without new bytes: take the session's own.
            let (taken, _) = try checkOutSession(id)
            return try finalizeSession(id, taken, caller: caller)
        }
        if let n = session.expectedSize, upload.size != n {
            checkInSession(id, upload)
            throw StorageErrors.invalid("The upload has \(upload.size) bytes but \(n) were announced when it started.")
        }
        let target = UploadTarget(
            bucket: session.bucket, name: session.name, metadata: session.metadata, downloadTokens: session.downloadTokens,
            firebase: session.firebase, conditions: session.conditions)
        let size = upload.size
        do {
            let o = try store(upload, as: target, caller: caller)
            end(id, .final(o), received: size)
            return o
        } catch let e as EmulatorError {
            end(id, .failed(e), received: size)
            throw e
        }
    }

    private func end(_ id: String, _ phase: UploadSession.Phase, received: Int64) {
        state.withLock { s in
            guard var session = s.sessions[id] else { return }
            session.phase = phase
            session.busy = false
            session.upload = nil
            session.received = received
            if case .failed(let e) = phase { session.failure = e }
            s.sessions[id] = session
        }
    }

    /// Cancels an active session (its bytes are dropped); a finished one is an error (400).
    public func cancelSession(_ id: String) throws {
        var dropped: StorageUpload?
        try state.withLock { s in
            guard var session = s.sessions[id] else { throw Self.noSuchSession(id) }
            guard case .active = session.phase else {
                throw EmulatorError(.failedPrecondition, "The upload session has already finished.", httpStatus: 400)
            }
            dropped = session.upload
            session.upload = nil
            session.phase = .cancelled
            s.sessions[id] = session
        }
        releaseOutsideLock(dropped)
    }
}
