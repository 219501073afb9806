import EmulatorCore

/// Reading, listing, updating and deleting objects, and download tokens.
extension StorageService {
    /// The live object, or NOT_FOUND (also when `conditions.generation` names another one).
    func liveObject(_ s: State, _ bucket: String, _ name: String, _ conditions: StorageConditions = StorageConditions()) throws -> StorageObject {
        guard let o = s.buckets[bucket]?.objects[name], conditions.generation.map({ $0 == o.generation }) ?? true else {
            throw StorageErrors.noSuchObject(bucket, name)
        }
        return o
    }

    /// An object's metadata and bytes for `caller` (the `get` access), after the conditions.
    public func object(bucket: String, name: String, conditions: StorageConditions = StorageConditions(), caller: Caller) throws -> StorageObject {
        let o = try state.withLock { s -> StorageObject? in
            _ = try resolveBucket(&s, bucket)
            return s.buckets[bucket]?.objects[name]
        }
        try authorize(caller, project: project(ofBucket: bucket), bucket: bucket, method: .get, path: name, resource: o)
        guard let o, conditions.generation.map({ $0 == o.generation }) ?? true else { throw StorageErrors.noSuchObject(bucket, name) }
        try conditions.check(o, notModified: true)
        return o
    }

    /// The object if `token` is one of its download tokens (a token download skips the hook).
    public func object(bucket: String, name: String, downloadToken token: String) throws -> StorageObject {
        let o = state.withLock { $0.buckets[bucket]?.objects[name] }
        guard let o, o.downloadTokens.contains(token) else {
            // Production answers an unknown token like a denied read.
            throw EmulatorError.permissionDenied("Permission denied. Invalid download token.")
        }
        return o
    }

    /// The object with at least one download token, creating one when it has none, as Firebase
    /// does when the Firebase API reads its metadata (no metadata event: see `tokensChanged`).
    /// When the journal refuses the new token, the object is answered as it is (without one).
    public func ensureDownloadToken(_ object: StorageObject) -> StorageObject {
        guard object.downloadTokens.isEmpty else { return object }
        let project = project(ofBucket: object.bucket)
        let token = newToken(project)
        return state.withLock { s -> StorageObject in
            guard var o = s.buckets[object.bucket]?.objects[object.name], o.generation == object.generation else { return object }
            if o.downloadTokens.isEmpty {
                o.downloadTokens = [token]
                do { try journal(project, ["op": "object", "object": StorageRecord.object(o)]) } catch { return object }
                s.buckets[object.bucket]?.objects[object.name] = o
                notify(
                    StorageChange(
                        project: project, bucket: object.bucket, kind: .tokensChanged, object: o, previous: object, caller: nil, time: now(project)))
            }
            return o
        }
    }

    /// One page of a bucket's objects for `caller` (the `list` access on the prefix).
    public func list(bucket: String, query: StorageListQuery, caller: Caller) throws -> StorageListPage {
        try authorize(
            caller, project: project(ofBucket: bucket), bucket: bucket, method: .list, path: query.prefix, resource: nil,
            delimiter: query.delimiter, maxResults: query.maxResults)
        let objects = try state.withLock { s -> [String: StorageObject] in
            _ = try resolveBucket(&s, bucket)
            return s.buckets[bucket]?.objects ?? [:]
        }
        return try StorageLister.page(objects, query)
    }

    /// Applies a metadata change (the `update` access); metageneration + 1.
    public func update(
        bucket: String, name: String, patch: ObjectMetadataPatch, conditions: StorageConditions = StorageConditions(),
        caller: Caller
    ) throws -> StorageObject {
        let project = project(ofBucket: bucket)
        for _ in 0..<8 {
            let before = try state.withLock { s in try liveObject(s, bucket, name, conditions) }
            let after = try Self.patched(before, patch, time: now(project))
            try authorize(caller, project: project, bucket: bucket, method: .update, path: name, resource: before, requestResource: after)
            let committed = try state.withLock { s -> StorageObject? in
                let live = try liveObject(s, bucket, name, conditions)
                try conditions.check(live)
                // Changed since it was authorized: judge the new state again.
                guard live.generation == before.generation, live.metageneration == before.metageneration else { return nil }
                var o = try Self.patched(live, patch, time: now(project))
                o.metageneration = live.metageneration + 1
                try journal(project, ["op": "object", "object": StorageRecord.object(o)])
                s.buckets[bucket]?.objects[name] = o
                notify(
                    StorageChange(
                        project: project, bucket: bucket, kind: .metadataUpdated, object: o, previous: live, caller: caller, time: o.updated))
                return o
            }
            if let committed { return committed }
        }
        throw EmulatorError(.aborted, "The object kept changing while it was being updated; retry.", httpStatus: 503)
    }

