import EmulatorCore
import EmulatorCrypto
import EmulatorRules

/// The `rules` target: compiles the input as a ruleset and, when it compiles, evaluates every
/// method at a document path and its subcollection against `FixedDataSource`, signed in, plus
/// one unauthenticated read.
public enum RulesTarget {
    /// Runs the target on `data`.
    public static func run(_ data: [UInt8]) {
        let source = String(decoding: data, as: UTF8.self)
        guard case .success(let ruleset) = CompiledRuleset.compile(source: source, hasher: FuzzHasher()) else { return }
        let data = FixedDataSource()
        for path in [["users", "u"], ["users", "u", "tasks", "t"]] {
            for method in RulesMethod.allCases {
                _ = ruleset.evaluate(request(method, path, auth: auth), data: data)
            }
        }
        _ = ruleset.evaluate(request(.get, ["users", "u"], auth: nil), data: data)
    }

    /// A signed-in user with the claims rules usually look at.
    static let auth = AuthContext(
        uid: "u",
        token: [
            "sub": "u", "email": "u@example.com", "email_verified": true, "admin": false,
            "firebase": ["sign_in_provider": "password", "identities": ["email": ["u@example.com"]]],
        ])

    /// A request as the store would build it: the stored document for reads, updates and
    /// deletes, the written one for creates and updates, the query for lists (whose path is the
    /// collection, the document path without its last segment).
    static func request(_ method: RulesMethod, _ path: [String], auth: AuthContext?) -> RulesRequest {
        let doc = FixedDataSource.document
        var written = doc
        written["title"] = .string("new")
        switch method {
        case .list:
            let query = RulesQuery(
                limit: 5, offset: nil, orderBy: ["n"],
                disjuncts: [["userId": .equal(.string("u")), "n": .range(lower: (.int(1), true), upper: nil)]])
            return RulesRequest(method: .list, path: Array(path.dropLast()), auth: auth, time: Timestamp(seconds: 1_800_000_000), query: query)
        case .get, .delete:
            return RulesRequest(method: method, path: path, auth: auth, time: Timestamp(seconds: 1_800_000_000), resource: doc)
        case .create:
            return RulesRequest(method: method, path: path, auth: auth, time: Timestamp(seconds: 1_800_000_000), requestResource: written)
        case .update:
            return RulesRequest(
                method: method, path: path, auth: auth, time: Timestamp(seconds: 1_800_000_000),
                resource: doc, requestResource: written)
        }
    }
}

/// Every path holds the same small document, before and after the pending writes, so that
/// `get()`, `exists()`, `getAfter()` and `existsAfter()` return data rules can dig into.
struct FixedDataSource: RulesDataSource {
    /// One field of each common type, named like the MakeItSo tasks.
    static let document: [String: RulesValue] = [
        "userId": .string("u"), "title": .string("t"), "completed": .bool(false), "n": .int(1), "f": .float(1.5),
        "tags": .list([.string("a"), .int(2)]), "m": .map(["k": .string("v"), "d": .map(["e": .null])]),
        "at": .timestamp(Timestamp(seconds: 1_700_000_000)), "b": .bytes([0, 1, 255]),
        "ref": .path(["databases", "(default)", "documents", "users", "u"]), "geo": .latlng(1, 2),
    ]

    /// The document, for any path.
    func get(_ path: [String]) -> [String: RulesValue]? { Self.document }
    /// The document, for any path.
    func getAfter(_ path: [String]) -> [String: RulesValue]? { Self.document }
}

/// `hashing.md5`/`sha256` through OpenSSL, as the emulator compiles rules.
struct FuzzHasher: RulesHasher {
    /// The digest, or nil for other algorithms.
    func digest(_ algorithm: String, _ bytes: [UInt8]) -> [UInt8]? {
        switch algorithm {
        case "sha256": return Digest.sha256(bytes)
        case "md5": return Digest.md5(bytes)
        default: return nil
        }
    }
}
