#if canImport(Glibc)
import Glibc
#endif
import EmulatorAuth
import EmulatorCore
import FoundationEssentials

/// Export folders: `metadata.json` plus `firestore/<project>.json` (docs/admin-api.md).
/// An export is written to a temporary sibling folder and renamed into place, so a crash
/// mid-export never destroys the previous export.
enum ExportArchive {
    /// Rejects paths that are empty, contain NUL or a `..` segment.
    static func validate(_ path: String?) throws -> String {
        guard let path, !path.isEmpty else { throw EmulatorError.invalidArgument("'path' must be a non-empty string") }
        guard !path.contains("\0"), !path.split(separator: "/").contains("..") else {
            throw EmulatorError.invalidArgument("'path' must not contain '..' segments or NUL characters")
        }
        return path
    }

    /// Writes `projects` (nil = every project with data) of every participant to `dir`, plus the
    /// Firebase Auth layout (`auth_export/`) for `firebaseAuthProject` when given.
    static func write(to dir: String, projects: [String]?, participants: [any PersistentParticipant],
                      firebaseAuthProject: String? = nil, auth: AuthService? = nil) throws {
        let fm = FileManager.default
        let tmp = dir + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        do {
            for p in participants {
                let folder = tmp + "/" + p.participantName
                try fm.createDirectory(atPath: folder, withIntermediateDirectories: true)
                for project in projects ?? p.projectsWithData {
                    try JournalFile.atomicWrite(p.exportProject(project).serializedBytes(pretty: true), to: folder + "/" + project + ".json")
                }
            }
            if let p = firebaseAuthProject, let auth { try FirebaseAuthExport.write(into: tmp, project: p, auth: auth) }
            let meta: JSON = ["version": 1, "emulator": .string(EmulatorVersion.current), "participants": .array(participants.map { .string($0.participantName) })]
            try JournalFile.atomicWrite(meta.serializedBytes(pretty: true), to: tmp + "/metadata.json")
        } catch {
            try? fm.removeItem(atPath: tmp)
            throw EmulatorError.internal("export to '\(dir)' failed: \(error)")
        }
        let old = dir + ".old-\(getpid())"
        let hadOld = fm.fileExists(atPath: dir)
        if hadOld { guard rename(dir, old) == 0 else { throw EmulatorError.internal("cannot replace '\(dir)': \(String(cString: strerror(errno)))") } }
        guard rename(tmp, dir) == 0 else {
            if hadOld { rename(old, dir) }
            throw EmulatorError.internal("cannot move export into '\(dir)': \(String(cString: strerror(errno)))")
        }
        JournalFile.syncDirectory(FilePathText.deletingLastComponent(dir))
        if hadOld { try? fm.removeItem(atPath: old) }
    }

    /// Imports `dir` (only `project` when given). Returns the imported project ids.
    @discardableResult
    static func read(from dir: String, project only: String?, participants: [any PersistentParticipant]) throws -> [String] {
        let fm = FileManager.default
        guard fm.fileExists(atPath: dir + "/metadata.json") else {
            if fm.fileExists(atPath: dir + "/auth_export/accounts.json") || fm.fileExists(atPath: dir + "/firebase-export-metadata.json") {
                return []  // a Firebase emulator export: only its auth_export is read (by the caller)
            }
            throw EmulatorError.notFound("'\(dir)' is not an emulator export (no metadata.json or firebase-export-metadata.json)")
        }
        var imported = Set<String>()
        for p in participants {
            let folder = dir + "/" + p.participantName
            for name in (try? fm.contentsOfDirectory(atPath: folder)) ?? [] where name.hasSuffix(".json") {
                let project = String(name.dropLast(5))
                if let only, project != only { continue }
                guard let data = fm.contents(atPath: folder + "/" + name) else { continue }
                let json: JSON
                do { json = try JSON.parse(Array(data)) } catch {
                    throw EmulatorError.invalidArgument("export file \(folder)/\(name) is not valid JSON: \(error)")
                }
                try p.importProject(project, json)
                imported.insert(project)
            }
        }
        return imported.sorted()
    }
}
