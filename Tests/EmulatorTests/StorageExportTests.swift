import EmulatorCore
import EmulatorStorage
import Foundation
import Testing

@testable import Emulator

/// Exports carry Storage in Firebase's `storage_export/` layout, and Firebase's exports (current
/// and older layouts) import.
@Suite struct StorageExportTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("storage-export-\(UInt64.random(in: 0...UInt64.max))").path
    let bucket = "p.appspot.com"

    func service() -> StorageService {
        StorageService(environments: LocalEnvironmentProvider(), defaultProject: "p", blobs: MemoryBlobStore())
    }

    func json(_ path: String) throws -> JSON { try JSON.parse(Array(try #require(FileManager.default.contents(atPath: path)))) }

    func bytes(_ o: StorageObject) throws -> [UInt8] { try o.blob.open().read(at: 0, count: Int(o.size) + 1) }

    @Test func anExportHasFirebasesLayoutAndImportsBackUnchanged() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let s = service()
        let o = try s.store(
            bytes: Array("hello".utf8),
            as: .init(
                bucket: bucket, name: "dir/a b.txt",
                metadata: ObjectMetadata(contentType: "text/plain", cacheControl: "no-cache", custom: ["who": "me"]), firebase: true),
            caller: .admin)
        let t = try s.createDownloadToken(bucket: bucket, name: "dir/a b.txt", caller: .admin)
        _ = try s.createBucket("other-bucket", project: "p", location: nil, storageClass: nil)
        _ = try s.store(bytes: [0, 255], as: .init(bucket: "other-bucket", name: "bin"), caller: .admin)
        let out = root + "/export"
        try ExportArchive.write(to: out, projects: nil, participants: [], storage: s, names: IDGenerator(seed: 7))

        let meta = try json(out + "/firebase-export-metadata.json")
        #expect(meta["storage"]?["path"] == "storage_export")
        let buckets = try json(out + "/storage_export/buckets.json")
        #expect(
            Set((buckets["buckets"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue })
                == ["other-bucket", "p.appspot.com", "p.firebasestorage.app"])
        let metaFiles = try FileManager.default.contentsOfDirectory(atPath: out + "/storage_export/metadata").sorted()
        #expect(metaFiles.count == 2 && metaFiles.allSatisfy { FirebaseStorageExport.isDiskName(String($0.dropLast(5))) })
        let records = try metaFiles.map { try json(out + "/storage_export/metadata/" + $0) }
        let m = try #require(records.first { $0["name"] == "dir/a b.txt" })
        #expect(m["bucket"] == "p.appspot.com" && m["contentType"] == "text/plain" && m["cacheControl"] == "no-cache")
        #expect(m["generation"]?.intValue == o.generation && m["metageneration"]?.intValue == t.metageneration && m["size"] == 5)
        #expect(m["md5Hash"]?.stringValue == o.md5Base64 && m["crc32c"]?.stringValue == String(o.blob.crc32c))
        #expect(m["downloadTokens"] == .array(t.downloadTokens.map { .string($0) }) && m["customMetadata"] == ["who": "me"])
        #expect(m["timeCreated"]?.stringValue == o.timeCreated.rfc3339())
        let disk = try #require(metaFiles.first { (try? json(out + "/storage_export/metadata/" + $0))?["name"] == "dir/a b.txt" })
        #expect(FileManager.default.contents(atPath: out + "/storage_export/blobs/" + disk.dropLast(5)) == Data("hello".utf8))

        let fresh = service()
        let projects = try FirebaseStorageExport.read(from: out, project: nil, fallbackProject: "p", storage: fresh, logger: NullLogSink())
        #expect(projects == ["p"])
        let back = try fresh.object(bucket: bucket, name: "dir/a b.txt", caller: .admin)
        #expect(try bytes(back) == Array("hello".utf8))
        #expect(back.generation == o.generation && back.metageneration == t.metageneration && back.downloadTokens == t.downloadTokens)
        #expect(back.metadata == t.metadata && back.timeCreated == o.timeCreated && back.md5Base64 == o.md5Base64)
        #expect(try bytes(fresh.object(bucket: "other-bucket", name: "bin", caller: .admin)) == [0, 255])
        #expect(fresh.project(ofBucket: "other-bucket") == "p")

        // The export may be replaced by the next one; a file someone added inside storage_export may not.
        #expect(try ExportTarget.check(out, participants: []).replaces)
        FileManager.default.createFile(atPath: out + "/storage_export/blobs/notes.txt", contents: Data())
        #expect(throws: EmulatorError.self) { _ = try ExportTarget.check(out, participants: []) }
    }

    @Test func firebaseExportsOfEveryLayoutImport() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let fm = FileManager.default
        let dir = root + "/firebase"
        // Current firebase-tools: flat UUID names, tokens as an array.
        try fm.createDirectory(atPath: dir + "/storage_export/blobs/demo-bucket/img", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: dir + "/storage_export/metadata/demo-bucket/img", withIntermediateDirectories: true)
        try Data(#"{"version":"13.3.0","storage":{"version":"13.3.0","path":"storage_export"}}"#.utf8).write(
            to: URL(fileURLWithPath: dir + "/firebase-export-metadata.json"))
        try Data(#"{"buckets":[{"id":"demo-bucket"},{"id":"p.appspot.com"}]}"#.utf8).write(
            to: URL(fileURLWithPath: dir + "/storage_export/buckets.json"))
        let uuid = "0b6c3c1e-2f8e-4a55-9a3e-9d0f2f6b1c11"
        try Data("new".utf8).write(to: URL(fileURLWithPath: dir + "/storage_export/blobs/" + uuid))
        try Data(
            #"{"name":"a.txt","bucket":"p.appspot.com","generation":1700000000123,"metageneration":3,"contentType":"text/plain","timeCreated":"2023-11-14T22:13:20.123Z","updated":"2023-11-14T22:13:21.000Z","storageClass":"STANDARD","size":3,"md5Hash":"x","crc32c":"1","etag":"e","downloadTokens":["tok-1"],"customMetadata":{"n":1,"s":"v"}}"#
                .utf8
        ).write(to: URL(fileURLWithPath: dir + "/storage_export/metadata/" + uuid + ".json"))
        // Older firebase-tools: blobs/<bucket>/<path>, tokens as a comma-separated string.
        try Data("old".utf8).write(to: URL(fileURLWithPath: dir + "/storage_export/blobs/demo-bucket/img/b%20c.png"))
        try Data(
            #"{"name":"img/b c.png","bucket":"demo-bucket","generation":5,"metageneration":1,"contentType":"image/png","timeCreated":"2021-01-01T00:00:00.000Z","updated":"2021-01-01T00:00:00.000Z","storageClass":"STANDARD","size":3,"md5Hash":"x","crc32c":"1","etag":"e","downloadTokens":"t1,t2","customMetadata":{}}"#
                .utf8
        ).write(to: URL(fileURLWithPath: dir + "/storage_export/metadata/demo-bucket/img/b%20c.png.json"))
        // Metadata without bytes is skipped, as Firebase skips it.
        try Data(#"{"name":"nobytes","bucket":"p.appspot.com"}"#.utf8).write(
            to: URL(fileURLWithPath: dir + "/storage_export/metadata/orphan.json"))

        let s = service()
        _ = try s.store(bytes: [1], as: .init(bucket: bucket, name: "replaced"), caller: .admin)
        let projects = try FirebaseStorageExport.read(from: dir, project: nil, fallbackProject: "p", storage: s, logger: NullLogSink())
        #expect(projects == ["p"])
        let a = try s.object(bucket: bucket, name: "a.txt", caller: .admin)
        #expect(try bytes(a) == Array("new".utf8) && a.generation == 1_700_000_000_123 && a.metageneration == 3)
        #expect(a.downloadTokens == ["tok-1"] && a.metadata.custom == ["n": "1", "s": "v"] && a.contentType == "text/plain")
        #expect(a.timeCreated == Timestamp(milliseconds: 1_700_000_000_123))
        #expect(a.md5Base64 != "x" && a.crc32cBase64 == CRC32C.base64(a.blob.crc32c))  // recomputed from the bytes
        let b = try s.object(bucket: "demo-bucket", name: "img/b c.png", caller: .admin)
        #expect(try bytes(b) == Array("old".utf8) && b.downloadTokens == ["t1", "t2"] && b.contentType == "image/png")
        #expect(s.project(ofBucket: "demo-bucket") == "p")
        #expect(throws: EmulatorError.self) { try s.object(bucket: bucket, name: "replaced", caller: .admin) }
        #expect(throws: EmulatorError.self) { try s.object(bucket: bucket, name: "nobytes", caller: .admin) }
    }

    @Test func anImportReadsNoFileThroughASymbolicLink() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let fm = FileManager.default
        let dir = root + "/linked"
        try fm.createDirectory(atPath: dir + "/storage_export/blobs", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: dir + "/storage_export/metadata", withIntermediateDirectories: true)
        try Data("secret".utf8).write(to: URL(fileURLWithPath: root + "/outside.txt"))
        try fm.createSymbolicLink(atPath: dir + "/storage_export/blobs/x", withDestinationPath: root + "/outside.txt")
        try Data(#"{"name":"x","bucket":"p.appspot.com"}"#.utf8).write(to: URL(fileURLWithPath: dir + "/storage_export/metadata/x.json"))
        let s = service()
        let e = #expect(throws: EmulatorError.self) {
            try FirebaseStorageExport.read(from: dir, project: nil, fallbackProject: "p", storage: s, logger: NullLogSink())
        }
        #expect(e?.message.contains("symbolic link") == true, "\(String(describing: e?.message))")
        #expect(throws: EmulatorError.self) { try s.object(bucket: bucket, name: "x", caller: .admin) }
    }

    /// A counter outside 1..<2^53 in Firebase's metadata is replaced by its default (the creation
    /// time in microseconds, or 1), each on its own: the next write adds one to it.
    @Test func firebaseCountersOutsideTheirRangeFallBackToTheirDefaults() throws {
        let blob = Blob(id: "b", size: 0, md5: [], crc32c: 0, store: MemoryBlobStore())
        func read(_ generation: Int64, _ metageneration: Int64) -> [Int64] {
            let m: JSON = [
                "generation": .int(generation), "metageneration": .int(metageneration), "timeCreated": "2023-11-14T22:13:20.123Z",
            ]
            let o = FirebaseStorageExport.object(m, bucket: bucket, name: "a", blob: blob, now: Timestamp(seconds: 1))
            return [o.generation, o.metageneration]
        }
        #expect(read(5, 2) == [5, 2])
        #expect(read(0, 1 << 53) == [1_700_000_000_123_000, 1])
        #expect(read((1 << 53) - 1, -1) == [(1 << 53) - 1, 1])
    }
}
