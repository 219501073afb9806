import EmulatorCore
import EmulatorRules
import EmulatorStore

/// The store's authorization hook backed by Security Rules: converts each access into a rules
/// request, judges it, and denies with PERMISSION_DENIED and the explanation.
struct RulesAuthorizer: StoreAuthorizer {
    let registry: RulesRegistry

    func authorize(_ access: StoreAccess) throws {
        guard let rules = registry.ruleset(for: access.project) else { return }  // open development default
        let decision = rules.evaluate(Self.request(access), data: ReaderSource(reader: access.reader))
        if !decision.allowed {
            registry.logger.log(.debug, "rules", "denied \(access.method.rawValue) \(access.path): \(decision.explanation)")
            throw EmulatorError.permissionDenied("Missing or insufficient permissions. \(decision.explanation)")
        }
    }

    static func request(_ a: StoreAccess) -> RulesRequest {
        let method = RulesMethod(rawValue: a.method.rawValue) ?? .get
        var path = a.path.split(separator: "/").map(String.init)
        var query: RulesQuery?
        if let q = a.query, a.method == .list {
            query = RulesQuery(limit: q.limit, offset: q.offset == 0 ? nil : q.offset, orderBy: q.explicitOrder.map(\.field.description),
                               disjuncts: QueryConstraints.disjuncts(q.filter), collectionGroup: q.from.allDescendants)
            if q.from.allDescendants { path = [q.from.id] }
        }
        return RulesRequest(method: method, database: a.database, path: path, auth: a.caller.auth, time: a.time,
                            resource: RulesValue.fields(a.resource), requestResource: RulesValue.fields(a.requestResource), query: query)
    }
}

/// Rules' `get/exists` and `getAfter/existsAfter` over the store's reader.
struct ReaderSource: RulesDataSource {
    let reader: any StoreReader
    func get(_ path: [String]) -> [String: RulesValue]? { RulesValue.fields(reader.document(at: path.joined(separator: "/"))) }
    func getAfter(_ path: [String]) -> [String: RulesValue]? { RulesValue.fields(reader.documentAfter(at: path.joined(separator: "/"))) }
}
