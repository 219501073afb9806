import EmulatorCore
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// Where an export may be written (`:export`, `--export-on-exit`): a folder that does not exist
/// yet, an empty folder, or a folder that holds a previous export of ours and nothing else. The
/// export replaces the folder, so anything else (a file, someone's source tree, `/`, `.`, a
/// symbolic link) is refused before anything is written, with a message saying why.
///
/// "An export of ours" is recognised by its `metadata.json` (`{"version", "participants"}`) and
/// by every entry being one an export writes (`ownEntries`, and `<project id>.json` files in the
/// participants' folders), so a folder someone added files to is refused too, rather than
/// deleted with them. The check runs again on the folder moved aside, just before it is deleted.
struct ExportTarget {
    /// The folder, as given (without trailing `/`).
    let path: String
    /// True when the folder exists (empty or an export of ours) and the export replaces it.
    let replaces: Bool

    /// What an export writes at its top level, besides one folder per participant.
    static let ownEntries: Set<String> = ["metadata.json", "firebase-export-metadata.json", "auth_export", FirebaseStorageExport.folder]

    /// Checks `raw` (a request's `path`, or `--export-on-exit`) for `participants`.
    static func check(_ raw: String?, participants: [String]) throws -> ExportTarget {
        guard let raw, !raw.isEmpty else { throw EmulatorError.invalidArgument("'path' must be a non-empty string") }
        guard !raw.contains("\0"), !raw.split(separator: "/").contains("..") else {
            throw EmulatorError.invalidArgument("'path' must not contain '..' segments or NUL characters")
        }
        var path = raw
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        let last = FilePathText.lastComponent(path)
        guard path != "/", !last.isEmpty, last != "." else {
            throw EmulatorError.invalidArgument(
                "'\(raw)' names an existing folder (\(path == "/" ? "the root folder" : "the working directory or a parent")), not one for the export to create: give a folder name such as exports/run-1"
            )
        }
        var st = stat()
        guard lstat(path, &st) == 0 else {
            guard errno == ENOENT else {
                throw EmulatorError.failedPrecondition("cannot export to '\(raw)': \(String(cString: strerror(errno)))")
            }
            return ExportTarget(path: path, replaces: false)
        }
        if st.st_mode & S_IFMT == S_IFLNK {
            throw EmulatorError.failedPrecondition(
                "'\(raw)' is a symbolic link: an export replaces the folder it writes, so give the real folder's path or a new one")
        }
        guard st.st_mode & S_IFMT == S_IFDIR else {
            throw EmulatorError.failedPrecondition("'\(raw)' exists and is not a folder: an export would replace it; give a new folder name")
        }
        if let problem = foreignContent(path, participants: participants) {
            throw EmulatorError.failedPrecondition(
                "'\(raw)' is not an export of this emulator (\(problem)): an export replaces its folder, so it only writes a new folder, an empty one, or one holding a previous export and nothing else"
            )
        }
        return ExportTarget(path: path, replaces: true)
    }

    /// Why the folder at `path` is not empty nor a previous export of ours, or nil.
    static func foreignContent(_ path: String, participants: [String]) -> String? {
        let fm = FileManager.default
        guard let entries = try? fm.contentsOfDirectory(atPath: path) else { return "it cannot be listed" }
        if entries.isEmpty { return nil }
        guard let data = fm.contents(atPath: path + "/metadata.json"), let meta = try? JSON.parse(Array(data)),
            meta["version"]?.intValue != nil, meta["participants"]?.arrayValue != nil
        else { return "no metadata.json of ours" }
        let allowed = ownEntries.union(participants).union(meta["participants"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        var foreign = entries.filter { !allowed.contains($0) }
        for p in participants where entries.contains(p) {
            let files = (try? fm.contentsOfDirectory(atPath: path + "/" + p)) ?? []
            foreign += files.filter { !ExportArchive.isExportFileName($0) }.map { p + "/" + $0 }
        }
        if entries.contains("auth_export") {
            let files = (try? fm.contentsOfDirectory(atPath: path + "/auth_export")) ?? []
            foreign += files.filter { !FirebaseAuthExport.isOwnFileName($0) }.map { "auth_export/" + $0 }
        }
        if entries.contains(FirebaseStorageExport.folder) {
            foreign += FirebaseStorageExport.foreignContent(path + "/" + FirebaseStorageExport.folder)
        }
        guard !foreign.isEmpty else { return nil }
        let shown = foreign.sorted().prefix(5).joined(separator: ", ")
        return "it holds files an export does not write: \(shown)\(foreign.count > 5 ? ", …" : "")"
    }
}
