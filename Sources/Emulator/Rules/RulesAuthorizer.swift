import EmulatorCore
import EmulatorRules
import EmulatorStore

/// The store's authorization hook backed by Security Rules: converts each access into a rules
/// request, judges it, and denies with PERMISSION_DENIED and the explanation. Every access
/// (administrators' too) is recorded in the `RulesEvaluationLog` the UI's Requests page reads.
struct RulesAuthorizer: StoreAuthorizer {
    let registry: RulesRegistry
    let log: RulesEvaluationLog

    func authorize(_ access: StoreAccess) throws {
        guard let rules = registry.ruleset(for: access.project) else {
            log.append(
                Self.record(access, outcome: "allow", explanation: "open development default: no rules are configured, every request is allowed"))
            return
        }
        let decision = rules.evaluate(Self.request(access), data: ReaderSource(reader: access.reader))
        var entry = Self.record(access, outcome: decision.allowed ? "allow" : "deny", explanation: decision.explanation)
        if !decision.allowed && decision.deciding.contains(where: { $0.outcome == "error" }) { entry.outcome = "error" }
        entry.deciding = decision.deciding
        entry.debug = decision.debug
        entry.rulesFile = rules.fileName
        entry.rulesSource = rules.source
        log.append(entry)
        if !decision.allowed {
            registry.logger.log(.debug, "rules", "denied \(access.method.rawValue) \(access.path): \(decision.explanation)")
            throw EmulatorError.permissionDenied("Missing or insufficient permissions. \(decision.explanation)")
        }
    }

    func observeAdmin(_ access: StoreAccess) {
        log.append(
            Self.record(access, outcome: "admin", explanation: "administrator (Bearer owner or a service account): Security Rules are not consulted"))
    }

    /// The log entry of `access` before the rules' verdict is filled in.
    static func record(_ a: StoreAccess, outcome: String, explanation: String) -> RulesEvaluation {
        var kind = "unauthenticated", uid: String?, provider: String?
        switch a.caller {
        case .admin: kind = "admin"
        case .user(let ctx):
            kind = "user"
            uid = ctx.uid
            provider = ctx.token["firebase"]?["sign_in_provider"]?.stringValue
        case .unauthenticated: break
        }
        return RulesEvaluation(
            id: 0, project: a.project, database: a.database, time: a.time, method: a.method.rawValue, path: a.path,
            callerKind: kind, uid: uid, provider: provider, outcome: outcome, explanation: explanation,
            deciding: [], rulesFile: nil, rulesSource: nil, debug: [])
    }

    static func request(_ a: StoreAccess) -> RulesRequest {
        let method = RulesMethod(rawValue: a.method.rawValue) ?? .get
        var path = a.path.split(separator: "/").map(String.init)
        var query: RulesQuery?
        if let q = a.query, a.method == .list {
            query = RulesQuery(
                limit: q.limit, offset: q.offset == 0 ? nil : q.offset, orderBy: q.explicitOrder.map(\.field.description),
                disjuncts: QueryConstraints.disjuncts(q.filter), collectionGroup: q.from.allDescendants)
            if q.from.allDescendants { path = [q.from.id] }
        }
        return RulesRequest(
            method: method, database: a.database, path: path, auth: a.caller.auth, time: a.time,
            resource: RulesValue.fields(a.resource), requestResource: RulesValue.fields(a.requestResource), query: query)
    }
}

/// Rules' `get/exists` and `getAfter/existsAfter` over the store's reader.
struct ReaderSource: RulesDataSource {
    let reader: any StoreReader
    func get(_ path: [String]) -> [String: RulesValue]? { RulesValue.fields(reader.document(at: path.joined(separator: "/"))) }
    func getAfter(_ path: [String]) -> [String: RulesValue]? { RulesValue.fields(reader.documentAfter(at: path.joined(separator: "/"))) }
}
