import EmulatorCore
import EmulatorStorage
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// The Firebase Storage emulator's export layout, so Firebase exports with Storage load and our
/// exports can be read by Firebase (firebase-tools `src/emulator/storage/files.ts`, `metadata.ts`):
///
/// - `storage_export/buckets.json`: `{"buckets": [{"id": name}]}` (we add `project`, `location`
///   and `storageClass`, which Firebase ignores);
/// - `storage_export/blobs/<disk name>`: an object's bytes;
/// - `storage_export/metadata/<disk name>.json`: its `StoredFileMetadata` (name, bucket,
///   generation, metageneration, contentType, timeCreated, updated, storageClass, size, md5Hash,
///   crc32c as a decimal string, etag, the content headers, customTime, downloadTokens as an
///   array, customMetadata).
///
/// Times keep every digit the clock gave (Firebase writes milliseconds; JavaScript's `Date` reads
/// both). Disk names are random UUIDs (the project's id generator), as in current firebase-tools; on
/// import the metadata folder is walked and each `<path>.json` takes its bytes from
/// `blobs/<path>`, so older Firebase exports (`blobs/<bucket>/<path>`) load too. Object names
/// and buckets come from the metadata file, never from the path. An import replaces the Storage
/// data of every project that owns a bucket in the export.
enum FirebaseStorageExport {
    /// The folder inside an export.
    static let folder = "storage_export"
    /// The largest object metadata file an import reads (custom metadata is at most 8 KiB).
    static let maxMetadataBytes = 1 << 20

    /// Writes `storage_export/` with the buckets of `projects` (nil: every bucket).
    static func write(into dir: String, projects: [String]?, storage: StorageService, names: IDGenerator) throws {
        let root = dir + "/" + folder
        let fm = FileManager.default
        try fm.createDirectory(atPath: root + "/blobs", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: root + "/metadata", withIntermediateDirectories: true)
        let buckets = storage.bucketStates(projects: projects.map(Set.init))
        let list: JSON = [
            "buckets": .array(
                buckets.map {
                    [
                        "id": .string($0.bucket.name), "project": .string($0.bucket.project), "location": .string($0.bucket.location),
                        "storageClass": .string($0.bucket.storageClass),
                    ]
                })
        ]
        try JournalFile.atomicWrite(list.serializedBytes(pretty: true), to: root + "/buckets.json")
        for b in buckets {
            for name in b.objects.keys.sorted() {
                guard let o = b.objects[name] else { continue }
                let disk = StorageNames.uuid(names)
                try copyBytes(of: o, to: root + "/blobs/" + disk)
                try JournalFile.atomicWrite(metadata(o).serializedBytes(pretty: true), to: root + "/metadata/" + disk + ".json")
            }
        }
    }

    /// Firebase's `StoredFileMetadata` JSON for an object (plus `acl`, ours, when set).
    static func metadata(_ o: StorageObject) -> JSON {
        var m: UTF8Dictionary<JSON> = [
            "name": .string(o.name), "bucket": .string(o.bucket), "generation": .int(o.generation), "metageneration": .int(o.metageneration),
            "contentType": .string(o.contentType), "timeCreated": .string(o.timeCreated.rfc3339()),
            "updated": .string(o.updated.rfc3339()), "storageClass": .string(o.storageClass), "size": .int(o.size),
            "md5Hash": .string(o.md5Base64), "crc32c": .string(String(o.blob.crc32c)), "etag": .string(o.etag),
            "downloadTokens": .array(o.downloadTokens.map { .string($0) }),
        ]
        for (name, value) in o.metadata.contentHeaderFields { m[name] = .string(value) }
        if let v = o.metadata.customTime { m["customTime"] = .string(v.rfc3339()) }
        if !o.metadata.custom.isEmpty { m["customMetadata"] = .object(UTF8Dictionary(o.metadata.custom.mapValues { JSON.string($0) })) }
        if let acl = o.metadata.acl { m["acl"] = acl }
        return .object(m)
    }

