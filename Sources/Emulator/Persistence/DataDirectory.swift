import EmulatorCore
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// Durable storage in one folder (`--data-dir`): `snapshot.json` plus append-only journals
/// `journal-NNNNNN.log` of checksummed records, and a `lock` file one process holds.
///
/// Write-ahead: the store and Auth hand every change to `append` inside their locks, before the
/// change is visible, and `append` throws UNAVAILABLE when the record cannot be written (a full
/// disk, an I/O error, an fsync failure): the service then undoes the change and the request is
/// refused, so a write is acknowledged only once its record is in the file, and a `kill -9` loses
/// nothing that got a 200. A failed append is cut off the file at once (`ftruncate` to the last
/// good record), so damage can only ever be a torn tail after a crash; anything else is refused at
/// start with the `repair` command to run (`DataDirectory+Repair`). Journal entries carry whole
/// resulting documents, so replaying one twice is harmless; that makes compaction simple
/// (`DataDirectory+Compaction`). `fsync` follows `policy` (see docs/admin-api.md).
/// The journal file state is behind a `Mutex`; exports never run under it.
public final class DataDirectory: Sendable {
    /// When appended records are forced to disk.
    public enum FsyncPolicy: String, Sendable {
        /// fsync after every append (slowest; survives power loss).
        case always
        /// fsync at most every 100 ms from a background thread (default).
        case interval
        /// Leave it to the OS (survives process crashes, not power loss).
        case never
    }

    /// The open journal and what is known about it (behind `file`).
    struct FileState {
        /// The journal appends go to (-1: none).
        var fd: Int32 = -1
        /// Its sequence number.
        var seq = 0
        /// Length of the journal up to the end of its last good record.
        var bytes = 0
        /// Appended since the last fsync (`interval` policy).
        var dirty = false
        /// `close()` ran: appends are refused.
        var closed = false
        /// A failed append left bytes after `bytes` that could not be cut off yet.
        var tornAt: Int?
        /// Why the background fsync last failed (the next append retries it, and is refused if it fails again).
        var syncError: String?
        /// The `lock` file, held with `flock` until `close()`.
        var lockFD: Int32 = -1
    }

    /// The folder.
    public let path: String
    let participants: [String: any PersistentParticipant]
    let logger: any LogSink
    let policy: FsyncPolicy
    let compactBytes: Int
    let file = Mutex(FileState())
    let compacting = Mutex(false)

    /// Opens (creating) the folder and takes its lock. Call `load()` before serving.
    public init(
        path: String, participants: [any PersistentParticipant], logger: any LogSink,
        policy: FsyncPolicy = .interval, compactBytes: Int = 64 * 1024 * 1024
    ) throws {
        self.path = path
        self.participants = Dictionary(uniqueKeysWithValues: participants.map { ($0.participantName, $0) })
        self.logger = logger
        self.policy = policy
        self.compactBytes = compactBytes
        let fd = try Self.lock(path)
        file.withLock { $0.lockFD = fd }
    }

    deinit {
        file.withLock { f in
            if f.fd >= 0 { Glibc.close(f.fd) }
            if f.lockFD >= 0 { Glibc.close(f.lockFD) }
        }
    }

