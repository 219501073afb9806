import EmulatorCore
import EmulatorStorage
import Foundation
import Testing

@testable import Emulator

/// Storage under `--data-dir`: journal, replay, adoption of the files records name, deletion of
/// orphans; and the Firebase `storage_export/` layout of exports.
@Suite struct StoragePersistenceTests {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("storage-datadir-\(UInt64.random(in: 0...UInt64.max))").path
    var blobsDir: String { dir + "/storage/blobs" }
    let bucket = "p.appspot.com"

    /// A Storage service whose changes go through a data directory at `dir`, as `EmulatorServices` wires it.
    func open() throws -> (StorageService, DataDirectory, StorageLoadReport) {
        let blobs = try DiskBlobStore(directory: blobsDir, durable: true)
        let s = StorageService(environments: LocalEnvironmentProvider(), defaultProject: "p", blobs: blobs)
        let d = try DataDirectory(path: dir, participants: [s], logger: NullLogSink(), policy: .never)
        s.beginLoading()
        try d.load()
        let report = s.finishLoading()
        s.setJournal { [weak d] p, e in try d?.append(participant: "storage", project: p, entry: e) }
        return (s, d, report)
    }

    func bytes(_ o: StorageObject) throws -> [UInt8] { try o.blob.open().read(at: 0, count: Int(o.size) + 1) }

