import EmulatorCore
import EmulatorHTTP

/// Admin access from a worker to the emulator, over its REST APIs with `Bearer owner`
/// (the same calls an Admin SDK makes). Token verification is done by the emulator, on its
/// clock, as an Admin SDK verifies against it (signatures when `auth.signIdTokens` is on),
/// with expiry, revocation and disabled checks.
public struct WorkerAdmin: Sendable {
    /// Emulator host.
    public let host: String
    /// Emulator port.
    public let port: Int
    /// Project id.
    public let project: String

    /// Reads `FIRESTORE_EMULATOR_HOST` (host:port) and `GCLOUD_PROJECT`.
    public static func fromEnvironment(_ env: [String: String]) -> WorkerAdmin? {
        guard let hp = env["FIRESTORE_EMULATOR_HOST"] ?? env["FIREBASE_EMULATOR_HUB"], let colon = hp.lastIndex(of: ":"),
            let port = Int(hp[hp.index(after: colon)...])
        else { return nil }
        var host = String(hp[..<colon])
        if host.hasPrefix("[") { host = String(host.dropFirst().dropLast()) }
        return WorkerAdmin(host: host, port: port, project: env["GCLOUD_PROJECT"] ?? "demo-project")
    }

    func call(_ method: String, _ path: String, _ body: JSON?) async throws -> JSON {
        var h = HTTPHeaders()
        h.add("Authorization", "Bearer owner")
        h.add("Content-Type", "application/json")
        let r = try await HTTPConnectionPool.shared.send(
            HTTPRequest(method: method, target: path, headers: h, body: body?.serializedBytes() ?? []),
            host: host, port: port, timeout: 30)
        let j = (try? JSON.parse(r.body)) ?? .null
        guard (200..<300).contains(r.status) else {
            let status = j["error"]?["status"]?.stringValue.flatMap(ErrorCode.init(rawValue:)) ?? .internal
            throw CallableError(status, j["error"]?["message"]?.stringValue ?? "HTTP \(r.status)")
        }
        return j
    }

    var documents: String { "/v1/projects/\(project)/databases/(default)/documents" }

    /// Verifies an ID token strictly; UNAUTHENTICATED when it is invalid, expired or revoked (or
    /// unsigned while the emulator signs its tokens).
    public func verifyIDToken(_ token: String) async throws -> AuthContext {
        let j = try await call("POST", "/emulator/v1/projects/\(project)/functions:verifyIdToken", ["idToken": .string(token)])
        guard let uid = j["uid"]?.stringValue else { throw CallableError(.unauthenticated, "invalid ID token") }
        return AuthContext(uid: uid, token: j["token"]?.objectValue ?? [:])
    }

    /// Deletes a user.
    public func deleteUser(_ uid: String) async throws {
        _ = try await call("POST", "/identitytoolkit.googleapis.com/v1/projects/\(project)/accounts:delete", ["localId": .string(uid)])
    }

    /// A document (REST shape) or nil.
    public func getDocument(_ path: String, transaction: String? = nil) async throws -> JSON? {
        do {
            return try await call("GET", documents + "/" + path + (transaction.map { "?transaction=" + PercentEncoding.encode($0) } ?? ""), nil)
        } catch let e as CallableError where e.code == .notFound {
            return nil
        }
    }

    /// Runs a structured query under the root; returns the documents.
    public func runQuery(_ structuredQuery: JSON, transaction: String? = nil) async throws -> [JSON] {
        var body: UTF8Dictionary<JSON> = ["structuredQuery": structuredQuery]
        if let transaction { body["transaction"] = .string(transaction) }
        let r = try await call("POST", documents + ":runQuery", .object(body))
        return (r.arrayValue ?? []).compactMap { $0["document"] }
    }

    /// Commits REST writes (names may be database-relative paths; they are expanded).
    public func commit(_ writes: [JSON], transaction: String? = nil) async throws {
        var body: UTF8Dictionary<JSON> = ["writes": .array(writes)]
        if let transaction { body["transaction"] = .string(transaction) }
        _ = try await call("POST", documents + ":commit", .object(body))
    }

    /// Begins a read-write transaction.
    public func beginTransaction() async throws -> String {
        let r = try await call("POST", documents + ":beginTransaction", [:])
        guard let t = r["transaction"]?.stringValue else { throw CallableError(.internal, "no transaction id") }
        return t
    }

    /// Runs `body` (reads with the transaction id, returns result and writes) and commits,
    /// retrying from the start when the commit is ABORTED by contention.
    public func runTransaction<T: Sendable>(attempts: Int = 10, _ body: (String) async throws -> (T, [JSON])) async throws -> T {
        var last: (any Error)?
        for _ in 0..<attempts {
            let t = try await beginTransaction()
            let (result, writes) = try await body(t)
            do {
                try await commit(writes, transaction: t)
                return result
            } catch let e as CallableError where e.code == .aborted {
                last = e
            }
        }
        throw last ?? CallableError(.aborted, "transaction did not commit")
    }

    /// The full document name of a database-relative path.
    public func name(_ path: String) -> String { "projects/\(project)/databases/(default)/documents/\(path)" }
}

/// Plain JSON ↔ Firestore REST values (strings, numbers, booleans, null, arrays, maps; timestamps
/// as `{"timestampValue": ...}` pass through unchanged).
public enum FirestoreJSON {
    /// Encodes a plain value as a REST `Value`.
    public static func value(_ v: JSON) -> JSON {
        switch v {
        case .null: return ["nullValue": .null]
        case .bool(let b): return ["booleanValue": .bool(b)]
        case .int(let i): return ["integerValue": .string(String(i))]
        case .double(let d): return ["doubleValue": .double(d)]
        case .string(let s): return ["stringValue": .string(s)]
        case .array(let a): return ["arrayValue": ["values": .array(a.map(value))]]
        case .object(let o):
            if o.count == 1, let k = o.keys.first, k.hasSuffix("Value") { return v }
            return ["mapValue": ["fields": .object(o.mapValues(value))]]
        }
    }

    /// Encodes plain fields as a REST `fields` object.
    public static func fields(_ o: UTF8Dictionary<JSON>) -> JSON { .object(o.mapValues(value)) }

    /// A field of a REST document as a plain value (strings, numbers, booleans, null).
    public static func plain(_ doc: JSON?, _ field: String) -> JSON? {
        guard let v = doc?["fields"]?[field], case .object(let o) = v, let (k, inner) = o.first else { return nil }
        switch k {
        case "integerValue": return inner.stringValue.flatMap { Int64($0) }.map { .int($0) }
        case "nullValue": return .null
        default: return inner
        }
    }
}
