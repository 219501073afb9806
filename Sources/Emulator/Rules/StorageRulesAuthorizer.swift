import EmulatorCore
import EmulatorRules
import EmulatorStorage
import EmulatorStore

/// Storage's authorization hook backed by Storage rules (`service firebase.storage`): converts
/// each Firebase API (`/v0`) client access into a rules request, judges it, and denies with 403
/// and the explanation. `firestore.get()`/`exists()` read the project's `(default)` database in
/// process (no Firestore rules apply to them, as in production). Each judged access is recorded
/// in the same `RulesEvaluationLog` as Firestore's, marked `service: storage`; the bucket picks
/// the ruleset (`StorageRulesets`). Administrators
/// and download-token reads never reach it (`StorageService` skips them). Stateless apart from
/// the rulesets and log it shares.
struct StorageRulesAuthorizer: StorageAuthorizer {
    let rulesets: StorageRulesets
    let log: RulesEvaluationLog
    /// Firestore, for `firestore.get()`/`exists()`.
    let store: StoreService

    func authorize(_ access: StorageAccess) throws {
        let rules: CompiledRuleset
        switch rulesets.selection(project: access.project, bucket: access.bucket) {
        case .open:
            log.append(
                Self.record(
                    access, outcome: "allow", explanation: "open development default: no Storage rules are configured, every request is allowed"))
            return
        case .unconfigured(let configured):
            let why =
                "no Storage rules are loaded for bucket '\(access.bucket)': firebase.json's storage rules name only \(configured.map { "'\($0)'" }.joined(separator: ", "))"
            log.append(Self.record(access, outcome: "deny", explanation: why))
            throw EmulatorError.permissionDenied("Permission denied. No \(Self.permission(access.method)) permission. \(why)")
        case .rules(let r): rules = r
        }
        let decision = rules.evaluate(Self.request(access), data: FirestoreSource(store: store, project: access.project))
        var entry = Self.record(access, outcome: decision.allowed ? "allow" : "deny", explanation: decision.explanation)
        if !decision.allowed && decision.deciding.contains(where: { $0.outcome == "error" }) { entry.outcome = "error" }
        entry.deciding = decision.deciding
        entry.debug = decision.debug
        entry.rulesFile = rules.fileName
        entry.rulesSource = rules.source
        log.append(entry)
        if !decision.allowed {
            rulesets.logger.log(.debug, "rules", "storage denied \(access.method.rawValue) \(access.bucket)/\(access.path): \(decision.explanation)")
            throw EmulatorError.permissionDenied("Permission denied. No \(Self.permission(access.method)) permission. \(decision.explanation)")
        }
    }

    /// The word Firebase's Storage errors use (`No READ permission.`, `No WRITE permission.`).
    static func permission(_ m: StorageAccessMethod) -> String {
        switch m {
        case .get, .list: return "READ"
        case .create, .update, .delete: return "WRITE"
        }
    }

    /// The log entry of `access` before the verdict is filled in.
    static func record(_ a: StorageAccess, outcome: String, explanation: String) -> RulesEvaluation {
        var kind = "unauthenticated", uid: String?, provider: String?
        switch a.caller {
        case .admin: kind = "admin"
        case .user(let ctx):
            kind = "user"
            uid = ctx.uid
            provider = ctx.token["firebase"]?["sign_in_provider"]?.stringValue
        case .unauthenticated: break
        }
        var e = RulesEvaluation(
            id: 0, project: a.project, database: a.bucket, time: a.time, method: a.method.rawValue, path: a.path,
            callerKind: kind, uid: uid, provider: provider, outcome: outcome, explanation: explanation,
            deciding: [], rulesFile: nil, rulesSource: nil, debug: [])
        e.service = "storage"
        return e
    }

    /// The rules request of `access`: the object name's segments under `/b/{bucket}/o`.
    static func request(_ a: StorageAccess) -> RulesRequest {
        let method = RulesMethod(rawValue: a.method.rawValue) ?? .get
        let path = a.path.split(separator: "/").map(String.init)
        return .storage(
            method: method, bucket: a.bucket, path: path, auth: a.caller.auth, time: a.time,
            resource: a.resource.map(Self.resource), requestResource: a.requestResource.map(Self.resource))
    }

    /// `resource` / `request.resource` as Storage rules see an object.
    static func resource(_ o: StorageObject) -> [String: RulesValue] {
        var r: [String: RulesValue] = [
            "name": .string(o.name), "bucket": .string(o.bucket), "generation": .int(o.generation),
            "metageneration": .int(o.metageneration), "size": .int(o.size), "timeCreated": .timestamp(o.timeCreated),
            "updated": .timestamp(o.updated), "md5Hash": .string(o.md5Base64), "crc32c": .string(o.crc32cBase64),
            "etag": .string(o.etag), "contentType": .string(o.contentType),
            "contentEncoding": .string(o.metadata.contentEncoding ?? "identity"),
            "metadata": .map(o.metadata.custom.mapValues { .string($0) }),
        ]
        if let v = o.metadata.contentDisposition { r["contentDisposition"] = .string(v) }
        if let v = o.metadata.contentLanguage { r["contentLanguage"] = .string(v) }
        if let v = o.metadata.cacheControl { r["cacheControl"] = .string(v) }
        return r
    }
}

/// `firestore.get()`/`exists()` for Storage rules: the project's `(default)` database, read
/// directly (an unknown database or a malformed path reads as a missing document).
struct FirestoreSource: RulesDataSource {
    let store: StoreService
    let project: String
    func get(_ path: [String]) -> [String: RulesValue]? {
        RulesValue.fields((try? store.peekDocument(project: project, database: "(default)", path: path.joined(separator: "/"))) ?? nil)
    }
    func getAfter(_ path: [String]) -> [String: RulesValue]? { get(path) }
}
