import EmulatorAuth
import EmulatorCore
import FoundationEssentials

/// The Firebase Auth emulator's export layout, so existing exports load and our exports can be
/// read by Firebase tooling: `firebase-export-metadata.json`, `auth_export/accounts.json` (the
/// project's own users) and one `auth_export/accounts-<tenantId>.json` per tenant (each
/// `{"kind": "identitytoolkit#DownloadAccountResponse", "users": [...]}`), plus
/// `auth_export/config.json`. Our addition `auth_export/tenants.json` (`{"tenants": [...]}`, the
/// v2 resources) keeps tenant settings, which the Firebase layout has no place for. The layout is
/// single-project: it holds one project's users.
enum FirebaseAuthExport {
    /// Writes `auth_export/` for `project` into the export folder being built.
    static func write(into dir: String, project: String, auth: AuthService) throws {
        try FileManager.default.createDirectory(atPath: dir + "/auth_export", withIntermediateDirectories: true)
        let tenants = auth.tenants(projectId: project)
        for tenant in [nil] + tenants.map({ Optional($0.id) }) {
            var users: [JSON] = []
            var token: String?
            repeat {
                let page = try auth.batchGet(projectId: project, tenantId: tenant, maxResults: 1000, pageToken: token)
                users += page["users"]?.arrayValue ?? []
                token = page["nextPageToken"]?.stringValue
            } while token != nil
            let accounts: JSON = ["kind": "identitytoolkit#DownloadAccountResponse", "users": .array(users)]
            try JournalFile.atomicWrite(accounts.serializedBytes(pretty: true), to: dir + "/auth_export/" + (try fileName(tenant)))
        }
        if !tenants.isEmpty {
            let list: JSON = ["tenants": .array(tenants.map { $0.config.json(projectId: project, tenantId: $0.id) })]
            try JournalFile.atomicWrite(list.serializedBytes(pretty: true), to: dir + "/auth_export/tenants.json")
        }
        try JournalFile.atomicWrite(auth.getConfig(projectId: project).serializedBytes(pretty: true), to: dir + "/auth_export/config.json")
        // `firebase-export-metadata.json` (naming auth_export and storage_export) is written by `ExportArchive`.
    }

    /// `accounts.json` for the project's users, `accounts-<tenantId>.json` for a tenant's. Tenant
    /// ids reach file names only when they are `isTenantFileId` (ASCII letters, digits, hyphens),
    /// so the mapping is injective and stays inside `auth_export/`.
    static func fileName(_ tenant: String?) throws -> String {
        guard let t = tenant else { return "accounts.json" }
        guard isTenantFileId(t) else {
            throw EmulatorError.invalidArgument(
                "tenant id '\(ResourceId.shown(t))' cannot name an export file (expected 1-100 ASCII letters, digits and hyphens)")
        }
        return "accounts-\(t).json"
    }

