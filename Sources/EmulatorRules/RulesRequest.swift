import EmulatorCore

/// The access methods rules distinguish.
public enum RulesMethod: String, Sendable, CaseIterable {
    case get, list, create, update, delete

    /// Whether an `allow` listing `m` covers this method (`read` = get+list, `write` = create+update+delete).
    func isGranted(by m: String) -> Bool {
        switch m {
        case "read": return self == .get || self == .list
        case "write": return self == .create || self == .update || self == .delete
        default: return m == rawValue
        }
    }
}

/// A list query, as rules see it: paging values and, per disjunct of its filter, what it says
/// about each field (dotted path → constraint).
public struct RulesQuery: Sendable {
    /// `request.query.limit`.
    public var limit: Int?
    /// `request.query.offset`.
    public var offset: Int?
    /// `request.query.orderBy` field paths.
    public var orderBy: [String]
    /// The filter in disjunctive normal form; one empty disjunct when there is no filter.
    public var disjuncts: [[String: QueryConstraint]]
    /// True for collection-group queries.
    public var collectionGroup: Bool

    /// Creates a query description.
    public init(limit: Int?, offset: Int?, orderBy: [String], disjuncts: [[String: QueryConstraint]], collectionGroup: Bool = false) {
        self.limit = limit
        self.offset = offset
        self.orderBy = orderBy
        self.disjuncts = disjuncts.isEmpty ? [[:]] : disjuncts
        self.collectionGroup = collectionGroup
    }
}

/// The services rules are written for (`service <name> { ... }`).
public enum RulesService {
    /// Cloud Firestore.
    public static let firestore = "cloud.firestore"
    /// Cloud Storage for Firebase.
    public static let storage = "firebase.storage"
}

/// One request to judge: a Firestore document access, or (with `bucket`) a Storage object access.
public struct RulesRequest: Sendable {
    /// Method.
    public var method: RulesMethod
    /// Database id (`(default)`).
    public var database: String
    /// Database-relative path segments: the document (get/create/update/delete) or the collection (list).
    public var path: [String]
    /// `request.auth` (nil = unauthenticated).
    public var auth: AuthContext?
    /// `request.time`.
    public var time: Timestamp
    /// Stored document's fields (`resource.data`), nil when absent.
    public var resource: [String: RulesValue]?
    /// Resulting document's fields (`request.resource.data`) for create/update.
    public var requestResource: [String: RulesValue]?
    /// The query, for list.
    public var query: RulesQuery?
    /// Maximum `get/exists/getAfter/existsAfter` document accesses (10, or 20 for batches).
    public var accessLimit: Int = 10
    /// Storage requests: the bucket. `path` is then the object name's segments (for `list`, the
    /// listed prefix's), matched as `/b/{bucket}/o/{path}`; `resource` and `requestResource` are
    /// the object metadata maps themselves (`resource.size`, not `resource.data`).
    public var bucket: String?

    /// Creates a request.
    public init(
        method: RulesMethod, database: String = "(default)", path: [String], auth: AuthContext?, time: Timestamp,
        resource: [String: RulesValue]? = nil, requestResource: [String: RulesValue]? = nil, query: RulesQuery? = nil
    ) {
        self.method = method
        self.database = database
        self.path = path
        self.auth = auth
        self.time = time
        self.resource = resource
        self.requestResource = requestResource
        self.query = query
    }

    /// A Storage request on `bucket`'s object `path` (segments of the name).
    public static func storage(
        method: RulesMethod, bucket: String, path: [String], auth: AuthContext?, time: Timestamp,
        resource: [String: RulesValue]?, requestResource: [String: RulesValue]?
    ) -> RulesRequest {
        var r = RulesRequest(method: method, path: path, auth: auth, time: time, resource: resource, requestResource: requestResource)
        r.bucket = bucket
        return r
    }
}

/// Documents for `get`/`exists` (as of the request) and `getAfter`/`existsAfter` (after the
/// pending writes). Paths are database-relative segments; results are the documents' fields.
public protocol RulesDataSource: Sendable {
    /// Fields of the document, or nil when it does not exist.
    func get(_ path: [String]) -> [String: RulesValue]?
    /// Fields after the pending writes, or nil.
    func getAfter(_ path: [String]) -> [String: RulesValue]?
}

/// No documents (for `:evaluateRules` without data and for tests).
public struct EmptyDataSource: RulesDataSource {
    /// Creates the source.
    public init() {}
    /// Always nil.
    public func get(_ path: [String]) -> [String: RulesValue]? { nil }
    /// Always nil.
    public func getAfter(_ path: [String]) -> [String: RulesValue]? { nil }
}

/// The outcome of judging a request.
public struct RulesDecision: Sendable {
    /// Whether access is granted.
    public var allowed: Bool
    /// What was tried and why it failed (or which statement granted access).
    public var explanation: String
    /// Lines from `debug()`.
    public var debug: [String]
    /// Where the decision was made: the granting allow statement, or, for a denial, the deciding
    /// sub-expression of each allow statement tried (for request logs that highlight lines).
    public var deciding: [RulesDecidingPoint] = []
}

/// One place in the source that decided a request.
public struct RulesDecidingPoint: Sendable, Equatable {
    /// `allow` (this statement granted access), `deny` (its condition was false) or `error`
    /// (its condition failed with an error).
    public var outcome: String
    /// The allow statement.
    public var statement: SourceLocation
    /// The sub-expression that decided (the statement itself when it granted access).
    public var location: SourceLocation
    /// That sub-expression's source text.
    public var expression: String
}
