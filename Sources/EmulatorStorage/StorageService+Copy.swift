import EmulatorCore

/// Copy, rewrite and compose (Cloud Storage JSON API; administrators only, so no hook).
extension StorageService {
    /// A source object of a compose.
    public struct ComposeSource: Sendable, Equatable {
        /// Object name in the destination bucket.
        public var name: String
        /// The generation it must have, if given.
        public var generation: Int64?
        /// `objectPreconditions.ifGenerationMatch`.
        public var ifGenerationMatch: Int64?

        /// Names a source.
        public init(name: String, generation: Int64? = nil, ifGenerationMatch: Int64? = nil) {
            self.name = name
            self.generation = generation
            self.ifGenerationMatch = ifGenerationMatch
        }
    }

    /// Copies an object (objects.copy, objects.rewrite): a new generation sharing the source's
    /// bytes. `metadata` replaces the source's metadata when given.
    public func copy(
        from sourceBucket: String, _ sourceName: String, sourceConditions: StorageConditions = StorageConditions(),
        to target: UploadTarget, metadata: ObjectMetadataPatch? = nil, caller: Caller
    ) throws -> StorageObject {
        try prepare(target)
        let project = project(ofBucket: target.bucket)
        let source = try state.withLock { s -> StorageObject in
            _ = try resolveBucket(&s, sourceBucket)
            return try liveObject(s, sourceBucket, sourceName, sourceConditions)
        }
        try sourceConditions.check(source)
        let time = now(project)
        var replaced: StorageObject?
        defer { releaseOutsideLock(replaced) }
        return try state.withLock { s -> StorageObject in
            let live = s.buckets[target.bucket]?.objects[target.name]
            try target.conditions.check(live)
            var o = StorageObject(
                bucket: target.bucket, name: target.name, generation: nextGeneration(&s, time), metadata: source.metadata,
                downloadTokens: [], timeCreated: time, updated: time, blob: source.blob)
            if let metadata { o = try Self.patched(o, metadata, time: time) }
            if let tokens = target.downloadTokens { o.downloadTokens = tokens }
            if let limit = options.maxTotalBytes, s.storedBytes + s.pendingBytes > limit - o.size + (live?.size ?? 0) {
                throw StorageErrors.quotaExceeded(limit)
            }
            try journal(project, ["op": "object", "object": StorageRecord.object(o)])
            s.buckets[target.bucket]?.objects[target.name] = o
            s.storedBytes += o.size - (live?.size ?? 0)
            replaced = live
            notify(StorageChange(project: project, bucket: target.bucket, kind: .finalized, object: o, previous: live, caller: caller, time: time))
            return o
        }
    }

    /// Concatenates 1-32 objects of `target.bucket` into `target.name` (objects.compose). The
    /// bytes are copied into a new blob outside the lock.
    public func compose(_ sources: [ComposeSource], into target: UploadTarget, caller: Caller) throws -> StorageObject {
        guard !sources.isEmpty else { throw StorageErrors.invalid("compose needs at least one source object.") }
        guard sources.count <= 32 else { throw StorageErrors.invalid("compose takes at most 32 source objects; \(sources.count) were given.") }
        try prepare(target)
        let objects = try state.withLock { s -> [StorageObject] in
            _ = try resolveBucket(&s, target.bucket)
            return try sources.map { src in
                let o = try liveObject(s, target.bucket, src.name, StorageConditions(generation: src.generation))
                if let g = src.ifGenerationMatch, g != o.generation { throw StorageErrors.conditionNotMet() }
                return o
            }
        }
        let upload = try startUpload()
        for o in objects {
            let reader: any BlobSource
            do { reader = try o.blob.open() } catch { throw EmulatorError.internal("Cannot read \(o.name): \(error.description).") }
            var offset: Int64 = 0
            while offset < o.size {
                let chunk: [UInt8]
                do { chunk = try reader.read(at: offset, count: 1 << 20) } catch {
                    throw EmulatorError.internal("Cannot read \(o.name): \(error.description).")
                }
                if chunk.isEmpty { break }
                try upload.append(chunk)
                offset += Int64(chunk.count)
            }
        }
        var t = target
        if t.metadata.contentType == nil { t.metadata.contentType = objects.first?.metadata.contentType }
        return try store(upload, as: t, caller: caller)
    }
}