    /// Creates the folder and takes `DIR/lock` exclusively, so two processes (an emulator and
    /// `emulator repair`, or two emulators) never write the same journal.
    static func lock(_ path: String) throws -> Int32 {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw CLIError("cannot use data directory '\(path)': \(reason(error))")
        }
        let fd = open(path + "/lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CLIError("cannot use data directory '\(path)': lock: \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            Glibc.close(fd)
            throw CLIError("data directory '\(path)' is in use by another emulator process (it holds \(path)/lock)")
        }
        return fd
    }

    /// The system's reason for a file-system error (`Not a directory`), else the error itself.
    static func reason(_ error: any Error) -> String {
        if let posix = (error as? CocoaError)?.underlying as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
        return "\(error)"
    }

    /// `DIR/snapshot.json`.
    var snapshotPath: String { path + "/snapshot.json" }
    /// `journal-NNNNNN.log`.
    static func journalName(_ seq: Int) -> String { "journal-" + String(repeating: "0", count: max(0, 6 - String(seq).count)) + String(seq) + ".log" }
    /// `DIR/journal-NNNNNN.log`.
    func journalPath(_ seq: Int) -> String { path + "/" + Self.journalName(seq) }

    /// Journal sequence numbers present, ascending.
    func journals() -> [Int] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.compactMap { n in
            guard n.hasPrefix("journal-"), n.hasSuffix(".log") else { return nil }
            return Int(n.dropFirst(8).dropLast(4))
        }.sorted()
    }

    /// The journal sequence the snapshot covers up to (journals before it are compacted away).
    func snapshotNextJournal() throws -> (JSON?, Int) {
        guard let data = FileManager.default.contents(atPath: snapshotPath) else { return (nil, 0) }
        let snap: JSON
        do { snap = try JSON.parse(Array(data)) } catch {
            throw CLIError("data directory '\(path)': snapshot.json is unreadable (\(error)); move it away to start from the journals alone")
        }
        return (snap, Int(snap["nextJournal"]?.intValue ?? 0))
    }

    /// Loads the snapshot, replays the journals, and starts a fresh journal. A torn tail at the
    /// end of the newest journal (a crash mid-append) is dropped with a log line; any other damage
    /// (checksum failures with intact records after them, a torn tail in an older journal) stops
    /// the start with a message naming the file, the offset and `emulator repair`.
    public func load() throws {
        let (snap, next) = try snapshotNextJournal()
        for (name, projects) in snap?["data"]?.objectValue ?? [:] {
            guard let p = participants[name] else { continue }
            for (project, export) in projects.objectValue ?? [:] {
                do { try p.importProject(project, export) } catch {
                    throw CLIError(
                        "data directory '\(path)': snapshot.json: \(name) data of project '\(ResourceId.shown(project))' cannot be loaded: \(error)")
                }
            }
        }
        var replayed = 0
        let seqs = journals().filter { $0 >= next }
        for (index, seq) in seqs.enumerated() {
            let jp = journalPath(seq)
            let data = Array(FileManager.default.contents(atPath: jp) ?? Data())
            let scan = JournalFile.scan(data)
            var offset = 0
            for r in scan.records {
                do { try apply(try JSON.parse(r)) } catch {
                    throw CLIError("data directory '\(path)': \(Self.journalName(seq)): the record at offset \(offset) cannot be replayed: \(error)")
                }
                offset += 8 + r.count
                replayed += 1
            }
            guard let damage = scan.damage else { continue }
            guard damage.isTornTail, index == seqs.count - 1 else {
                throw CLIError(corruptionMessage(seq: seq, scan: scan, newest: index == seqs.count - 1))
            }
            logger.log(
                .warning, "persistence",
                "\(jp): dropped a torn tail (\(damage.reason)) after \(scan.records.count) intact records: a write that was never acknowledged")
            guard truncate(jp, off_t(scan.validLength)) == 0 else {
                throw CLIError("data directory '\(path)': cannot cut the torn tail off \(Self.journalName(seq)): \(String(cString: strerror(errno)))")
            }
        }
        if replayed > 0 { logger.log(.info, "persistence", "replayed \(replayed) journal records from \(path)") }
        try openJournal(seq: max(next, (journals().last ?? -1) + 1))
        if policy == .interval { startFlusher() }
    }

    /// Replays one journal record into its participant.
    func apply(_ record: JSON) throws {
        guard let name = record["p"]?.stringValue, let p = participants[name], let project = record["project"]?.stringValue else { return }
        if record["k"] == "r" {
            // Whole-project replacements written before services journaled their own (older data directories).
            if let data = record["data"], !data.isNull { try p.importProject(project, data) } else { try p.resetProject(project) }
        } else if let entry = record["entry"] {
            try p.replay(project: project, entry: entry)
        }
    }

    /// Makes `journal-<seq>.log` the journal appends go to (closing, after an fsync, the previous one).
    func openJournal(seq: Int) throws {
        let fd = open(journalPath(seq), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CLIError("cannot open journal in '\(path)': \(String(cString: strerror(errno)))") }
        let size = Int(lseek(fd, 0, SEEK_END))
        JournalFile.syncDirectory(path)
        file.withLock { f in
            if f.fd >= 0 {
                fsync(f.fd)
                Glibc.close(f.fd)
            }
            f.fd = fd
            f.seq = seq
            f.bytes = max(0, size)
            f.tornAt = nil
        }
    }

    /// Appends one participant entry, write-ahead (called inside the participant's lock, before
    /// the change is applied). Throws UNAVAILABLE, leaving the journal as it was, when the record
    /// cannot be written or (policy `always`) synced.
    public func append(participant: String, project: String, entry: JSON) throws {
        try write(["k": "e", "p": .string(participant), "project": .string(project), "entry": entry])
    }

    /// UNAVAILABLE for a write the journal could not take.
    func refusal(_ what: String, _ journal: String) -> EmulatorError {
        EmulatorError(
            .unavailable,
            "The write was refused and not applied: \(what) (\(journal)). Nothing changed; free disk space or fix the data directory, then retry.")
    }

    private func write(_ record: JSON) throws {
        let bytes = JournalFile.record(record.serializedBytes())
        let needsCompaction = try file.withLock { f throws(EmulatorError) -> Bool in
            let name = journalPath(f.seq)
            guard f.fd >= 0, !f.closed else { throw refusal("the data directory is closed", path) }
            // A failed append whose bytes could not be cut off yet: cut them now, or refuse (a
            // record appended after them would be unreadable: corruption in the middle).
            if let torn = f.tornAt {
                guard ftruncate(f.fd, off_t(torn)) == 0 else {
                    throw refusal("cannot cut a failed append off the journal: \(String(cString: strerror(errno)))", name)
                }
                f.tornAt = nil
            }
            if let e = f.syncError {
                guard fsync(f.fd) == 0 else { throw refusal("the journal cannot be flushed to disk: \(e)", name) }
                f.syncError = nil
            }
            do throws(JournalFile.SystemError) {
                try JournalFile.writeAll(f.fd, bytes)
                if policy == .always, fsync(f.fd) != 0 { throw JournalFile.SystemError(code: errno, operation: "fsync") }
            } catch {
                if ftruncate(f.fd, off_t(f.bytes)) != 0 { f.tornAt = f.bytes }
                logger.log(.error, "persistence", "refused a write: appending to \(name) failed: \(error.description)")
                throw refusal("appending to the journal failed: \(error.reason)", name)
            }
            f.bytes += bytes.count
            if policy != .always { f.dirty = true }
            return f.bytes > compactBytes
        }
        if needsCompaction { compactInBackground() }
    }

    /// The `interval` policy's background fsync, every 100 ms while something was appended.
    func startFlusher() {
        BackgroundThread.detach(name: "journal-flush") { [self] in
            while true {
                usleep(100_000)
                let stop = file.withLock { f -> Bool in
                    if f.closed { return true }
                    if f.dirty, f.fd >= 0 {
                        f.dirty = false
                        if fsync(f.fd) != 0 {
                            let reason = String(cString: strerror(errno))
                            if f.syncError == nil {
                                logger.log(
                                    .error, "persistence",
                                    "fsync of \(journalPath(f.seq)) failed: \(reason); the next write retries it and is refused while it fails")
                            }
                            f.syncError = reason
                        }
                    }
                    return false
                }
                if stop { return }
            }
        }
    }

    /// Flushes and closes the journal and releases the folder's lock (clean shutdown).
    public func close() {
        file.withLock { f in
            if f.fd >= 0 {
                fsync(f.fd)
                Glibc.close(f.fd)
            }
            if f.lockFD >= 0 { Glibc.close(f.lockFD) }
            f.fd = -1
            f.lockFD = -1
            f.closed = true
        }
    }
}
