import EmulatorCore

/// Admin access to Auth for functions. `verifyIDToken` accepts what an Admin SDK accepts against
/// this emulator: its own kind of token (unsigned by default like Firebase's emulator; only our RS256
/// signatures with `auth.signIdTokens`), issuer and audience, expiry (on the project clock),
/// revocation and disabled users.
public protocol AdminAuth: Sendable {
    /// The verified caller behind `token`.
    func verifyIDToken(_ token: String) throws -> AuthContext
    /// The user record in the Identity Toolkit JSON shape.
    func getUser(_ uid: String) throws -> JSON
    /// Deletes a user.
    func deleteUser(_ uid: String) async throws
    /// Replaces (or with nil clears) custom claims.
    func setCustomClaims(_ uid: String, _ claims: UTF8Dictionary<JSON>?) throws
}

/// Admin access to the document store (bypasses rules). Documents and writes use the Firestore
/// REST JSON shapes; paths are database-relative (`tasks/t1`).
public protocol AdminStore: Sendable {
    /// The document (REST shape) or nil.
    func get(_ path: String, transaction: [UInt8]?) throws -> JSON?
    /// Runs a `structuredQuery` under `parent` ("" = root).
    func query(parent: String, _ structuredQuery: JSON, transaction: [UInt8]?) throws -> [JSON]
    /// Commits REST `Write`s (atomically, in order).
    func commit(_ writes: [JSON], transaction: [UInt8]?) throws
    /// Begins a read-write transaction.
    func beginTransaction() throws -> [UInt8]
    /// Abandons a transaction.
    func rollback(_ transaction: [UInt8]) throws
}

extension AdminStore {
    /// Runs `body` in a transaction, retrying on ABORTED (at most `attempts` times).
    public func runTransaction<T: Sendable>(attempts: Int = 10, _ body: ([UInt8]) async throws -> (result: T, writes: [JSON])) async throws -> T {
        var last: (any Error)?
        for _ in 0..<max(1, attempts) {
            let t = try beginTransaction()
            do {
                let (result, writes) = try await body(t)
                try commit(writes, transaction: t)
                return result
            } catch let e as EmulatorError where e.code == .aborted {
                last = e
                continue
            } catch {
                try? rollback(t)
                throw error
            }
        }
        throw last ?? EmulatorError.aborted("transaction did not commit")
    }
}

/// What every function invocation gets: the project, the admin handles, the project clock and a
/// logger whose lines are kept with the invocation record.
public struct FunctionContext: Sendable {
    /// Project id.
    public let projectId: String
    /// Admin Auth.
    public let auth: any AdminAuth
    /// Admin store.
    public let store: any AdminStore
    /// The project's clock (for "signed in within 5 minutes" checks).
    public let clock: any EmulatorClock
    let logLines: LogBuffer

    /// Records a log line for this invocation.
    public func log(_ line: String) { logLines.append(line) }
}

/// Log lines of one invocation (behind a `Mutex`).
final class LogBuffer: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ s: String) { lines.withLock { $0.append(s) } }
    var all: [String] { lines.withLock { $0 } }
}

/// The admin handles a project's functions get (built by the wiring layer).
public protocol FunctionsAdminProvider: Sendable {
    /// Admin Auth for `projectId`.
    func adminAuth(_ projectId: String) -> any AdminAuth
    /// Admin store for `projectId`.
    func adminStore(_ projectId: String) -> any AdminStore
}
