#if canImport(Glibc)
import Glibc
#endif
import EmulatorCore
import FoundationEssentials

/// Durable storage in one folder (`--data-dir`): `snapshot.json` plus append-only journals
/// `journal-NNNNNN.log` of checksummed records.
///
/// Every acknowledged write is appended (one `write(2)`) before the request is answered, so a
/// `kill -9` loses nothing that got a 200. Journal entries carry whole resulting documents, so
/// replaying an entry twice is harmless; that makes compaction simple: rotate to a new journal,
/// export a snapshot, then delete the old journals. `fsync` follows `policy` (see
/// docs/admin-api.md). The journal file state is behind a `Mutex`; exports never run under it.
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

    struct FileState {
        var fd: Int32 = -1
        var seq = 0
        var bytes = 0
        var dirty = false
        var closed = false
    }

    /// The folder.
    public let path: String
    let participants: [String: any PersistentParticipant]
    let logger: any LogSink
    let policy: FsyncPolicy
    let compactBytes: Int
    private let file = Mutex(FileState())
    private let compacting = Mutex(false)

    /// Opens (creating) the folder. Call `load()` before serving.
    public init(path: String, participants: [any PersistentParticipant], logger: any LogSink,
                policy: FsyncPolicy = .interval, compactBytes: Int = 64 * 1024 * 1024) throws {
        self.path = path
        self.participants = Dictionary(uniqueKeysWithValues: participants.map { ($0.participantName, $0) })
        self.logger = logger
        self.policy = policy
        self.compactBytes = compactBytes
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw CLIError("cannot use data directory '\(path)': \(Self.reason(error))")
        }
    }

    /// The system's reason for a file-system error (`Not a directory`), else the error itself.
    static func reason(_ error: any Error) -> String {
        if let posix = (error as? CocoaError)?.underlying as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
        return "\(error)"
    }

    var snapshotPath: String { path + "/snapshot.json" }
    func journalPath(_ seq: Int) -> String { path + "/journal-" + String(repeating: "0", count: max(0, 6 - String(seq).count)) + String(seq) + ".log" }

    /// Journal sequence numbers present, ascending.
    func journals() -> [Int] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.compactMap { n in
            guard n.hasPrefix("journal-"), n.hasSuffix(".log") else { return nil }
            return Int(n.dropFirst(8).dropLast(4))
        }.sorted()
    }

    /// Loads the snapshot, replays the journals (dropping a torn tail with a log line), and
    /// starts a fresh journal.
    public func load() throws {
        var next = 0
        if let data = FileManager.default.contents(atPath: snapshotPath) {
            let snap: JSON
            do { snap = try JSON.parse(Array(data)) } catch {
                throw CLIError("data directory '\(path)': snapshot.json is unreadable (\(error)); move it away to start empty")
            }
            next = Int(snap["nextJournal"]?.intValue ?? 0)
            for (name, projects) in snap["data"]?.objectValue ?? [:] {
                guard let p = participants[name] else { continue }
                for (project, export) in projects.objectValue ?? [:] { try p.importProject(project, export) }
            }
        }
        var replayed = 0
        for seq in journals() where seq >= next {
            let jp = journalPath(seq)
            let data = Array(FileManager.default.contents(atPath: jp) ?? Data())
            let (records, valid) = JournalFile.read(data)
            for r in records {
                try apply(try JSON.parse(r))
                replayed += 1
            }
            if valid < data.count {
                logger.log(.warning, "persistence", "\(jp): dropped a torn or corrupt tail of \(data.count - valid) bytes after \(records.count) intact records")
                truncate(jp, off_t(valid))
            }
            next = max(next, seq + 1)
        }
        if replayed > 0 { logger.log(.info, "persistence", "replayed \(replayed) journal records from \(path)") }
        try openJournal(seq: max(next, (journals().last ?? -1) + 1))
        if policy == .interval { startFlusher() }
    }

    func apply(_ record: JSON) throws {
        guard let name = record["p"]?.stringValue, let p = participants[name], let project = record["project"]?.stringValue else { return }
        if record["k"] == "r" {
            if let data = record["data"], !data.isNull { try p.importProject(project, data) } else { p.resetProject(project) }
        } else if let entry = record["entry"] {
            try p.replay(project: project, entry: entry)
        }
    }

    func openJournal(seq: Int) throws {
        let fd = open(journalPath(seq), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CLIError("cannot open journal in '\(path)': \(String(cString: strerror(errno)))") }
        file.withLock { f in
            if f.fd >= 0 { fsync(f.fd); Glibc.close(f.fd) }
            f.fd = fd
            f.seq = seq
            f.bytes = 0
        }
    }

    /// Appends one participant entry (called in commit order, before the write is acknowledged).
    public func append(participant: String, project: String, entry: JSON) {
        write(["k": "e", "p": .string(participant), "project": .string(project), "entry": entry])
    }

    /// Journals the project's whole current data for `participant` (after a reset, restore or import).
    public func appendReplace(participant: String, project: String) {
        guard let p = participants[participant] else { return }
        let data = p.projectsWithData.contains(project) ? p.exportProject(project) : JSON.null
        write(["k": "r", "p": .string(participant), "project": .string(project), "data": data])
    }

    private func write(_ record: JSON) {
        let bytes = JournalFile.record(record.serializedBytes())
        let needsCompaction = file.withLock { f -> Bool in
            guard f.fd >= 0, !f.closed else { return false }
            do { try JournalFile.writeAll(f.fd, bytes) } catch {
                logger.log(.error, "persistence", "\(error)")
                return false
            }
            f.bytes += bytes.count
            if policy == .always { fsync(f.fd) } else { f.dirty = true }
            return f.bytes > compactBytes
        }
        if needsCompaction { compactInBackground() }
    }

    /// Rotates the journal, writes a snapshot of everything, deletes older journals.
    public func compact() throws {
        guard compacting.withLock({ c -> Bool in if c { return false }; c = true; return true }) else { return }
        defer { compacting.withLock { $0 = false } }
        let newSeq = file.withLock { $0.seq } + 1
        try openJournal(seq: newSeq)
        var data: [String: JSON] = [:]
        for (name, p) in participants {
            var projects: [String: JSON] = [:]
            for project in p.projectsWithData { projects[project] = p.exportProject(project) }
            data[name] = .object(projects)
        }
        let snap: JSON = ["version": 1, "nextJournal": .int(Int64(newSeq)), "data": .object(data)]
        try JournalFile.atomicWrite(snap.serializedBytes(), to: snapshotPath)
        for seq in journals() where seq < newSeq { unlink(journalPath(seq)) }
    }

    func compactInBackground() {
        BackgroundThread.detach(name: "compaction") { [self] in
            do { try compact() } catch { logger.log(.error, "persistence", "compaction failed: \(error)") }
        }
    }

    func startFlusher() {
        BackgroundThread.detach(name: "journal-flush") { [self] in
            while true {
                usleep(100_000)
                let stop = file.withLock { f -> Bool in
                    if f.closed { return true }
                    if f.dirty, f.fd >= 0 { fsync(f.fd); f.dirty = false }
                    return false
                }
                if stop { return }
            }
        }
    }

    /// Flushes and closes the journal (clean shutdown).
    public func close() {
        file.withLock { f in
            if f.fd >= 0 { fsync(f.fd); Glibc.close(f.fd) }
            f.fd = -1
            f.closed = true
        }
    }
}
