import EmulatorCore
import Foundation
import Testing

@testable import EmulatorStorage

/// A service over memory blobs with a frozen, advanceable clock.
func makeService(_ options: StorageOptions = StorageOptions(), blobs: any BlobStore = MemoryBlobStore()) throws
    -> (StorageService, LocalEnvironmentProvider)
{
    let envs = LocalEnvironmentProvider()
    try envs.environment(for: "p").clock.freeze(at: Timestamp(seconds: 1_700_000_000))
    return (StorageService(environments: envs, defaultProject: "p", blobs: blobs, options: options), envs)
}

/// Records every access and every change.
final class Recorder: StorageAuthorizer, StorageObserver, @unchecked Sendable {
    let accesses = Mutex<[String]>([])
    let changes = Mutex<[String]>([])
    let deny = Mutex<Set<StorageAccessMethod>>([])
    func authorize(_ access: StorageAccess) throws {
        accesses.withLock {
            $0.append(
                "\(access.method.rawValue) \(access.bucket)/\(access.path) resource=\(access.resource != nil) request=\(access.requestResource?.size ?? -1)"
            )
        }
        if deny.withLock({ $0.contains(access.method) }) { throw EmulatorError.permissionDenied("denied") }
    }
    func storageChanged(_ change: StorageChange) {
        changes.withLock { $0.append("\(change.kind.rawValue) \(change.bucket)/\(change.object?.name ?? change.previous?.name ?? "")") }
    }
}

let bucket = "p.appspot.com"
let user = Caller.user(AuthContext(uid: "u1", token: [:]))

@Suite struct StorageServiceTests {
    @Test func defaultBucketsExistAndObjectsRoundTripWithHashesAndGenerations() throws {
        let (s, envs) = try makeService()
        #expect(s.buckets(project: "p").map(\.name) == ["p.appspot.com", "p.firebasestorage.app"])
        let o = try s.store(
            bytes: Array("hello world".utf8), as: .init(bucket: bucket, name: "a/b.txt", metadata: ObjectMetadata(contentType: "text/plain")),
            caller: .admin)
        #expect(o.size == 11)
        #expect(o.md5Base64 == "XrY7u+Ae7tCTyyK7j1rNww==")
        #expect(o.crc32cBase64 == "yZRlqg==")
        #expect(o.generation == 1_700_000_000_000_000)
        #expect(o.metageneration == 1)
        #expect(o.downloadTokens.isEmpty)
        // A frozen clock still gives a new generation per write.
        let o2 = try s.store(bytes: [1], as: .init(bucket: bucket, name: "a/b.txt", firebase: true), caller: .admin)
        #expect(o2.generation == o.generation + 1)
        #expect(o2.downloadTokens.count == 1 && o2.downloadTokens[0].count == 36)
        try envs.environment(for: "p").clock.advance(seconds: 10)
        let got = try s.object(bucket: bucket, name: "a/b.txt", caller: .admin)
        #expect(try got.blob.open().read(at: 0, count: 10) == [1])
        #expect(got.timeCreated == Timestamp(seconds: 1_700_000_000))
        #expect(throws: EmulatorError.self) { try s.object(bucket: bucket, name: "nope", caller: .admin) }
        #expect(throws: EmulatorError.self) { try s.object(bucket: "unknown-bucket", name: "x", caller: .admin) }
    }

