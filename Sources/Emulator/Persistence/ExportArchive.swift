import EmulatorAuth
import EmulatorCore
import EmulatorStorage
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// Export folders: `metadata.json` plus `<participant>/<project>.json` (docs/admin-api.md).
/// An export is written to a temporary sibling folder and renamed into place, so a crash
/// mid-export never destroys the previous export; `ExportTarget` decides what may be replaced.
///
/// File names come from project ids only through `fileName(project:)`, which accepts only
/// `ResourceId` project ids (lowercase letters, digits, hyphens: no `/`, `.`, NUL, upper case), so
/// the mapping from project to file is injective and reversible; reading maps names back the same
/// way and refuses any other name.
enum ExportArchive {
    /// Rejects import paths that are empty, contain NUL or a `..` segment.
    static func validate(_ path: String?) throws -> String {
        guard let path, !path.isEmpty else { throw EmulatorError.invalidArgument("'path' must be a non-empty string") }
        guard !path.contains("\0"), !path.split(separator: "/").contains("..") else {
            throw EmulatorError.invalidArgument("'path' must not contain '..' segments or NUL characters")
        }
        return path
    }

    /// The file of `project` inside a participant's folder.
    static func fileName(project: String) throws -> String { try ResourceId.project(project) + ".json" }

    /// The project a file name holds, or nil when the name is not `<project id>.json`.
    static func project(fileName name: String) -> String? {
        guard name.hasSuffix(".json") else { return nil }
        let id = String(name.dropLast(5))
        return ResourceId.isProjectId(id) ? id : nil
    }

    /// True for a name `fileName(project:)` can produce.
    static func isExportFileName(_ name: String) -> Bool { project(fileName: name) != nil }

    /// Checks `raw` as an export target for `participants` (see `ExportTarget`).
    static func target(_ raw: String?, participants: [any PersistentParticipant]) throws -> ExportTarget {
        try ExportTarget.check(raw, participants: participants.map(\.participantName))
    }

    /// Writes `projects` (nil = every project with data) of every participant to `dir`, plus the
    /// Firebase Auth layout (`auth_export/`) for `firebaseAuthProject` when given, and Firebase's
    /// Storage layout (`storage_export/`, the buckets of `projects`) when `storage` is given, both
    /// announced in `firebase-export-metadata.json`. Refuses (and writes nothing) when `dir` may
    /// not be replaced (`ExportTarget`).
    static func write(
        to dir: String, projects: [String]?, participants: [any PersistentParticipant],
        firebaseAuthProject: String? = nil, auth: AuthService? = nil, storage: StorageService? = nil, names: IDGenerator = IDGenerator()
    ) throws {
        let target = try target(dir, participants: participants)
        let fm = FileManager.default
        let tmp = target.path + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        do {
            for p in participants {
                let folder = tmp + "/" + p.participantName
                try fm.createDirectory(atPath: folder, withIntermediateDirectories: true)
                var written = Set<String>()
                for project in projects ?? p.projectsWithData {
                    let name = try fileName(project: project)
                    // Injective by construction; checked anyway, as two projects sharing a file
                    // would be one project overwriting another's data.
                    guard written.insert(name).inserted else { throw EmulatorError.internal("two projects map to the export file \(name)") }
                    try JournalFile.atomicWrite(p.exportProject(project).serializedBytes(pretty: true), to: folder + "/" + name)
                }
            }
            var firebase: UTF8Dictionary<JSON> = ["version": .string(EmulatorVersion.current)]
            if let p = firebaseAuthProject, let auth {
                try FirebaseAuthExport.write(into: tmp, project: p, auth: auth)
                firebase["auth"] = ["version": .string(EmulatorVersion.current), "path": "auth_export"]
            }
            if let storage {
                try FirebaseStorageExport.write(into: tmp, projects: projects, storage: storage, names: names)
                firebase["storage"] = ["version": .string(EmulatorVersion.current), "path": .string(FirebaseStorageExport.folder)]
            }
            if firebase.count > 1 {
                try JournalFile.atomicWrite(JSON.object(firebase).serializedBytes(pretty: true), to: tmp + "/firebase-export-metadata.json")
            }
            JournalFile.syncDirectory(tmp)
            let meta: JSON = [
                "version": 1, "emulator": .string(EmulatorVersion.current), "participants": .array(participants.map { .string($0.participantName) }),
            ]
            try JournalFile.atomicWrite(meta.serializedBytes(pretty: true), to: tmp + "/metadata.json")
        } catch {
            try? fm.removeItem(atPath: tmp)
            if let e = error as? EmulatorError, e.code == .invalidArgument { throw e }
            // A full disk or an I/O error: say so (an INTERNAL message is hidden from callers).
            throw EmulatorError(.unavailable, "export to '\(dir)' failed, nothing was written: \((error as? EmulatorError)?.message ?? "\(error)")")
        }
        try moveIntoPlace(tmp, target, participants: participants.map(\.participantName))
    }