    /// The object with `patch` applied (not stored).
    static func patched(_ o: StorageObject, _ patch: ObjectMetadataPatch, time: Timestamp) throws -> StorageObject {
        var out = o
        var m = patch.replace ? ObjectMetadata() : o.metadata
        m.contentType = patch.contentType.applied(to: m.contentType)
        m.contentEncoding = patch.contentEncoding.applied(to: m.contentEncoding)
        m.contentDisposition = patch.contentDisposition.applied(to: m.contentDisposition)
        m.contentLanguage = patch.contentLanguage.applied(to: m.contentLanguage)
        m.cacheControl = patch.cacheControl.applied(to: m.cacheControl)
        m.acl = patch.acl.applied(to: patch.replace ? nil : m.acl)
        let customTime = patch.customTime.applied(to: patch.replace ? nil : o.metadata.customTime)
        if let old = o.metadata.customTime, let new = customTime, new < old {
            throw StorageErrors.invalid("customTime may only move forward (it is \(old.rfc3339()); \(new.rfc3339()) was given).")
        }
        m.customTime = customTime
        if patch.clearCustom { m.custom = [:] }
        if let custom = patch.custom {
            for (k, v) in custom { m.custom[k] = v }
        }
        try Self.checkCustomMetadata(m.custom)
        out.metadata = m
        if let tokens = patch.downloadTokens { out.downloadTokens = tokens }
        out.updated = time
        return out
    }

    /// Custom metadata limit: 8 KiB of keys and values together, as in Cloud Storage.
    static func checkCustomMetadata(_ custom: [String: String]) throws {
        let bytes = custom.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
        guard bytes <= 8192 else { throw StorageErrors.invalid("Custom metadata exceeds 8 KiB (\(bytes) bytes of keys and values).") }
    }

    /// Deletes the object (the `delete` access).
    public func delete(bucket: String, name: String, conditions: StorageConditions = StorageConditions(), caller: Caller) throws {
        let project = project(ofBucket: bucket)
        let before = try state.withLock { s -> StorageObject? in
            _ = try resolveBucket(&s, bucket)
            return s.buckets[bucket]?.objects[name]
        }
        // The hook is asked even when there is nothing to delete: a denial is the answer then.
        try authorize(caller, project: project, bucket: bucket, method: .delete, path: name, resource: before)
        var removed: StorageObject?  // released after the lock: the blob's file goes then
        try state.withLock { s in
            let live = try liveObject(s, bucket, name, conditions)
            try conditions.check(live)
            try journal(project, ["op": "delete", "bucket": .string(bucket), "name": .string(name)])
            s.buckets[bucket]?.objects[name] = nil
            s.storedBytes -= live.size
            removed = live
            notify(StorageChange(project: project, bucket: bucket, kind: .deleted, object: nil, previous: live, caller: caller, time: now(project)))
        }
        releaseOutsideLock(removed)
    }

    /// Adds a download token (administrators only, as in Firebase).
    public func createDownloadToken(bucket: String, name: String, caller: Caller) throws -> StorageObject {
        guard caller.isAdmin else { throw EmulatorError.permissionDenied("Missing admin credentials.") }
        let project = project(ofBucket: bucket)
        let token = newToken(project)
        return try changeTokens(bucket, name, project) { $0.append(token) }
    }

    /// Removes a download token; removing the last one creates a new one (administrators only).
    public func deleteDownloadToken(bucket: String, name: String, token: String, caller: Caller) throws -> StorageObject {
        guard caller.isAdmin else { throw EmulatorError.permissionDenied("Missing admin credentials.") }
        let project = project(ofBucket: bucket)
        let replacement = newToken(project)
        return try changeTokens(bucket, name, project) { tokens in
            tokens.removeAll { $0 == token }
            if tokens.isEmpty { tokens = [replacement] }
        }
    }

    private func changeTokens(_ bucket: String, _ name: String, _ project: String, _ change: (inout [String]) -> Void) throws -> StorageObject {
        try state.withLock { s in
            let live = try liveObject(s, bucket, name)
            var o = live
            change(&o.downloadTokens)
            o.metageneration += 1
            o.updated = now(project)
            try journal(project, ["op": "object", "object": StorageRecord.object(o)])
            s.buckets[bucket]?.objects[name] = o
            notify(
                StorageChange(project: project, bucket: bucket, kind: .metadataUpdated, object: o, previous: live, caller: .admin, time: o.updated))
            return o
        }
    }
}
