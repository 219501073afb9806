import EmulatorCore
import EmulatorStore
import Foundation
import Testing

@testable import Emulator

/// `--data-dir`: write-ahead appends that refuse instead of losing writes, damaged journals that
/// stop the start, and `repair`.
@Suite struct DataDirectoryTests {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("datadir-\(UInt64.random(in: 0...UInt64.max))").path

    /// A store whose writes go through a data directory at `dir`.
    func open() throws -> (StoreService, DataDirectory) {
        let store = StoreService(environments: LocalEnvironmentProvider())
        let d = try DataDirectory(path: dir, participants: [store], logger: NullLogSink(), policy: .never)
        try d.load()
        store.setJournal { [weak d] p, e in try d?.append(participant: "firestore", project: p, entry: e) }
        return (store, d)
    }

    func put(_ s: StoreService, _ path: String) throws {
        _ = try s.commit(
            project: "p1", database: "(default)", writes: [StoreWrite(path: path, operation: .update(["v": .integer(1)]))], caller: .admin)
    }

    func exists(_ s: StoreService, _ path: String) -> Bool {
        (try? s.getDocument(project: "p1", database: "(default)", path: path, caller: .admin)) != nil
    }

    @Test func damageInTheMiddleRefusesToStartAndRepairKeepsTheIntactPrefix() throws {
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (s, d) = try open()
        for i in 0..<10 { try put(s, "c/d\(i)") }
        d.close()
        let journal = dir + "/journal-000000.log"
        var bytes = Array(try #require(FileManager.default.contents(atPath: journal)))
        let offsets = JournalFile.scan(bytes).records.reduce(into: [0]) { o, r in o.append(o.last! + 8 + r.count) }
        bytes[offsets[5] + 12] ^= 0x20
        try Data(bytes).write(to: URL(fileURLWithPath: journal))

        let error = #expect(throws: CLIError.self) { _ = try open() }
        let message = error?.description ?? ""
        #expect(message.contains("journal-000000.log is damaged at offset \(offsets[5])"), "\(message)")
        #expect(message.contains("followed by 4 intact records"), "\(message)")
        #expect(message.contains("emulator repair --data-dir \(dir)"), "\(message)")

        let report = try DataDirectory.repair(path: dir)
        #expect(report.contains("journal-000000.log: kept 5 intact records (\(offsets[5]) bytes)"), "\(report)")
        #expect(report.contains("journal-000000.log.damaged-\(offsets[5])"), "\(report)")
        #expect(FileManager.default.contents(atPath: dir + "/journal-000000.log.damaged-\(offsets[5])") == Data(bytes[offsets[5]...]))

        let (again, d2) = try open()
        #expect((0..<10).filter { exists(again, "c/d\($0)") } == [0, 1, 2, 3, 4])
        d2.close()
        #expect(try DataDirectory.repair(path: dir).hasPrefix("nothing to repair"))
    }

    @Test func aTornTailIsDroppedOnlyAtTheEndOfTheNewestJournal() throws {
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var (s, d) = try open()
        try put(s, "c/first")
        d.close()
        let torn: [UInt8] = [0x40, 0, 0, 0] + Array("garbage".utf8)
        let first = try FileHandle(forWritingTo: URL(fileURLWithPath: dir + "/journal-000000.log"))
        first.seekToEndOfFile()
        first.write(Data(torn))
        first.closeFile()
        (s, d) = try open()  // the newest journal: dropped, and cut off the file
        #expect(exists(s, "c/first"))
        try put(s, "c/second")
        d.close()
        #expect(JournalFile.scan(Array(FileManager.default.contents(atPath: dir + "/journal-000000.log") ?? Data())).damage == nil)

        let older = try FileHandle(forWritingTo: URL(fileURLWithPath: dir + "/journal-000000.log"))
        older.seekToEndOfFile()
        older.write(Data(torn))
        older.closeFile()
        let error = #expect(throws: CLIError.self) { _ = try open() }
        #expect(error?.description.contains("at the end of a journal that is not the newest") == true, "\(String(describing: error))")
    }

    @Test func aFailedAppendRefusesTheWriteAndLeavesTheStoreUnchanged() throws {
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (s, d) = try open()
        try put(s, "c/kept")
        // /dev/full fails every write with ENOSPC (and cannot be truncated): a full disk.
        symlink("/dev/full", dir + "/journal-000009.log")
        try d.openJournal(seq: 9)
        let refused = #expect(throws: EmulatorError.self) { try put(s, "c/lost") }
        #expect(refused?.code == .unavailable)
        #expect(refused?.message.contains("No space left on device") == true, "\(String(describing: refused))")
        #expect(!exists(s, "c/lost") && exists(s, "c/kept"))
        // The failed bytes could not be cut off: every later write is refused until they are.
        let again = #expect(throws: EmulatorError.self) { try put(s, "c/later") }
        #expect(again?.code == .unavailable && again?.message.contains("cannot cut a failed append") == true, "\(String(describing: again))")
        #expect(!exists(s, "c/later"))
        d.close()
    }

    @Test func theFolderHasOneUserAtATime() throws {
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (_, d) = try open()
        let error = #expect(throws: CLIError.self) { _ = try open() }
        #expect(error?.description.contains("in use by another emulator process") == true)
        #expect(throws: CLIError.self) { _ = try DataDirectory.repair(path: dir) }
        d.close()
        let (_, d2) = try open()
        d2.close()
    }

    @Test func compactionNeedsRoomForTheSnapshotPlusHeadroom() {
        #expect(DataDirectory.compactionHeadroom(0) == 1 << 20)
        #expect(DataDirectory.compactionHeadroom(8 << 20) == 2 << 20)
        #expect((DataDirectory.freeBytes("/") ?? -1) >= 0)
        #expect(DataDirectory.freeBytes("/nonexistent-\(UInt64.random(in: 0...UInt64.max))") == nil)
    }
}
