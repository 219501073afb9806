import EmulatorCore

/// `--data-dir` for Storage: the journal entries the service writes (inside its lock, before a
/// change is visible), their replay, and the data directory's snapshot form. Entries are whole
/// values, so a replay twice is harmless:
///
/// - `object` (an upload, copy, compose, metadata or token change): the whole object with its blob id;
/// - `delete` (`bucket`, `name`); `bucket` (a created bucket); `deleteBucket`, `clearBucket` (`name`);
/// - `replace` (`buckets`): the project's buckets wholesale (reset, snapshot restore, import).
///
/// Blob files are written and fsynced before the record naming them is appended (`DiskBlobStore`
/// `durable`), and deleted only after the record that drops their last reference. While loading
/// (`beginLoading` … `finishLoading`) every blob a record names is kept alive, whatever later
/// records do, so one file is one `Blob` however many records and objects name it; afterwards
/// the unreferenced ones, and files no record names, are deleted.
extension StorageService: PersistentParticipant {
    /// The project's buckets (with objects naming their blobs) and the generation counter: the
    /// data directory's snapshot form. Exports use Firebase's `storage_export/` layout instead.
    public func exportProject(_ projectId: String) -> JSON {
        state.withLock { s in
            [
                "buckets": StorageRecord.buckets(s.buckets.filter { $0.value.bucket.project == projectId }),
                "lastGeneration": .int(s.lastGeneration),
            ]
        }
    }

    /// Replaces the project's buckets with a snapshot (`exportProject`); only while loading.
    public func importProject(_ projectId: String, _ json: JSON) throws {
        try ResourceId.project(projectId)
        let buckets = try StorageRecord.buckets(json["buckets"] ?? .array([]), blobs: adopt)
        try replaceProject(projectId, with: buckets)
        if let g = json["lastGeneration"]?.intValue { state.withLock { $0.lastGeneration = max($0.lastGeneration, g) } }
    }

    /// Projects owning an object or a bucket that is not one of their default buckets.
    public var projectsWithData: [String] {
        state.withLock { s in
            Set(s.buckets.values.filter { !$0.objects.isEmpty || StorageBucket.defaultProject(of: $0.bucket.name) == nil }.map(\.bucket.project))
                .sorted()
        }
    }

    /// Re-applies one journal entry.
    public func replay(project: String, entry: JSON) throws {
        try ResourceId.project(project)
        var dropped: [Any] = []
        try state.withLock { s in dropped = try apply(entry, project: project, to: &s) }
        releaseOutsideLock(dropped)
    }

    /// Applies an entry inside the lock; returns the values it dropped.
    func apply(_ entry: JSON, project: String, to s: inout State) throws -> [Any] {
        switch entry["op"]?.stringValue ?? "" {
        case "object":
            let o = try StorageRecord.object(entry["object"] ?? .null, blobs: adopt)
            if s.buckets[o.bucket] == nil {
                let b = StorageBucket(name: o.bucket, project: StorageBucket.defaultProject(of: o.bucket) ?? project, timeCreated: o.timeCreated)
                s.buckets[o.bucket] = BucketState(bucket: b)
            }
            let old = s.buckets[o.bucket]?.objects.updateValue(o, forKey: o.name)
            s.storedBytes += o.size - (old?.size ?? 0)
            s.lastGeneration = max(s.lastGeneration, o.generation)
            return old.map { [$0] } ?? []
        case "delete":
            guard let bucket = entry["bucket"]?.stringValue, let name = entry["name"]?.stringValue,
                let old = s.buckets[bucket]?.objects.removeValue(forKey: name)
            else { return [] }
            s.storedBytes -= old.size
            return [old]
        case "bucket":
            let b = try StorageRecord.bucket(entry["bucket"] ?? .null)
            if s.buckets[b.name] == nil { s.buckets[b.name] = BucketState(bucket: b) } else { s.buckets[b.name]?.bucket = b }
            return []
        case "deleteBucket":
            guard let name = entry["name"]?.stringValue, let old = s.buckets.removeValue(forKey: name) else { return [] }
            s.storedBytes -= old.storedBytes
            return [old]
        case "clearBucket":
            guard let name = entry["name"]?.stringValue, let old = s.buckets[name] else { return [] }
            s.buckets[name]?.objects = [:]
            s.storedBytes -= old.storedBytes
            return [old.objects]
        case "replace":
            let buckets = try StorageRecord.buckets(entry["buckets"] ?? .array([]), blobs: adopt)
            return Self.replaceBuckets(&s, project, with: buckets)
        default:
            throw EmulatorError.invalidArgument("unknown Storage journal entry '\(entry["op"]?.stringValue ?? "?")'")
        }
    }

    /// Starts loading the data directory: blobs named by records are kept alive until `finishLoading`.
    public func beginLoading() { adoption.withLock { $0 = [:] } }

    /// The one `Blob` for a file a record names (only while loading: anywhere else a record
    /// naming a file would let one file have two owners, and the first to go would delete it).
    func adopt(_ id: String, _ size: Int64, _ md5: [UInt8], _ crc32c: UInt32) throws -> Blob {
        guard Self.isBlobId(id) else { throw EmulatorError.invalidArgument("'\(id)' is not a stored file's name.") }
        return try adoption.withLock { registry throws -> Blob in
            guard registry != nil else {
                throw EmulatorError.failedPrecondition("Storage records that name stored files are read only while the data directory loads.")
            }
            if let b = registry?[id] { return b }
            let b = Blob(id: id, size: size, md5: md5, crc32c: crc32c, store: blobs)
            registry?[id] = b
            return b
        }
    }

    /// A blob id a record may name: one plain file name.
    static func isBlobId(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 255 && id != "." && id != ".." && !id.utf8.contains(47) && !id.utf8.contains(0)
    }

    /// Ends loading: objects whose file is missing or short are dropped (and named in the
    /// report), blobs no object refers to any more are released (their files deleted), and every
    /// other file in the store, which no record names, is deleted.
    public func finishLoading() -> StorageLoadReport {
        var registry = adoption.withLock { r -> [String: Blob] in
            defer { r = nil }
            return r ?? [:]
        }
        var missing: [String] = []
        var dropped: [StorageObject] = []
        let live = state.withLock { s -> Set<String> in
            var ids = Set<String>()
            for (bucketName, b) in s.buckets {
                for (name, o) in b.objects {
                    if let size = blobs.storedSize(o.blob.id), size >= o.size {
                        ids.insert(o.blob.id)
                    } else {
                        missing.append("gs://\(bucketName)/\(name)")
                        dropped.append(o)
                        s.buckets[bucketName]?.objects[name] = nil
                        s.storedBytes -= o.size
                    }
                }
            }
            return ids
        }
        registry.removeAll()  // unreferenced blobs go now (their files with them)
        releaseOutsideLock(dropped)
        var orphans = 0
        for id in blobs.blobIds where !live.contains(id) {
            blobs.remove(id)
            orphans += 1
        }
        return StorageLoadReport(orphansRemoved: orphans, missing: missing.sorted())
    }
}
