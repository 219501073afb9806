import EmulatorCore

#if canImport(Glibc)
import Glibc
#endif

extension DataDirectory {
    /// Rotates the journal, writes a snapshot of everything, deletes older journals. The snapshot
    /// is serialized first and written only when the file system has room for it plus headroom
    /// (`compactionHeadroom`), so a compaction never takes the space the next appends need; when
    /// it does not fit, the journals stay as they are (nothing is lost) and a warning says so.
    public func compact() throws {
        guard
            compacting.withLock({ c -> Bool in
                if c { return false }
                c = true
                return true
            })
        else { return }
        defer { compacting.withLock { $0 = false } }
        let newSeq = file.withLock { $0.seq } + 1
        try openJournal(seq: newSeq)
        var data: UTF8Dictionary<JSON> = [:]
        for (name, p) in participants {
            var projects: UTF8Dictionary<JSON> = [:]
            for project in p.projectsWithData { projects[project] = p.exportProject(project) }
            data[name] = .object(projects)
        }
        let snap: JSON = ["version": 1, "nextJournal": .int(Int64(newSeq)), "data": .object(data)]
        let bytes = snap.serializedBytes()
        if let free = Self.freeBytes(path), free < bytes.count + Self.compactionHeadroom(bytes.count) {
            logger.log(
                .warning, "persistence",
                "compaction of \(path) skipped: the snapshot needs \(bytes.count) bytes plus \(Self.compactionHeadroom(bytes.count)) of headroom and \(free) are free; the journals are kept (nothing is lost)"
            )
            return
        }
        try JournalFile.atomicWrite(bytes, to: snapshotPath)
        for seq in journals() where seq < newSeq { unlink(journalPath(seq)) }
    }

    /// Room left for appends while a snapshot of `size` bytes is written: 1 MiB plus an eighth.
    static func compactionHeadroom(_ size: Int) -> Int { (1 << 20) + size / 8 }

    /// Bytes an unprivileged process may still write on `path`'s file system (nil when unknown).
    static func freeBytes(_ path: String) -> Int? {
        var s = statvfs()
        guard statvfs(path, &s) == 0 else { return nil }
        let (total, overflow) = Int(s.f_bavail).multipliedReportingOverflow(by: Int(s.f_frsize))
        return overflow ? Int.max : total
    }

    /// Runs `compact` on a background thread (an append noticed the journal passed `compactBytes`).
    func compactInBackground() {
        BackgroundThread.detach(name: "compaction") { [self] in
            do { try compact() } catch { logger.log(.error, "persistence", "compaction failed: \(error)") }
        }
    }
}