    func files() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: blobsDir)) ?? []).sorted() }

    @Test func everyKindOfChangeSurvivesARestart() throws {
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (s, d, _) = try open()
        let x = try s.store(
            bytes: Array("hello".utf8),
            as: .init(bucket: bucket, name: "a/x.txt", metadata: ObjectMetadata(contentType: "text/plain", custom: ["k": "v"]), firebase: true),
            caller: .admin)
        _ = try s.store(bytes: [1, 2, 3], as: .init(bucket: bucket, name: "gone"), caller: .admin)
        _ = try s.copy(from: bucket, "a/x.txt", to: .init(bucket: bucket, name: "copy"), caller: .admin)
        var patch = ObjectMetadataPatch()
        patch.cacheControl = .set("no-store")
        patch.custom = ["k": nil, "k2": "v2"]
        let updated = try s.update(bucket: bucket, name: "a/x.txt", patch: patch, caller: .admin)
        let tokened = try s.createDownloadToken(bucket: bucket, name: "a/x.txt", caller: .admin)
        try s.delete(bucket: bucket, name: "gone", caller: .admin)
        _ = try s.createBucket("extra-bucket", project: "p", location: "eu", storageClass: nil)
        _ = try s.store(bytes: [9], as: .init(bucket: "extra-bucket", name: "e"), caller: .admin)
        _ = try s.createBucket("empty-bucket", project: "p", location: nil, storageClass: nil)
        try s.deleteBucket("empty-bucket")
        d.close()

        let (again, d2, report) = try open()
        defer { d2.close() }
        #expect(report == StorageLoadReport(orphansRemoved: 0, missing: []))
        let o = try again.object(bucket: bucket, name: "a/x.txt", caller: .admin)
        #expect(try bytes(o) == Array("hello".utf8))
        #expect(o.generation == x.generation && o.metageneration == tokened.metageneration)
        #expect(o.metadata == updated.metadata && o.metadata.custom == ["k2": "v2"] && o.metadata.cacheControl == "no-store")
        #expect(o.downloadTokens == tokened.downloadTokens && o.downloadTokens.count == 2)
        #expect(o.md5Base64 == x.md5Base64 && o.crc32cBase64 == x.crc32cBase64 && o.timeCreated == x.timeCreated)
        #expect(try again.object(bucket: bucket, name: "a/x.txt", downloadToken: o.downloadTokens[0]).size == 5)
        #expect(throws: EmulatorError.self) { try again.object(bucket: bucket, name: "gone", caller: .admin) }
        #expect(try bytes(again.object(bucket: bucket, name: "copy", caller: .admin)) == Array("hello".utf8))
        #expect(try again.bucket("extra-bucket").location == "EU")
        #expect(try bytes(again.object(bucket: "extra-bucket", name: "e", caller: .admin)) == [9])
        #expect(throws: EmulatorError.self) { try again.bucket("empty-bucket") }
        #expect(files().count == 2)  // x and its copy share one file; "gone"'s file went with it
        #expect(again.usage.stored == 5 + 5 + 1)
        // New uploads after a restart never reuse a file name.
        let next = try again.store(bytes: [7], as: .init(bucket: bucket, name: "new"), caller: .admin)
        #expect(next.generation > o.generation && files().count == 3)
    }

    @Test func filesNoRecordNamesAreDeletedAtStart() throws {
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (s, d, _) = try open()
        _ = try s.store(bytes: [1], as: .init(bucket: bucket, name: "kept"), caller: .admin)
        d.close()
        // An upload whose record never landed (kill -9 between the file and the append).
        FileManager.default.createFile(atPath: blobsDir + "/stray-1", contents: Data([1, 2, 3]))
        let (again, d2, report) = try open()
        defer { d2.close() }
        #expect(report.orphansRemoved == 1 && report.missing.isEmpty)
        #expect(!files().contains("stray-1") && files().count == 1)
        #expect(try bytes(again.object(bucket: bucket, name: "kept", caller: .admin)) == [1])
    }

    @Test func anObjectWhoseFileIsGoneIsDroppedAndReported() throws {
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (s, d, _) = try open()
        let o = try s.store(bytes: [1, 2], as: .init(bucket: bucket, name: "lost"), caller: .admin)
        d.close()
        try FileManager.default.removeItem(atPath: blobsDir + "/" + o.blob.id)
        let (again, d2, report) = try open()
        defer { d2.close() }
        #expect(report.missing == ["gs://p.appspot.com/lost"])
        #expect(throws: EmulatorError.self) { try again.object(bucket: bucket, name: "lost", caller: .admin) }
        #expect(again.usage.stored == 0)
    }

    @Test func aSnapshotAndTheJournalAfterItReplayTogether() throws {
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (s, d, _) = try open()
        _ = try s.store(bytes: [1], as: .init(bucket: bucket, name: "a"), caller: .admin)
        _ = try s.store(bytes: [2], as: .init(bucket: bucket, name: "b"), caller: .admin)
        try d.compact()
        try s.delete(bucket: bucket, name: "a", caller: .admin)  // its file goes; the snapshot still names it
        _ = try s.store(bytes: [3], as: .init(bucket: bucket, name: "c"), caller: .admin)
        d.close()
        let (again, d2, report) = try open()
        defer { d2.close() }
        #expect(report == StorageLoadReport(orphansRemoved: 0, missing: []))
        #expect(again.bucketSummaries(project: "p").first { $0.name == bucket }?.objects == 2)
        #expect(try bytes(again.object(bucket: bucket, name: "b", caller: .admin)) == [2])
        #expect(files().count == 2)
    }

    @Test func aResetAndARestoreAreJournaled() throws {
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (s, d, _) = try open()
        _ = try s.store(bytes: [1], as: .init(bucket: bucket, name: "a"), caller: .admin)
        let snap = s.captureProject("p")
        try s.resetProject("p")
        _ = try s.store(bytes: [2], as: .init(bucket: bucket, name: "b"), caller: .admin)
        try s.restoreProject("p", from: snap)  // "a" comes back from a file the reset let go of only in memory
        d.close()
        let (again, d2, _) = try open()
        defer { d2.close() }
        #expect(try bytes(again.object(bucket: bucket, name: "a", caller: .admin)) == [1])
        #expect(throws: EmulatorError.self) { try again.object(bucket: bucket, name: "b", caller: .admin) }
        #expect(files().count == 1)
    }

    @Test func aWriteTheJournalRefusesIsNotApplied() throws {
        let blobs = MemoryBlobStore()
        let s = StorageService(environments: LocalEnvironmentProvider(), defaultProject: "p", blobs: blobs)
        _ = try s.store(bytes: [1], as: .init(bucket: bucket, name: "a"), caller: .admin)
        s.setJournal { _, _ in throw EmulatorError(.unavailable, "disk full") }
        let refused: [() throws -> Void] = [
            { _ = try s.store(bytes: [2], as: .init(bucket: self.bucket, name: "b"), caller: .admin) },
            { _ = try s.store(bytes: [2], as: .init(bucket: self.bucket, name: "a"), caller: .admin) },
            { try s.delete(bucket: self.bucket, name: "a", caller: .admin) },
            { _ = try s.update(bucket: self.bucket, name: "a", patch: ObjectMetadataPatch(), caller: .admin) },
            { _ = try s.createDownloadToken(bucket: self.bucket, name: "a", caller: .admin) },
            { _ = try s.copy(from: self.bucket, "a", to: .init(bucket: self.bucket, name: "c"), caller: .admin) },
            { _ = try s.createBucket("new-bucket", project: "p", location: nil, storageClass: nil) },
            { _ = try s.clearBucket(self.bucket) },
            { try s.resetProject("p") },
        ]
        for (i, f) in refused.enumerated() {
            let e = #expect(throws: EmulatorError.self, "\(i)") { try f() }
            #expect(e?.code == .unavailable, "\(i)")
        }
        let a = try s.object(bucket: bucket, name: "a", caller: .admin)
        #expect(a.metageneration == 1 && a.downloadTokens.isEmpty && a.size == 1)
        #expect(s.ensureDownloadToken(a).downloadTokens.isEmpty)  // answered without the token it could not keep
        #expect(s.bucketSummaries(project: "p").map(\.objects) == [1, 0])
        #expect(blobs.count == 1)  // the refused uploads' bytes are gone
    }
}
