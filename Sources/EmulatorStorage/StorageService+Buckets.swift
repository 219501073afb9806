import EmulatorCore

/// Buckets (Cloud Storage JSON API).
extension StorageService {
    /// The project's buckets, by name (its default buckets included).
    public func buckets(project: String) -> [StorageBucket] {
        ensureDefaultBuckets(project)
        return state.withLock { s in s.buckets.values.map(\.bucket).filter { $0.project == project }.sorted { $0.name < $1.name } }
    }

    /// One bucket, or NOT_FOUND.
    public func bucket(_ name: String) throws -> StorageBucket {
        try state.withLock { s in try resolveBucket(&s, name) }
    }

    /// Creates a bucket for `project`; ALREADY_EXISTS (409) when the name is taken.
    public func createBucket(_ name: String, project: String, location: String?, storageClass: String?) throws -> StorageBucket {
        try StorageNames.validateBucket(name)
        let time = now(project)
        return try state.withLock { s in
            guard s.buckets[name] == nil else {
                throw EmulatorError(.alreadyExists, "Your previous request to create the named bucket succeeded and you already own it.")
            }
            var b = StorageBucket(name: name, project: project, timeCreated: time)
            if let location, !location.isEmpty { b.location = location.uppercased() }
            if let storageClass, !storageClass.isEmpty { b.storageClass = storageClass.uppercased() }
            try journal(project, ["op": "bucket", "bucket": StorageRecord.bucket(b)])
            s.buckets[name] = BucketState(bucket: b)
            notify(StorageChange(project: project, bucket: name, kind: .bucketCreated, object: nil, previous: nil, caller: .admin, time: time))
            return b
        }
    }

    /// Deletes an empty bucket; 409 when it still holds objects.
    public func deleteBucket(_ name: String, ifMetagenerationMatch: Int64? = nil) throws {
        try state.withLock { s in
            guard let b = s.buckets[name] else { throw StorageErrors.noSuchBucket(name) }
            if let m = ifMetagenerationMatch, m != b.bucket.metageneration { throw StorageErrors.conditionNotMet() }
            guard b.objects.isEmpty else { throw EmulatorError(.failedPrecondition, "The bucket you tried to delete is not empty.", httpStatus: 409) }
            try journal(b.bucket.project, ["op": "deleteBucket", "name": .string(name)])
            s.buckets[name] = nil
            notify(
                StorageChange(
                    project: b.bucket.project, bucket: name, kind: .bucketDeleted, object: nil, previous: nil, caller: .admin,
                    time: now(b.bucket.project)))
        }
    }

    /// Whether `name` is a bucket now (a default bucket name counts: it exists on first mention).
    /// Creates nothing; cheap enough for the event loop's streaming decision.
    public func bucketExists(_ name: String) -> Bool {
        state.withLock { $0.buckets[name] != nil } || StorageBucket.defaultProject(of: name) != nil
    }

    /// The buckets of `projects` (nil: every bucket) with their objects, by name (exports).
    public func bucketStates(projects: Set<String>?) -> [BucketState] {
        state.withLock { s in
            s.buckets.values.filter { projects?.contains($0.bucket.project) ?? true }.sorted { $0.bucket.name < $1.bucket.name }
        }
    }

    /// The project's buckets with their object counts and bytes (the control plane's listing).
    public func bucketSummaries(project: String) -> [(name: String, objects: Int, bytes: Int64)] {
        ensureDefaultBuckets(project)
        return state.withLock { s in
            s.buckets.values.filter { $0.bucket.project == project }.sorted { $0.bucket.name < $1.bucket.name }
                .map { ($0.bucket.name, $0.objects.count, $0.storedBytes) }
        }
    }
}