    /// Copies an object's bytes into a new file (fsynced before the export is moved into place).
    static func copyBytes(of o: StorageObject, to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw EmulatorError.internal("cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { Glibc.close(fd) }
        do {
            let source = try o.blob.open()
            var offset: Int64 = 0
            while offset < o.size {
                let chunk = try source.read(at: offset, count: 1 << 20)
                if chunk.isEmpty { break }
                try JournalFile.writeAll(fd, chunk)
                offset += Int64(chunk.count)
            }
        } catch let e as StorageIOError {
            throw EmulatorError.internal("cannot export gs://\(o.bucket)/\(o.name): \(e.description)")
        } catch let e as JournalFile.SystemError {
            throw EmulatorError.internal("cannot write \(path): \(e.description)")
        }
        guard fsync(fd) == 0 else { throw EmulatorError.internal("cannot flush \(path): \(String(cString: strerror(errno)))") }
    }

    /// The `storage_export` folder an export names (`firebase-export-metadata.json`'s
    /// `storage.path`, else the default), or nil when it has none.
    static func folder(in dir: String) -> String? {
        var name = folder
        if let data = FileManager.default.contents(atPath: dir + "/firebase-export-metadata.json"),
            let meta = try? JSON.parse(Array(data)), let p = meta["storage"]?["path"]?.stringValue,
            !p.isEmpty, !p.hasPrefix("/"), !p.contains("\0"), !p.split(separator: "/").contains("..")
        {
            name = p
        }
        let path = dir + "/" + name
        var st = stat()
        guard lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFDIR else { return nil }
        return path
    }

    /// Loads `storage_export/` (only the buckets of `only` when given). Buckets belong to the
    /// project recorded in `buckets.json`, else the project of a default bucket name, else
    /// `fallbackProject`. Returns the projects whose Storage data was replaced.
    @discardableResult
    static func read(from dir: String, project only: String?, fallbackProject: String, storage: StorageService, logger: any LogSink) throws
        -> [String]
    {
        guard let root = folder(in: dir) else { return [] }
        var owners: [String: String] = [:]
        var buckets: [String: BucketState] = [:]
        func owner(_ bucket: String, recorded: String? = nil) -> String {
            if let o = owners[bucket] { return o }
            let o = recorded.flatMap { ResourceId.isProjectId($0) ? $0 : nil } ?? StorageBucket.defaultProject(of: bucket) ?? fallbackProject
            owners[bucket] = o
            return o
        }
        func ensure(_ name: String, _ project: String, location: String? = nil, storageClass: String? = nil) throws {
            guard buckets[name] == nil else { return }
            try StorageNames.validateBucket(name)
            buckets[name] = BucketState(
                bucket: StorageBucket(
                    name: name, project: project, timeCreated: storage.now(project), location: location ?? "US",
                    storageClass: storageClass ?? "STANDARD"
                ))
        }
        if let data = FileManager.default.contents(atPath: root + "/buckets.json") {
            let list: JSON
            do { list = try JSON.parse(Array(data)) } catch {
                throw EmulatorError.invalidArgument("\(root)/buckets.json is not valid JSON: \(error)")
            }
            for b in list["buckets"]?.arrayValue ?? [] {
                guard let id = b["id"]?.stringValue else { throw EmulatorError.invalidArgument("\(root)/buckets.json: a bucket has no 'id'") }
                try ensure(
                    id, owner(id, recorded: b["project"]?.stringValue), location: b["location"]?.stringValue,
                    storageClass: b["storageClass"]?.stringValue)
            }
        }
        var skipped = 0
        for rel in metadataFiles(root + "/metadata") {
            let metaPath = root + "/metadata/" + rel
            let blobPath = root + "/blobs/" + String(rel.dropLast(5))
            var st = stat()
            guard lstat(metaPath, &st) == 0 else { continue }
            guard st.st_size <= maxMetadataBytes else {
                throw EmulatorError.invalidArgument("\(metaPath) is \(st.st_size) bytes; object metadata files are at most \(maxMetadataBytes)")
            }
            guard let data = FileManager.default.contents(atPath: metaPath) else { continue }
            let meta: JSON
            do { meta = try JSON.parse(Array(data)) } catch { throw EmulatorError.invalidArgument("\(metaPath) is not valid JSON: \(error)") }
            guard let bucket = meta["bucket"]?.stringValue, let name = meta["name"]?.stringValue else {
                throw EmulatorError.invalidArgument("\(metaPath): the metadata has no 'bucket' or 'name'")
            }
            try StorageNames.validateObject(name)
            let project = owner(bucket)
            if let only, project != only { continue }
            guard FileManager.default.fileExists(atPath: blobPath) else {
                logger.log(.warning, "storage", "import: \(metaPath) has no bytes at \(blobPath); gs://\(bucket)/\(name) skipped")
                skipped += 1
                continue
            }
            try ensure(bucket, project)
            let blob = try copyIn(blobPath, storage: storage)
            buckets[bucket]?.objects[name] = object(meta, bucket: bucket, name: name, blob: blob, now: storage.now(project))
        }
        var byProject: [String: [String: BucketState]] = [:]
        for (name, b) in buckets where only == nil || b.bucket.project == only {
            byProject[b.bucket.project, default: [:]][name] = b
        }
        for (project, projectBuckets) in byProject.sorted(by: { $0.key < $1.key }) {
            try ResourceId.project(project)
            try storage.replaceProject(project, with: projectBuckets)
        }
        if skipped > 0 { logger.log(.warning, "storage", "import from \(root): \(skipped) object(s) without bytes were skipped") }
        return byProject.keys.sorted()
    }

    /// Relative paths of the `.json` files under `dir` (sorted; symbolic links and anything
    /// deeper than 64 folders are not followed).
    static func metadataFiles(_ dir: String) -> [String] {
        var out: [String] = []
        func walk(_ rel: String, depth: Int) {
            guard depth < 64 else { return }
            let path = rel.isEmpty ? dir : dir + "/" + rel
            for name in ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() {
                let child = rel.isEmpty ? name : rel + "/" + name
                var st = stat()
                guard lstat(dir + "/" + child, &st) == 0 else { continue }
                if st.st_mode & S_IFMT == S_IFDIR {
                    walk(child, depth: depth + 1)
                } else if st.st_mode & S_IFMT == S_IFREG, name.hasSuffix(".json"), name.count > 5 {
                    out.append(child)
                }
            }
        }
        walk("", depth: 0)
        return out
    }

    /// Copies a regular file into the blob store (hashing it on the way); a symbolic link is refused.
    static func copyIn(_ path: String, storage: StorageService) throws -> Blob {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else {
            let reason = errno == ELOOP ? "it is a symbolic link (an import reads only the export's own files)" : String(cString: strerror(errno))
            throw EmulatorError.invalidArgument("cannot read \(path): \(reason)")
        }
        defer { Glibc.close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
            throw EmulatorError.invalidArgument("cannot read \(path): it is not a regular file")
        }
        do {
            let writer = try BlobWriter(store: storage.blobs)
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            while true {
                let n = buffer.withUnsafeMutableBytes { p in Glibc.read(fd, p.baseAddress, p.count) }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw EmulatorError.invalidArgument("cannot read \(path): \(String(cString: strerror(errno)))")
                }
                if n == 0 { break }
                try writer.append(Array(buffer[0..<n]))
            }
            return try writer.finish()
        } catch let e as StorageIOError {
            throw EmulatorError(.unavailable, "cannot store \(path): \(e.description)")
        }
    }