    /// Renames the finished export over `target`. A folder being replaced is moved aside first and
    /// checked again there (it may have changed since `ExportTarget.check`); only then is it deleted.
    static func moveIntoPlace(_ tmp: String, _ target: ExportTarget, participants: [String]) throws {
        let fm = FileManager.default
        let dir = target.path
        let old = dir + ".old-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        if target.replaces {
            guard rename(dir, old) == 0 else {
                let reason = String(cString: strerror(errno))
                try? fm.removeItem(atPath: tmp)
                throw EmulatorError.failedPrecondition("cannot replace '\(dir)': \(reason)")
            }
            if let problem = ExportTarget.foreignContent(old, participants: participants) {
                rename(old, dir)
                try? fm.removeItem(atPath: tmp)
                throw EmulatorError.failedPrecondition(
                    "'\(dir)' changed while the export was written and is not an export of this emulator any more (\(problem)); it was left as it is")
            }
        }
        guard rename(tmp, dir) == 0 else {
            let reason = String(cString: strerror(errno))
            if target.replaces { rename(old, dir) }
            try? fm.removeItem(atPath: tmp)
            throw EmulatorError.failedPrecondition("cannot move the export into '\(dir)': \(reason)")
        }
        JournalFile.syncDirectory(FilePathText.deletingLastComponent(dir))
        if target.replaces { try? fm.removeItem(atPath: old) }
    }

    /// Imports `dir` (only `project` when given). Returns the imported project ids. Every file in
    /// a participant's folder must be `<project id>.json`; any other name refuses the import.
    @discardableResult
    static func read(from dir: String, project only: String?, participants: [any PersistentParticipant]) throws -> [String] {
        let fm = FileManager.default
        guard fm.fileExists(atPath: dir + "/metadata.json") else {
            if fm.fileExists(atPath: dir + "/auth_export/accounts.json") || fm.fileExists(atPath: dir + "/firebase-export-metadata.json") {
                return []  // a Firebase emulator export: only its auth_export is read (by the caller)
            }
            throw EmulatorError.notFound("'\(dir)' is not an emulator export (no metadata.json or firebase-export-metadata.json)")
        }
        var files: [(any PersistentParticipant, String, String)] = []
        for p in participants {
            let folder = dir + "/" + p.participantName
            for name in ((try? fm.contentsOfDirectory(atPath: folder)) ?? []).sorted() where !name.hasPrefix(".") {
                guard let project = project(fileName: name) else {
                    throw EmulatorError.invalidArgument(
                        "export file \(folder)/\(name): the name is not '<project id>.json' (project ids are 1-\(ResourceId.maxProjectLength) characters of lowercase letters, digits and hyphens)"
                    )
                }
                if let only, project != only { continue }
                files.append((p, project, folder + "/" + name))
            }
        }
        var imported = Set<String>()
        for (p, project, file) in files {
            guard let data = fm.contents(atPath: file) else { continue }
            let json: JSON
            do { json = try JSON.parse(Array(data)) } catch {
                throw EmulatorError.invalidArgument("export file \(file) is not valid JSON: \(error)")
            }
            try p.importProject(project, json)
            imported.insert(project)
        }
        return imported.sorted()
    }
}