    /// True for a tenant id that may appear in an `accounts-<tenantId>.json` name.
    static func isTenantFileId(_ t: String) -> Bool {
        !t.isEmpty && t.utf8.count <= 100
            && t.utf8.allSatisfy { $0 == 0x2D || ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) }
    }

    /// True for a name this layout writes in `auth_export/`.
    static func isOwnFileName(_ name: String) -> Bool {
        if ["accounts.json", "config.json", "tenants.json"].contains(name) { return true }
        guard name.hasPrefix("accounts-"), name.hasSuffix(".json") else { return false }
        return isTenantFileId(String(name.dropFirst("accounts-".count).dropLast(".json".count)))
    }

    /// Loads `auth_export/` into `project`. Users with the Firebase emulator's fake hashes
    /// (`fakeHash:salt=…:password=…`) get their password back; other hashes need the algorithm
    /// the export does not record, so those users are imported without a password (and logged).
    /// Tenants come from `tenants.json` when present; a tenant file without one is created with
    /// everything enabled, as the Firebase emulator creates tenants it meets. TOTP factors cannot
    /// travel in this layout (no secret), so they are dropped (and logged).
    @discardableResult
    static func read(from dir: String, project: String, auth: AuthService, logger: any LogSink) async throws -> Bool {
        let folder = dir + "/auth_export"
        guard FileManager.default.fileExists(atPath: folder + "/accounts.json") else { return false }
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter {
            $0 == "accounts.json" || ($0.hasPrefix("accounts-") && $0.hasSuffix(".json"))
        }.sorted()
        var pools: [(String?, [JSON])] = []
        for f in files {
            guard let data = FileManager.default.contents(atPath: folder + "/" + f), let accounts = try? JSON.parse(Array(data)),
                case .array(let rows)? = accounts["users"] ?? .array([])
            else { throw EmulatorError.invalidArgument("\(folder)/\(f) is not a Firebase accounts export") }
            let tenant = f == "accounts.json" ? nil : String(f.dropFirst("accounts-".count).dropLast(".json".count))
            if let t = tenant, !isTenantFileId(t) {
                throw EmulatorError.invalidArgument("\(folder)/\(f): '\(t)' is not a tenant id")
            }
            pools.append((tenant, rows))
        }
        var settings: [String: TenantConfig] = [:]
        if let data = FileManager.default.contents(atPath: folder + "/tenants.json") {
            guard let list = (try? JSON.parse(Array(data)))?["tenants"]?.arrayValue else {
                throw EmulatorError.invalidArgument("\(folder)/tenants.json is not a tenant list")
            }
            for t in list {
                guard case .object(let o) = t, let name = o["name"]?.stringValue, let id = name.split(separator: "/").last.map(String.init) else {
                    throw EmulatorError.invalidArgument("\(folder)/tenants.json: every tenant needs a name")
                }
                settings[id] = try TenantConfig(json: o)
            }
        }
        try auth.resetProject(project)
        if let c = FileManager.default.contents(atPath: folder + "/config.json"), case .object(let patch)? = try? JSON.parse(Array(c)) {
            _ = try? auth.updateConfig(projectId: project, patch: patch)
        }
        for (id, cfg) in settings.sorted(by: { $0.key < $1.key }) { try auth.ensureTenant(projectId: project, tenantId: id, config: cfg) }
        var passwords: [(String?, String, String)] = []
        var skipped = 0, droppedTotp = 0
        var refused: [String] = []
        for (tenant, rows) in pools {
            if let t = tenant, settings[t] == nil { try auth.ensureTenant(projectId: project, tenantId: t, config: .autoCreated(t)) }
            let users: [JSON] = rows.map { row in
                guard case .object(var u) = row else { return row }
                if let h = u["passwordHash"]?.stringValue {
                    if h.hasPrefix("fakeHash:"), let r = h.firstRange(of: ":password="), let uid = u["localId"]?.stringValue {
                        passwords.append((tenant, uid, String(h[r.upperBound...])))
                    } else {
                        skipped += 1
                    }
                    u["passwordHash"] = nil
                    u["salt"] = nil
                }
                if let factors = u["mfaInfo"]?.arrayValue {
                    let phones = factors.filter { $0["phoneInfo"] != nil }
                    droppedTotp += factors.count - phones.count
                    u["mfaInfo"] = phones.isEmpty ? nil : .array(phones)
                }
                u["tenantId"] = nil
                return .object(u)
            }
            for chunk in stride(from: 0, to: users.count, by: 1000) {
                let r = try auth.batchCreate(
                    projectId: project, tenantId: tenant, body: ["users": .array(Array(users[chunk..<min(users.count, chunk + 1000)]))])
                for e in r["error"]?.arrayValue ?? [] {
                    refused.append(
                        "\((try? fileName(tenant)) ?? "?") row \((e["index"]?.intValue ?? 0) + Int64(chunk)): \(e["message"]?.stringValue ?? "")")
                }
            }
        }
        for (tenant, uid, pw) in passwords where (try? auth.getUser(projectId: project, tenantId: tenant, uid: uid)) != nil {
            _ = try await auth.updateUser(projectId: project, tenantId: tenant, uid: uid, properties: ["password": .string(pw)])
        }
        if skipped > 0 {
            logger.log(
                .warning, "auth", "imported \(skipped) user(s) from \(dir) without their password: the export does not say how they were hashed")
        }
        if droppedTotp > 0 {
            logger.log(
                .warning, "auth", "dropped \(droppedTotp) TOTP second factor(s) from \(dir): the Firebase export layout does not carry TOTP secrets")
        }
        if !refused.isEmpty {
            logger.log(.warning, "auth", "\(refused.count) user(s) in \(dir) were not imported: \(refused.prefix(5).joined(separator: "; "))")
        }
        return true
    }
}