    /// An object from Firebase's metadata JSON (tokens as an array or a comma-separated string,
    /// or in `customMetadata.firebaseStorageDownloadTokens`; hashes are recomputed from the bytes);
    /// `now` (the project's clock) stands in for a missing `timeCreated`.
    static func object(_ m: JSON, bucket: String, name: String, blob: Blob, now: Timestamp) -> StorageObject {
        func time(_ key: String) -> Timestamp? { m[key]?.stringValue.flatMap { Timestamp(rfc3339: $0) } }
        var custom: [String: String] = [:]
        for (k, v) in m["customMetadata"]?.objectValue ?? [:] {
            switch v {
            case .string(let s): custom[k] = s
            case .null: continue
            default: custom[k] = String(decoding: v.serializedBytes(), as: UTF8.self)  // Firebase stringifies non-strings
            }
        }
        var tokens: [String]
        switch m["downloadTokens"] {
        case .array(let a)?: tokens = a.compactMap(\.stringValue)
        case .string(let s)?: tokens = s.split(separator: ",").map(String.init)
        default: tokens = []
        }
        if let t = custom.removeValue(forKey: "firebaseStorageDownloadTokens") {
            for token in t.split(separator: ",").map(String.init) where !tokens.contains(token) { tokens.append(token) }
        }
        let created = time("timeCreated") ?? now
        let metadata = ObjectMetadata(headersFrom: m, customTime: time("customTime"), custom: custom, acl: m["acl"])
        // Counters outside 1..<2^53 are not kept: the next write adds one to them.
        func counter(_ key: String) -> Int64? { m[key]?.intValue.flatMap { StorageObject.counterRange.contains($0) ? $0 : nil } }
        let generation = counter("generation") ?? max(1, created.microseconds)
        let metageneration = counter("metageneration") ?? 1
        return StorageObject(
            bucket: bucket, name: name, generation: generation,
            metageneration: metageneration, metadata: metadata, downloadTokens: tokens,
            storageClass: m["storageClass"]?.stringValue ?? "STANDARD", timeCreated: created, updated: time("updated") ?? created, blob: blob)
    }

    /// True for a name this layout writes at the top of `storage_export/`.
    static func isOwnTopEntry(_ name: String) -> Bool { ["buckets.json", "blobs", "metadata"].contains(name) }

    /// True for a disk name this layout writes (a lowercase UUID).
    static func isDiskName(_ name: String) -> Bool {
        let b = Array(name.utf8)
        guard b.count == 36 else { return false }
        for (i, c) in b.enumerated() {
            if [8, 13, 18, 23].contains(i) {
                guard c == 45 else { return false }
            } else if !((c >= 48 && c <= 57) || (c >= 97 && c <= 102)) {
                return false
            }
        }
        return true
    }

    /// Why `storage_export/` inside a previous export holds something an export does not write, or nil.
    static func foreignContent(_ root: String) -> [String] {
        let fm = FileManager.default
        var foreign: [String] = []
        for e in (try? fm.contentsOfDirectory(atPath: root)) ?? [] where !isOwnTopEntry(e) { foreign.append(folder + "/" + e) }
        for e in (try? fm.contentsOfDirectory(atPath: root + "/blobs")) ?? [] where !isDiskName(e) { foreign.append(folder + "/blobs/" + e) }
        for e in (try? fm.contentsOfDirectory(atPath: root + "/metadata")) ?? []
        where !(e.hasSuffix(".json") && isDiskName(String(e.dropLast(5)))) {
            foreign.append(folder + "/metadata/" + e)
        }
        return foreign
    }
}
