import EmulatorAuth
import EmulatorCore
import Foundation

/// The Firebase Auth emulator's export layout, so existing exports load and our exports can be
/// read by Firebase tooling: `firebase-export-metadata.json` and `auth_export/accounts.json`
/// (`{"kind": "identitytoolkit#DownloadAccountResponse", "users": [...]}`) plus
/// `auth_export/config.json`. The layout is single-project: it holds one project's users.
enum FirebaseAuthExport {
    /// Writes `auth_export/` for `project` into the export folder being built.
    static func write(into dir: String, project: String, auth: AuthService) throws {
        var users: [JSON] = []
        var token: String?
        repeat {
            let page = try auth.batchGet(projectId: project, maxResults: 1000, pageToken: token)
            users += page["users"]?.arrayValue ?? []
            token = page["nextPageToken"]?.stringValue
        } while token != nil
        try FileManager.default.createDirectory(atPath: dir + "/auth_export", withIntermediateDirectories: true)
        let accounts: JSON = ["kind": "identitytoolkit#DownloadAccountResponse", "users": .array(users)]
        try JournalFile.atomicWrite(accounts.serializedBytes(pretty: true), to: dir + "/auth_export/accounts.json")
        try JournalFile.atomicWrite(auth.getConfig(projectId: project).serializedBytes(pretty: true), to: dir + "/auth_export/config.json")
        let meta: JSON = ["version": .string(EmulatorVersion.current), "auth": ["version": .string(EmulatorVersion.current), "path": "auth_export"]]
        try JournalFile.atomicWrite(meta.serializedBytes(pretty: true), to: dir + "/firebase-export-metadata.json")
    }

    /// Loads `auth_export/` into `project`. Users with the Firebase emulator's fake hashes
    /// (`fakeHash:salt=…:password=…`) get their password back; other hashes need the algorithm
    /// the export does not record, so those users are imported without a password (and logged).
    @discardableResult
    static func read(from dir: String, project: String, auth: AuthService, logger: any LogSink) async throws -> Bool {
        guard let data = FileManager.default.contents(atPath: dir + "/auth_export/accounts.json") else { return false }
        guard let accounts = try? JSON.parse(Array(data)), case .array(let rows)? = accounts["users"] ?? .array([]) else {
            throw EmulatorError.invalidArgument("\(dir)/auth_export/accounts.json is not a Firebase accounts export")
        }
        auth.resetProject(project)
        if let c = FileManager.default.contents(atPath: dir + "/auth_export/config.json"), case .object(let patch)? = try? JSON.parse(Array(c)) {
            _ = try? auth.updateConfig(projectId: project, patch: patch)
        }
        var passwords: [(String, String)] = []
        var skipped = 0
        let users: [JSON] = rows.map { row in
            guard case .object(var u) = row else { return row }
            if let h = u["passwordHash"]?.stringValue {
                if h.hasPrefix("fakeHash:"), let r = h.range(of: ":password="), let uid = u["localId"]?.stringValue {
                    passwords.append((uid, String(h[r.upperBound...])))
                } else {
                    skipped += 1
                }
                u["passwordHash"] = nil
                u["salt"] = nil
            }
            return .object(u)
        }
        for chunk in stride(from: 0, to: users.count, by: 1000) {
            _ = try auth.batchCreate(projectId: project, body: ["users": .array(Array(users[chunk..<min(users.count, chunk + 1000)]))])
        }
        for (uid, pw) in passwords { _ = try await auth.updateUser(projectId: project, uid: uid, properties: ["password": .string(pw)]) }
        if skipped > 0 { logger.log(.warning, "auth", "imported \(skipped) user(s) from \(dir) without their password: the export does not say how they were hashed") }
        return true
    }
}
