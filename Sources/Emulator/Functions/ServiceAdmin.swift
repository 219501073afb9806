import EmulatorAuth
import EmulatorCore
import EmulatorFunctions
import EmulatorStore

/// The admin handles functions get, over the real services (rules bypassed, tokens verified strictly).
struct ServiceAdmin: FunctionsAdminProvider {
    let auth: AuthService
    let store: StoreService

    func adminAuth(_ projectId: String) -> any AdminAuth { AuthAdmin(auth: auth, project: projectId) }
    func adminStore(_ projectId: String) -> any AdminStore { StoreAdmin(store: store, project: projectId) }
}

/// Admin Auth for one project.
struct AuthAdmin: AdminAuth {
    let auth: AuthService
    let project: String

    /// What an Admin SDK's `verifyIdToken` accepts against this emulator (the tokens it mints:
    /// unsigned by default, RS256 with `auth.signIdTokens`), plus expiry on the project clock,
    /// revocation and disabled users.
    func verifyIDToken(_ token: String) throws -> AuthContext {
        do {
            return try auth.verifyIDTokenStrictly(projectId: project, token: token)
        } catch let e as EmulatorError {
            throw HttpsError(.unauthenticated, e.message)
        }
    }

    func getUser(_ uid: String) throws -> JSON {
        do { return try auth.getUser(projectId: project, uid: uid).json } catch let e as EmulatorError { throw HttpsError(.notFound, e.message) }
    }

    func deleteUser(_ uid: String) async throws { try await auth.deleteUser(projectId: project, uid: uid) }

    func setCustomClaims(_ uid: String, _ claims: UTF8Dictionary<JSON>?) throws {
        try auth.setCustomClaims(projectId: project, uid: uid, claims: claims)
    }
}

/// Admin store access for one project's `(default)` database, in REST JSON shapes.
struct StoreAdmin: AdminStore {
    let store: StoreService
    let project: String
    let database = "(default)"

    func consistency(_ t: [UInt8]?) -> ReadConsistency { t.map { .transaction($0) } ?? .latest }

    func get(_ path: String, transaction: [UInt8]?) throws -> JSON? {
        do {
            return try store.getDocument(project: project, database: database, path: path, consistency: consistency(transaction), caller: .admin)
                .value.json(project: project, database: database)
        } catch let e as EmulatorError where e.code == .notFound {
            return nil
        }
    }

    func query(parent: String, _ structuredQuery: JSON, transaction: [UInt8]?) throws -> [JSON] {
        try store.runQuery(
            project: project, database: database, parent: parent, query: StructuredQuery(json: structuredQuery),
            consistency: consistency(transaction), caller: .admin
        ).value.map { $0.json(project: project, database: database) }
    }

    func commit(_ writes: [JSON], transaction: [UInt8]?) throws {
        let w = try writes.map { try StoreWrite(json: $0, project: project, database: database) }
        _ = try store.commit(project: project, database: database, writes: w, transaction: transaction, caller: .admin)
    }

    func beginTransaction() throws -> [UInt8] { try store.beginTransaction(project: project, database: database, readOnly: false) }

    func rollback(_ transaction: [UInt8]) throws { try store.rollback(project: project, database: database, transaction: transaction) }
}
