import EmulatorCore
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

extension DataDirectory {
    /// Why `load` refuses a damaged journal, with the command that repairs it.
    func corruptionMessage(seq: Int, scan: JournalFile.Scan, newest: Bool) -> String {
        guard let d = scan.damage else { return "" }
        let name = Self.journalName(seq)
        let what =
            d.isTornTail
            ? "\(d.reason) at the end of a journal that is not the newest (later journals follow it)"
            : "\(d.reason), followed by \(d.intactAfter) intact record\(d.intactAfter == 1 ? "" : "s")"
        return
            "data directory '\(path)': \(name) is damaged at offset \(d.offset): \(what). Refusing to start: replaying past the damage would silently drop every later write. "
            + "Run `emulator repair --data-dir \(path)` to keep the \(scan.records.count) intact records before it and move the rest of the file aside to \(name).damaged-\(d.offset)."
    }

    /// `emulator repair --data-dir DIR`: cuts every damaged journal at its last intact record,
    /// after saving the rest of the file beside it (`journal-NNNNNN.log.damaged-OFFSET`), so the
    /// emulator starts again with every write up to the damage. Takes the directory's lock, so it
    /// never runs beside an emulator using the folder. Returns the report to print.
    public static func repair(path: String) throws -> String {
        var st = stat()
        guard stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFDIR else {
            throw CLIError("repair: '\(path)' is not a data directory")
        }
        let dir = try DataDirectory(path: path, participants: [], logger: NullLogSink())
        defer { dir.close() }
        let (_, next) = try dir.snapshotNextJournal()
        var lines: [String] = []
        var intact = 0
        let seqs = dir.journals().filter { $0 >= next }
        for seq in seqs {
            let name = journalName(seq)
            let jp = dir.journalPath(seq)
            let data = Array(FileManager.default.contents(atPath: jp) ?? Data())
            let scan = JournalFile.scan(data)
            intact += scan.records.count
            guard let d = scan.damage else { continue }
            let aside = name + ".damaged-\(d.offset)"
            try JournalFile.atomicWrite(Array(data[d.offset...]), to: path + "/" + aside)
            guard truncate(jp, off_t(d.offset)) == 0 else {
                throw CLIError(
                    "repair: cannot cut \(name) at offset \(d.offset): \(String(cString: strerror(errno))) (the rest is saved in \(aside))")
            }
            let fd = open(jp, O_WRONLY | O_CLOEXEC)
            if fd >= 0 {
                fsync(fd)
                Glibc.close(fd)
            }
            let after =
                d.isTornTail
                ? " (a torn tail: a write that was never acknowledged)"
                : "; it holds \(d.intactAfter) intact record\(d.intactAfter == 1 ? "" : "s") written after the damage, which will not be replayed"
            lines.append(
                "\(name): kept \(scan.records.count) intact records (\(d.offset) bytes); moved \(data.count - d.offset) bytes from offset \(d.offset) (\(d.reason)) to \(aside)\(after)"
            )
        }
        if lines.isEmpty {
            return "nothing to repair in \(path): \(seqs.count) journal\(seqs.count == 1 ? "" : "s"), \(intact) intact records\n"
        }
        return lines.joined(separator: "\n") + "\nrepaired \(path): the emulator starts again with every write before the damage\n"
    }
}
