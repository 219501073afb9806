import EmulatorCore

/// The journal and snapshot form of Storage's state (`--data-dir`): objects and buckets as JSON
/// that name their blob by id (the bytes stay in the blob store's files). Whole values, so
/// replaying a record twice changes nothing. Times are RFC 3339 text with every digit the clock
/// gave (exact), hashes as Cloud Storage prints them.
///
/// Reading goes through a `BlobResolver`, which turns a blob reference into the one `Blob` for that
/// id (persistence keeps every referenced blob alive while it loads).
enum StorageRecord {
    /// Turns a blob reference (id, size, hashes) into a `Blob`.
    typealias BlobResolver = (_ id: String, _ size: Int64, _ md5: [UInt8], _ crc32c: UInt32) throws -> Blob

    /// A time, exactly.
    static func time(_ t: Timestamp) -> JSON { .string(t.rfc3339()) }

    /// Reads `time(_:)` back.
    static func time(_ j: JSON) throws -> Timestamp {
        guard let s = j.stringValue, let t = Timestamp(rfc3339: s) else {
            throw EmulatorError.invalidArgument("A Storage record holds a time that is not RFC 3339 text: \(j).")
        }
        return t
    }

    /// An object with its blob reference.
    static func object(_ o: StorageObject) -> JSON {
        var m: UTF8Dictionary<JSON> = [:]
        if let v = o.metadata.contentType { m["contentType"] = .string(v) }
        for (name, value) in o.metadata.contentHeaderFields { m[name] = .string(value) }
        if let v = o.metadata.customTime { m["customTime"] = time(v) }
        if !o.metadata.custom.isEmpty { m["custom"] = .object(UTF8Dictionary(o.metadata.custom.mapValues { JSON.string($0) })) }
        if let acl = o.metadata.acl { m["acl"] = acl }
        return [
            "bucket": .string(o.bucket), "name": .string(o.name), "generation": .int(o.generation),
            "metageneration": .int(o.metageneration), "metadata": .object(m),
            "downloadTokens": .array(o.downloadTokens.map { .string($0) }), "storageClass": .string(o.storageClass),
            "timeCreated": time(o.timeCreated), "updated": time(o.updated),
            "blob": [
                "id": .string(o.blob.id), "size": .int(o.blob.size), "md5": .string(Base64.encode(o.blob.md5)),
                "crc32c": .int(Int64(o.blob.crc32c)),
            ],
        ]
    }

    /// Reads `object(_:)` back.
    static func object(_ j: JSON, blobs: BlobResolver) throws -> StorageObject {
        guard let bucket = j["bucket"]?.stringValue, let name = j["name"]?.stringValue, let generation = j["generation"]?.intValue,
            let b = j["blob"], let id = b["id"]?.stringValue, let size = b["size"]?.intValue, size >= 0,
            let md5 = b["md5"]?.stringValue.flatMap(Base64.decode), let crc = b["crc32c"]?.intValue, let crc32c = UInt32(exactly: crc)
        else { throw EmulatorError.invalidArgument("A Storage object record lacks its bucket, name, generation or blob.") }
        let metageneration = j["metageneration"]?.intValue ?? 1
        guard StorageObject.counterRange.contains(generation), StorageObject.counterRange.contains(metageneration) else {
            throw EmulatorError.invalidArgument("The Storage object record of \(name) has a generation or metageneration outside 1..<2^53.")
        }
        let m = j["metadata"] ?? [:]
        var custom: [String: String] = [:]
        for (k, v) in m["custom"]?.objectValue ?? [:] {
            guard let s = v.stringValue else { throw EmulatorError.invalidArgument("Custom metadata '\(k)' of \(name) is not a string.") }
            custom[k] = s
        }
        let metadata = ObjectMetadata(headersFrom: m, customTime: try m["customTime"].map(time), custom: custom, acl: m["acl"])
        return StorageObject(
            bucket: bucket, name: name, generation: generation, metageneration: metageneration, metadata: metadata,
            downloadTokens: (j["downloadTokens"]?.arrayValue ?? []).compactMap(\.stringValue),
            storageClass: j["storageClass"]?.stringValue ?? "STANDARD",
            timeCreated: try time(j["timeCreated"] ?? .null), updated: try time(j["updated"] ?? .null),
            blob: try blobs(id, size, md5, crc32c))
    }

    /// A bucket's own metadata (no objects).
    static func bucket(_ b: StorageBucket) -> JSON {
        [
            "name": .string(b.name), "project": .string(b.project), "timeCreated": time(b.timeCreated),
            "updated": time(b.updated), "metageneration": .int(b.metageneration), "location": .string(b.location),
            "storageClass": .string(b.storageClass),
        ]
    }

    /// Reads `bucket(_:)` back.
    static func bucket(_ j: JSON) throws -> StorageBucket {
        guard let name = j["name"]?.stringValue, let project = j["project"]?.stringValue else {
            throw EmulatorError.invalidArgument("A Storage bucket record lacks its name or project.")
        }
        try StorageNames.validateBucket(name)
        var b = StorageBucket(
            name: name, project: project, timeCreated: try time(j["timeCreated"] ?? .null),
            location: j["location"]?.stringValue ?? "US", storageClass: j["storageClass"]?.stringValue ?? "STANDARD")
        b.updated = try j["updated"].map(time) ?? b.timeCreated
        b.metageneration = j["metageneration"]?.intValue ?? 1
        return b
    }

    /// Buckets with their objects (a project's snapshot, a `replace` entry).
    static func buckets(_ buckets: [String: BucketState]) -> JSON {
        .array(
            buckets.keys.sorted().compactMap { name in
                guard let b = buckets[name] else { return nil }
                var j = bucket(b.bucket)
                if case .object(var o) = j {
                    o["objects"] = .array(b.objects.keys.sorted().compactMap { b.objects[$0].map(object) })
                    j = .object(o)
                }
                return j
            })
    }

    /// Reads `buckets(_:)` back.
    static func buckets(_ j: JSON, blobs: BlobResolver) throws -> [String: BucketState] {
        var out: [String: BucketState] = [:]
        for bj in j.arrayValue ?? [] {
            var state = BucketState(bucket: try bucket(bj))
            for oj in bj["objects"]?.arrayValue ?? [] {
                let o = try object(oj, blobs: blobs)
                state.objects[o.name] = o
            }
            out[state.bucket.name] = state
        }
        return out
    }
}