    @Test func crc32cMatchesTheStandardCheckValue() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
        var c = CRC32C()
        for b in Array("123456789".utf8) { c.update([b]) }
        #expect(c.value == 0xE306_9283)
        #expect(CRC32C.checksum([]) == 0)
    }

    @Test func listingHonoursPrefixDelimiterOffsetsAndPages() throws {
        let (s, _) = try makeService()
        for name in ["a/1", "a/2", "a/b/3", "a/c/4", "b/5", "top", "a/"] {
            _ = try s.store(bytes: [0], as: .init(bucket: bucket, name: name), caller: .admin)
        }
        var q = StorageListQuery()
        q.prefix = "a/"
        q.delimiter = "/"
        let page = try s.list(bucket: bucket, query: q, caller: .admin)
        #expect(page.items.map(\.name) == ["a/", "a/1", "a/2"])
        #expect(page.prefixes == ["a/b/", "a/c/"])
        q = StorageListQuery()
        q.delimiter = "/"
        #expect(try s.list(bucket: bucket, query: q, caller: .admin).prefixes == ["a/", "b/"])
        #expect(try s.list(bucket: bucket, query: q, caller: .admin).items.map(\.name) == ["top"])
        // Pages of two entries (items and prefixes count together) cover everything once.
        q.maxResults = 2
        var seen: [String] = []
        var token: String?
        repeat {
            q.pageToken = token
            let p = try s.list(bucket: bucket, query: q, caller: .admin)
            seen += p.items.map(\.name) + p.prefixes
            token = p.nextPageToken
        } while token != nil
        #expect(seen.sorted() == ["a/", "b/", "top"])
        q = StorageListQuery()
        q.startOffset = "a/2"
        q.endOffset = "b/"
        #expect(try s.list(bucket: bucket, query: q, caller: .admin).items.map(\.name) == ["a/2", "a/b/3", "a/c/4"])
        q = StorageListQuery()
        q.pageToken = "!!"
        #expect(throws: EmulatorError.self) { try s.list(bucket: bucket, query: q, caller: .admin) }
    }

    @Test func preconditionsGuardWritesReadsAndDeletes() throws {
        let (s, _) = try makeService()
        let o = try s.store(bytes: [1], as: .init(bucket: bucket, name: "x", conditions: StorageConditions(ifGenerationMatch: 0)), caller: .admin)
        do {
            _ = try s.store(bytes: [2], as: .init(bucket: bucket, name: "x", conditions: StorageConditions(ifGenerationMatch: 0)), caller: .admin)
            Issue.record("ifGenerationMatch=0 on an existing object must fail")
        } catch let e as EmulatorError {
            #expect(e.status == 412)
        }
        _ = try s.store(
            bytes: [2], as: .init(bucket: bucket, name: "x", conditions: StorageConditions(ifGenerationMatch: o.generation)), caller: .admin)
        do {
            _ = try s.object(bucket: bucket, name: "x", conditions: StorageConditions(ifGenerationNotMatch: o.generation + 1), caller: .admin)
            Issue.record("ifGenerationNotMatch of the live generation must answer 304")
        } catch let e as EmulatorError {
            #expect(e.status == 304)
        }
        #expect(throws: EmulatorError.self) {
            try s.delete(bucket: bucket, name: "x", conditions: StorageConditions(ifMetagenerationMatch: 5), caller: .admin)
        }
        #expect(throws: EmulatorError.self) {
            try s.object(bucket: bucket, name: "x", conditions: StorageConditions(generation: o.generation), caller: .admin)
        }
        try s.delete(bucket: bucket, name: "x", conditions: StorageConditions(ifMetagenerationMatch: 1), caller: .admin)
    }

    @Test func updatesMergeOrReplaceAndBumpTheMetageneration() throws {
        let (s, _) = try makeService()
        _ = try s.store(
            bytes: [1],
            as: .init(
                bucket: bucket, name: "x",
                metadata: ObjectMetadata(contentType: "text/plain", cacheControl: "no-cache", custom: ["a": "1", "b": "2"])), caller: .admin)
        var patch = ObjectMetadataPatch()
        patch.custom = ["a": nil, "c": "3"]
        patch.cacheControl = .remove
        let o = try s.update(bucket: bucket, name: "x", patch: patch, caller: .admin)
        #expect(o.metageneration == 2)
        #expect(o.metadata.custom == ["b": "2", "c": "3"])
        #expect(o.metadata.cacheControl == nil)
        #expect(o.metadata.contentType == "text/plain")
        var replace = ObjectMetadataPatch()
        replace.replace = true
        replace.contentLanguage = .set("en")
        let r = try s.update(bucket: bucket, name: "x", patch: replace, conditions: StorageConditions(ifMetagenerationMatch: 2), caller: .admin)
        #expect(r.metadata == ObjectMetadata(contentLanguage: "en"))
        #expect(r.metageneration == 3)
        var back = ObjectMetadataPatch()
        back.customTime = .set(Timestamp(seconds: 100))
        _ = try s.update(bucket: bucket, name: "x", patch: back, caller: .admin)
        back.customTime = .set(Timestamp(seconds: 50))
        #expect(throws: EmulatorError.self) { try s.update(bucket: bucket, name: "x", patch: back, caller: .admin) }
    }

    @Test func clientOperationsPassTheAuthorizerAndAdminsDoNot() throws {
        let (s, _) = try makeService()
        let r = Recorder()
        s.setAuthorizer(r)
        _ = try s.store(bytes: [1, 2], as: .init(bucket: bucket, name: "x", firebase: true), caller: user)
        _ = try s.store(bytes: [1, 2, 3], as: .init(bucket: bucket, name: "x", firebase: true), caller: user)
        _ = try s.object(bucket: bucket, name: "x", caller: user)
        var q = StorageListQuery()
        q.prefix = "d/"
        _ = try s.list(bucket: bucket, query: q, caller: user)
        _ = try s.update(bucket: bucket, name: "x", patch: ObjectMetadataPatch(), caller: user)
        _ = try s.object(bucket: bucket, name: "x", caller: .admin)
        r.deny.withLock { $0 = [.delete] }
        #expect(throws: EmulatorError.self) { try s.delete(bucket: bucket, name: "x", caller: user) }
        #expect(throws: EmulatorError.self) { try s.delete(bucket: bucket, name: "missing", caller: user) }
        #expect(
            r.accesses.withLock { $0 } == [
                "create p.appspot.com/x resource=false request=2", "update p.appspot.com/x resource=true request=3",
                "get p.appspot.com/x resource=true request=-1", "list p.appspot.com/d/ resource=false request=-1",
                "update p.appspot.com/x resource=true request=3", "delete p.appspot.com/x resource=true request=-1",
                "delete p.appspot.com/missing resource=false request=-1",
            ])
        // Tokens: only administrators manage them; a token read skips the hook.
        #expect(throws: EmulatorError.self) { try s.createDownloadToken(bucket: bucket, name: "x", caller: user) }
        let withTwo = try s.createDownloadToken(bucket: bucket, name: "x", caller: .admin)
        #expect(withTwo.downloadTokens.count == 2)
        _ = try s.object(bucket: bucket, name: "x", downloadToken: withTwo.downloadTokens[1])
        #expect(throws: EmulatorError.self) { try s.object(bucket: bucket, name: "x", downloadToken: "nope") }
        var o = try s.deleteDownloadToken(bucket: bucket, name: "x", token: withTwo.downloadTokens[0], caller: .admin)
        o = try s.deleteDownloadToken(bucket: bucket, name: "x", token: o.downloadTokens[0], caller: .admin)
        #expect(o.downloadTokens.count == 1 && o.downloadTokens[0] != withTwo.downloadTokens[1])
    }

    @Test func theObserverSeesChangesInCommitOrder() throws {
        let (s, _) = try makeService()
        let r = Recorder()
        s.setObserver(r)
        _ = try s.store(bytes: [1], as: .init(bucket: bucket, name: "x"), caller: .admin)
        let o = s.ensureDownloadToken(try s.object(bucket: bucket, name: "x", caller: .admin))
        #expect(o.downloadTokens.count == 1)
        #expect(s.ensureDownloadToken(o).downloadTokens == o.downloadTokens)
        _ = try s.update(bucket: bucket, name: "x", patch: ObjectMetadataPatch(), caller: .admin)
        _ = try s.copy(from: bucket, "x", to: .init(bucket: bucket, name: "y"), caller: .admin)
        try s.delete(bucket: bucket, name: "x", caller: .admin)
        _ = try s.createBucket("other-bucket", project: "p", location: nil, storageClass: nil)
        try s.deleteBucket("other-bucket")
        #expect(
            r.changes.withLock { $0 } == [
                "finalized p.appspot.com/x", "tokensChanged p.appspot.com/x", "metadataUpdated p.appspot.com/x",
                "finalized p.appspot.com/y", "deleted p.appspot.com/x", "bucketCreated other-bucket/", "bucketDeleted other-bucket/",
            ])
    }

    @Test func blobsGoWhenTheLastReferenceGoesAndSnapshotsKeepThem() throws {
        let blobs = MemoryBlobStore()
        let (s, _) = try makeService(blobs: blobs)
        _ = try s.store(bytes: [1], as: .init(bucket: bucket, name: "x"), caller: .admin)
        _ = try s.copy(from: bucket, "x", to: .init(bucket: bucket, name: "y"), caller: .admin)
        #expect(blobs.count == 1)  // a copy shares the bytes
        let snapshot = s.captureProject("p")
        try s.delete(bucket: bucket, name: "x", caller: .admin)
        try s.resetProject("p")
        #expect(throws: EmulatorError.self) { try s.object(bucket: bucket, name: "y", caller: .admin) }
        #expect(blobs.count == 1)  // the snapshot still refers to them
        try s.restoreProject("p", from: snapshot)
        #expect(try s.object(bucket: bucket, name: "x", caller: .admin).size == 1)
        try s.resetAll()
        #expect(s.buckets(project: "p").count == 2)
        #expect(blobs.count == 1)
        _ = consume snapshot
        #expect(blobs.count == 0)
        // An unfinished upload dropped deletes its bytes too.
        do {
            let u = try s.startUpload()
            try u.append([1, 2, 3])
            #expect(blobs.count == 1)
        }
        #expect(blobs.count == 0)
    }

    @Test func limitsRefuseOversizedObjectsAndAFullQuota() throws {
        var options = StorageOptions()
        options.maxObjectBytes = 10
        options.maxTotalBytes = 25
        let (s, _) = try makeService(options)
        do {
            _ = try s.store(bytes: [UInt8](repeating: 0, count: 11), as: .init(bucket: bucket, name: "big"), caller: .admin)
            Issue.record("an 11-byte object must be refused")
        } catch let e as EmulatorError {
            #expect(e.status == 413)
            #expect(e.message.contains("maxObjectBytes"))
        }
        _ = try s.store(bytes: [UInt8](repeating: 0, count: 10), as: .init(bucket: bucket, name: "a"), caller: .admin)
        _ = try s.store(bytes: [UInt8](repeating: 0, count: 10), as: .init(bucket: bucket, name: "b"), caller: .admin)
        do {
            _ = try s.store(bytes: [UInt8](repeating: 0, count: 10), as: .init(bucket: bucket, name: "c"), caller: .admin)
            Issue.record("the quota must refuse a third object")
        } catch let e as EmulatorError {
            #expect(e.status == 429)
            #expect(e.message.contains("maxTotalBytes"))
        }
        #expect(s.usage == (20, 0))
        // Replacing an object frees its old bytes for the quota.
        _ = try s.store(bytes: [UInt8](repeating: 0, count: 5), as: .init(bucket: bucket, name: "a"), caller: .admin)
        _ = try s.store(bytes: [UInt8](repeating: 0, count: 10), as: .init(bucket: bucket, name: "c"), caller: .admin)
        #expect(s.usage == (25, 0))
    }

    @Test func resumableSessionsAppendQueryFinalizeOnceAndCancel() throws {
        let (s, _) = try makeService()
        let r = Recorder()
        s.setObserver(r)
        let id = try s.startSession(
            .init(bucket: bucket, name: "big", metadata: ObjectMetadata(contentType: "video/mp4"), firebase: true), expectedSize: 5, caller: user)
        var (u, status) = try s.checkOutSession(id)
        #expect(status.received == 0)
        #expect(throws: EmulatorError.self) { try s.checkOutSession(id) }  // busy
        try u.append([1, 2, 3])
        s.checkInSession(id, u)
        #expect(try s.sessionStatus(id).received == 3)
        (u, status) = try s.checkOutSession(id)
        try u.append([4, 5])
        let o = try s.finalizeSession(id, u, caller: user)
        #expect(o.size == 5 && o.metadata.contentType == "video/mp4" && o.downloadTokens.count == 1)
        #expect(try s.finalizeSession(id, nil, caller: user).generation == o.generation)
        #expect(try s.sessionStatus(id).object?.generation == o.generation)
        #expect(throws: EmulatorError.self) { try s.cancelSession(id) }
        #expect(r.changes.withLock { $0 } == ["finalized p.appspot.com/big"])
        // A wrong size fails finalize and leaves the session usable.
        let id2 = try s.startSession(.init(bucket: bucket, name: "c"), expectedSize: 2, caller: .admin)
        (u, _) = try s.checkOutSession(id2)
        try u.append([1])
        #expect(throws: EmulatorError.self) { try s.finalizeSession(id2, u, caller: .admin) }
        #expect(try s.sessionStatus(id2).received == 1)
        try s.cancelSession(id2)
        #expect(try s.sessionStatus(id2).cancelled)
        #expect(throws: EmulatorError.self) { try s.checkOutSession(id2) }
        // A failed precondition at finalize is remembered.
        _ = try s.store(bytes: [9], as: .init(bucket: bucket, name: "d"), caller: .admin)
        let id3 = try s.startSession(
            .init(bucket: bucket, name: "e", conditions: StorageConditions(ifGenerationMatch: 0)), expectedSize: nil, caller: .admin)
        _ = try s.store(bytes: [9], as: .init(bucket: bucket, name: "e"), caller: .admin)
        do {
            _ = try s.finalizeSession(id3, nil, caller: .admin)
            Issue.record("must fail")
        } catch let e as EmulatorError { #expect(e.status == 412) }
        do {
            _ = try s.finalizeSession(id3, nil, caller: .admin)
            Issue.record("must fail again")
        } catch let e as EmulatorError { #expect(e.status == 412) }
        try s.resetProject("p")
        #expect(throws: EmulatorError.self) { try s.sessionStatus(id) }
    }

    /// At the session cap a new session takes the place of one idle for a minute (the least
    /// recently used first), never of one in use; before, sessions a client opened and left
    /// refused every other client's uploads until a restart.
    @Test func idleResumableSessionsGiveTheirPlaceAtTheCap() throws {
        var options = StorageOptions()
        options.maxUploadSessions = 3
        let clock = Mutex<UInt64>(1_000_000_000)
        let envs = LocalEnvironmentProvider()
        let s = StorageService(
            environments: envs, defaultProject: "p", blobs: MemoryBlobStore(), options: options, monotonic: { clock.withLock { $0 } })
        let ids = try (0..<3).map { try s.startSession(.init(bucket: bucket, name: "o\($0)"), expectedSize: nil, caller: .admin) }
        do {
            _ = try s.startSession(.init(bucket: bucket, name: "x"), expectedSize: nil, caller: .admin)
            Issue.record("a fourth session must be refused while the others are fresh")
        } catch let e as EmulatorError {
            #expect(e.code == .resourceExhausted && e.message.contains("no request for 60 s"))
        }
        clock.withLock { $0 += 61_000_000_000 }
        let (u, _) = try s.checkOutSession(ids[0])  // in use: never reclaimed
        let fourth = try s.startSession(.init(bucket: bucket, name: "x"), expectedSize: nil, caller: .admin)
        #expect(throws: EmulatorError.self) { try s.sessionStatus(ids[1]) }
        #expect(try s.sessionStatus(ids[2]).received == 0)
        _ = try s.startSession(.init(bucket: bucket, name: "y"), expectedSize: nil, caller: .admin)
        #expect(throws: EmulatorError.self) { try s.sessionStatus(ids[2]) }
        #expect(throws: EmulatorError.self) { try s.startSession(.init(bucket: bucket, name: "z"), expectedSize: nil, caller: .admin) }
        try u.append([1, 2])
        s.checkInSession(ids[0], u)
        #expect(try s.sessionStatus(ids[0]).received == 2 && s.sessionStatus(fourth).received == 0)
    }

    @Test func composeConcatenatesAndCopyKeepsOrReplacesMetadata() throws {
        let (s, _) = try makeService()
        _ = try s.store(
            bytes: Array("ab".utf8), as: .init(bucket: bucket, name: "1", metadata: ObjectMetadata(contentType: "text/plain", custom: ["k": "v"])),
            caller: .admin)
        let two = try s.store(bytes: Array("cd".utf8), as: .init(bucket: bucket, name: "2"), caller: .admin)
        let c = try s.compose(
            [.init(name: "1"), .init(name: "2", ifGenerationMatch: two.generation)], into: .init(bucket: bucket, name: "all"), caller: .admin)
        #expect(try c.blob.open().read(at: 0, count: 10) == Array("abcd".utf8))
        #expect(c.blob.crc32c == CRC32C.checksum(Array("abcd".utf8)))
        #expect(c.metadata.contentType == "text/plain")
        #expect(throws: EmulatorError.self) {
            try s.compose([.init(name: "2", ifGenerationMatch: 1)], into: .init(bucket: bucket, name: "z"), caller: .admin)
        }
        #expect(throws: EmulatorError.self) { try s.compose([], into: .init(bucket: bucket, name: "z"), caller: .admin) }
        let copy = try s.copy(from: bucket, "1", to: .init(bucket: "p.firebasestorage.app", name: "copy"), caller: .admin)
        #expect(copy.metadata.custom == ["k": "v"] && copy.bucket == "p.firebasestorage.app")
        var m = ObjectMetadataPatch()
        m.replace = true
        m.contentType = .set("image/png")
        let replaced = try s.copy(from: bucket, "1", to: .init(bucket: bucket, name: "copy2"), metadata: m, caller: .admin)
        #expect(replaced.metadata == ObjectMetadata(contentType: "image/png"))
    }

    @Test func bucketsAreValidatedCreatedOnceAndDeletedOnlyWhenEmpty() throws {
        let (s, _) = try makeService()
        #expect(throws: EmulatorError.self) { try s.createBucket("Bad_Name", project: "p", location: nil, storageClass: nil) }
        #expect(throws: EmulatorError.self) { try s.createBucket("ab", project: "p", location: nil, storageClass: nil) }
        let b = try s.createBucket("my-bucket", project: "q", location: "eu", storageClass: nil)
        #expect(b.location == "EU" && b.project == "q")
        #expect(throws: EmulatorError.self) { try s.createBucket("my-bucket", project: "p", location: nil, storageClass: nil) }
        _ = try s.store(bytes: [1], as: .init(bucket: "my-bucket", name: "x"), caller: .admin)
        #expect(throws: EmulatorError.self) { try s.deleteBucket("my-bucket") }
        #expect(try s.clearBucket("my-bucket") == 1)
        try s.deleteBucket("my-bucket")
        // Another project's default bucket exists on first mention, owned by it.
        #expect(try s.bucket("other.appspot.com").project == "other")
        // Uploads create unknown buckets for the default project.
        _ = try s.store(bytes: [1], as: .init(bucket: "auto-made", name: "x"), caller: .admin)
        #expect(s.project(ofBucket: "auto-made") == "p")
        #expect(throws: EmulatorError.self) { try s.store(bytes: [1], as: .init(bucket: bucket, name: ""), caller: .admin) }
        #expect(throws: EmulatorError.self) { try s.store(bytes: [1], as: .init(bucket: bucket, name: "a\nb"), caller: .admin) }
    }

    @Test func diskBlobsAreFilesThatGoWithTheirLastReference() throws {
        let store = try DiskBlobStore.temporary()
        defer { store.removeEverything() }
        let (s, _) = try makeService(blobs: store)
        let payload = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let o = try s.store(bytes: payload, as: .init(bucket: bucket, name: "f"), caller: .admin)
        let r = try o.blob.open()
        #expect(try r.read(at: 0, count: 300_000) == payload)
        #expect(try r.read(at: 299_990, count: 100) == Array(payload[299_990...]))
        #expect(DiskBlobStore.fileNames(in: store.directory).count == 1)
        try s.delete(bucket: bucket, name: "f", caller: .admin)
        _ = consume o
        #expect(DiskBlobStore.fileNames(in: store.directory).isEmpty)
    }

    /// Sessions hold no file descriptor between requests: 1,009 sessions that never sent a byte
    /// once used up the process's descriptors, failing every client's uploads and connections.
    @Test func resumableSessionsHoldNoFileDescriptors() throws {
        // Other tests may run meanwhile: the bound is loose, a descriptor per session is 300.
        func openDescriptors() -> Int { DiskBlobStore.fileNames(in: "/proc/self/fd").count }
        let store = try DiskBlobStore.temporary()
        defer { store.removeEverything() }
        let (s, _) = try makeService(blobs: store)
        let before = openDescriptors()
        var ids: [String] = []
        for i in 0..<300 { ids.append(try s.startSession(.init(bucket: bucket, name: "s\(i)"), expectedSize: nil, caller: .admin)) }
        for id in ids.prefix(100) {
            let (upload, _) = try s.checkOutSession(id)
            try upload.append(Array("part one, ".utf8))
            s.checkInSession(id, upload)
        }
        #expect(openDescriptors() - before < 100, "\(openDescriptors() - before) descriptors held by 300 sessions")
        let (upload, _) = try s.checkOutSession(ids[0])
        try upload.append(Array("part two".utf8))
        let o = try s.finalizeSession(ids[0], upload, caller: .admin)
        #expect(try o.blob.open().read(at: 0, count: 100) == Array("part one, part two".utf8))
    }
}

/// A record whose generation is `Int64.max` would trap the next write (generation + 1): refused.
@Test func recordsWithGenerationsOutsideTheCounterRangeAreRefused() throws {
    let (s, _) = try makeService()
    let o = try s.store(bytes: [1], as: .init(bucket: bucket, name: "a.txt", firebase: true), caller: .admin)
    guard case .object(var j) = StorageRecord.object(o) else {
        Issue.record("not an object")
        return
    }
    let resolve: StorageRecord.BlobResolver = { _, _, _, _ in o.blob }
    #expect(try StorageRecord.object(.object(j), blobs: resolve).generation == o.generation)
    for (key, bad) in [("generation", Int64.max), ("metageneration", Int64.max), ("generation", 0), ("metageneration", 1 << 53)] {
        var k = j
        k[key] = .int(bad)
        #expect(throws: EmulatorError.self) { try StorageRecord.object(.object(k), blobs: resolve) }
    }
    j["metageneration"] = .int((1 << 53) - 1)
    #expect(try StorageRecord.object(.object(j), blobs: resolve).metageneration == (1 << 53) - 1)
}
