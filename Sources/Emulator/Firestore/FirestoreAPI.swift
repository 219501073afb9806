import EmulatorCore
import EmulatorStore

/// Who calls one Firestore RPC: the bearer credential, as REST's `Authorization` header or
/// gRPC's `authorization` metadata carries it (the two mean exactly the same).
struct FirestoreCallContext: Sendable {
    /// The token after `Bearer `, if any.
    var bearerToken: String?
    /// False on an event loop answering inline: a read throws `StoreBusy` rather than wait for a
    /// database another thread holds.
    var waitForLock = true
}

/// A database named by a request: `projects/{project}/databases/{database}`.
struct DatabaseRef: Sendable, Equatable {
    /// The project id.
    var project: String
    /// The database id (`(default)` or a named database).
    var database: String
}

/// The Firestore v1 API, independent of transport. Each RPC takes its request message in the
/// proto3 JSON form and returns its response message (unary) or hands each response message to
/// `emit` as it is produced (server-streaming), in the same form. The REST routes
/// (`FirestoreRESTRoutes`) and the gRPC methods (`FirestoreGRPCService`) are adapters over it, so
/// both transports validate, authorize and answer the same way by construction.
///
/// A value holding only the immutable service bundle, so it is shared freely.
struct FirestoreAPI: Sendable {
    /// Receives one response message of a streaming RPC (may suspend for flow control).
    typealias Emit = (FirestoreMessage) async throws -> Void

    /// The services the RPCs call.
    let services: EmulatorServices
    /// The document store.
    var store: StoreService { services.store }

    /// The caller of `context` for `db`'s project (ID tokens are verified for that project).
    func caller(_ context: FirestoreCallContext, _ db: DatabaseRef) throws -> Caller {
        try CallerResolver.resolve(bearerToken: context.bearerToken, projectId: db.project, services: services)
    }
}

extension FirestoreAPI {
    /// `projects/{p}/databases/{d}` from a request's `database` field.
    static func database(_ value: JSON?, field: String) throws -> DatabaseRef {
        guard let s = value?.stringValue, !s.isEmpty else {
            throw EmulatorError.invalidArgument("'\(field)' is required: projects/{project_id}/databases/{database_id}.")
        }
        // Split on the byte, as document names are (`DocumentName`): a slash is a separator even
        // before a combining mark, and no `Character` work is done on every request.
        let parts = s.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0].elementsEqual("projects".utf8), parts[2].elementsEqual("databases".utf8), !parts[1].isEmpty,
            !parts[3].isEmpty
        else {
            throw EmulatorError.invalidArgument("Invalid '\(field)' \"\(s)\": expected projects/{project_id}/databases/{database_id}.")
        }
        return DatabaseRef(project: String(decoding: parts[1], as: UTF8.self), database: String(decoding: parts[3], as: UTF8.self))
    }

    /// The database and database-relative path of a full name under `…/documents` ("" = the root).
    static func name(_ value: JSON?, field: String) throws -> (DatabaseRef, String) {
        guard let s = value?.stringValue, !s.isEmpty else {
            throw EmulatorError.invalidArgument("'\(field)' is required: projects/{project_id}/databases/{database_id}/documents/....")
        }
        guard let p = DocumentName.parse(s) else {
            throw EmulatorError.invalidArgument("Invalid '\(field)' \"\(s)\": expected projects/{project_id}/databases/{database_id}/documents/....")
        }
        return (DatabaseRef(project: p.project, database: p.database), p.path)
    }

    /// A document name (even number of path segments).
    static func documentName(_ value: JSON?, field: String) throws -> (DatabaseRef, String) {
        let (db, path) = try name(value, field: field)
        try DocumentName.validateDocumentPath(path)
        return (db, path)
    }

    /// A parent: the documents root or a document (`…/documents` or `…/documents/a/b`).
    static func parent(_ value: JSON?, field: String = "parent") throws -> (DatabaseRef, String) {
        let (db, path) = try name(value, field: field)
        if !path.isEmpty { try DocumentName.validateDocumentPath(path) }
        return (db, path)
    }

    /// An optional non-negative int32 field (proto3 JSON numbers; decimal strings also accepted).
    static func int32(_ value: JSON?, field: String) throws -> Int? {
        guard let value, !value.isNull else { return nil }
        if let i = value.intValue, i >= Int64(Int32.min), i <= Int64(Int32.max) { return Int(i) }
        if let s = value.stringValue, let i = Int32(s) { return Int(i) }
        throw EmulatorError.invalidArgument("'\(field)' must be a 32-bit integer.")
    }

    /// A base64 `bytes` field (a transaction id); nil when absent.
    static func bytes(_ value: JSON?, field: String) throws -> [UInt8]? {
        guard let value, !value.isNull else { return nil }
        guard let s = value.stringValue, let b = Base64.decode(s) else { throw EmulatorError.invalidArgument("'\(field)' must be base64 bytes.") }
        return b
    }

    /// The object members of a request (a JSON object is required).
    static func object(_ request: JSON, _ rpc: String) throws -> UTF8Dictionary<JSON> {
        guard case .object(let o) = request else {
            throw EmulatorError.invalidArgument("The \(rpc) request must be a JSON object, got \(request.kindName).")
        }
        return o
    }
}
