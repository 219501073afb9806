import Foundation

/// Firestore documents of one project over the REST API, as one caller: the administrator
/// (`Bearer owner`, no rules; the default), a signed-in user (rules apply), or nobody. For seeding
/// and asserting; the app under test keeps using its own SDK.
///
/// ```swift
/// try await project.firestore.set("tasks/t1", ["title": "milk", "userId": .string(alice.uid)])
/// let doc = try await project.firestore.as(alice).get("tasks/t1")
/// ```
public struct FirestoreDocuments: Sendable {
    /// Who makes the calls.
    public enum Caller: Sendable, Hashable {
        /// `Authorization: Bearer owner`: rules do not apply.
        case admin
        /// The user's ID token: rules judge every call.
        case user(idToken: String)
        /// No credentials: `request.auth == null`.
        case unauthenticated
    }

    /// The project.
    public let project: EmulatorProject
    /// Who calls.
    public let caller: Caller
    /// The database id (`(default)`).
    public let database: String

    /// The documents of `project` as `caller`.
    public init(project: EmulatorProject, caller: Caller = .admin, database: String = "(default)") {
        self.project = project
        self.caller = caller
        self.database = database
    }

    /// The same documents as `user`.
    public func `as`(_ user: TestUser) -> FirestoreDocuments {
        FirestoreDocuments(project: project, caller: .user(idToken: user.idToken), database: database)
    }
    /// The same documents with no credentials.
    public var unauthenticated: FirestoreDocuments { FirestoreDocuments(project: project, caller: .unauthenticated, database: database) }

    /// `projects/{p}/databases/{db}/documents`.
    public var root: String { "projects/\(project.id)/databases/\(database)/documents" }

    private var headers: [(String, String)] {
        switch caller {
        case .admin: return [("Authorization", "Bearer owner")]
        case .user(let token): return [("Authorization", "Bearer \(token)")]
        case .unauthenticated: return []
        }
    }

    private func url(_ path: String, _ suffix: String = "") -> String {
        let encoded = path.split(separator: "/").map {
            String($0).addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#"))) ?? String($0)
        }.joined(separator: "/")
        return "/v1/\(root)" + (encoded.isEmpty ? "" : "/" + encoded) + suffix
    }

    /// Creates or replaces the document at `path` with plain JSON fields.
    @discardableResult
    public func set(_ path: String, _ fields: [String: JSONValue]) async throws(FirebaseEmulatorError) -> FirestoreDocument {
        let r = try await project.emulator.json("PATCH", url(path), ["fields": FirestoreValue.encode(fields)], headers: headers)
        return FirestoreDocument(r)
    }

    /// Adds a document with a generated id to `collection`.
    @discardableResult
    public func add(to collection: String, _ fields: [String: JSONValue]) async throws(FirebaseEmulatorError) -> FirestoreDocument {
        FirestoreDocument(try await project.emulator.json("POST", url(collection), ["fields": FirestoreValue.encode(fields)], headers: headers))
    }

    /// The document at `path`, or nil when it does not exist.
    public func get(_ path: String) async throws(FirebaseEmulatorError) -> FirestoreDocument? {
        let r = try await project.emulator.send(EmulatorRequest(method: "GET", path: url(path), headers: headers))
        if r.status == 404 { return nil }
        guard r.status == 200 else { throw FirebaseEmulatorError.from(status: r.status, body: r.body) }
        return FirestoreDocument(try JSONValue.parse(r.body))
    }

    /// Deletes the document at `path` (no error when it does not exist).
    public func delete(_ path: String) async throws(FirebaseEmulatorError) {
        try await project.emulator.json("DELETE", url(path), headers: headers)
    }

    /// The documents of `collection` whose `field` equals `value` (every document when `field` is
    /// nil), in name order. Rules are not filters: a user's query must constrain what the rules check.
    public func query(_ collection: String, where field: String? = nil, isEqualTo value: JSONValue = .null) async throws(FirebaseEmulatorError)
        -> [FirestoreDocument]
    {
        let parts = collection.split(separator: "/").map(String.init)
        guard let id = parts.last else { throw .unavailable("an empty collection path") }
        var structured: [String: JSONValue] = ["from": [["collectionId": .string(id)]]]
        if let field {
            structured["where"] = ["fieldFilter": ["field": ["fieldPath": .string(field)], "op": "EQUAL", "value": FirestoreValue.encode(value)]]
        }
        let parent = parts.dropLast().joined(separator: "/")
        let r = try await project.emulator.json("POST", url(parent, ":runQuery"), ["structuredQuery": .object(structured)], headers: headers)
        return (r.arrayValue ?? []).compactMap { $0["document"].map(FirestoreDocument.init) }
    }
}

extension EmulatorProject {
    /// The project's Firestore documents as the administrator (`.as(user)` for a user).
    public var firestore: FirestoreDocuments { FirestoreDocuments(project: self) }
}

/// A document as the REST API returns it, with its fields as plain JSON.
public struct FirestoreDocument: Sendable {
    /// The whole REST document.
    public let raw: JSONValue
    /// Creates it from the REST form.
    public init(_ raw: JSONValue) { self.raw = raw }
    /// `projects/{p}/databases/{db}/documents/{path}`.
    public var name: String { raw["name"]?.stringValue ?? "" }
    /// The path within the database (`tasks/t1`).
    public var path: String {
        guard let r = name.range(of: "/documents/") else { return name }
        return String(name[r.upperBound...])
    }
    /// The last segment of the path.
    public var id: String { path.split(separator: "/").last.map(String.init) ?? "" }
    /// The fields as plain JSON (timestamps and references as strings, bytes as base64).
    public var data: [String: JSONValue] { FirestoreValue.decode(fields: raw["fields"]) }
    /// One field as plain JSON.
    public subscript(field: String) -> JSONValue? { data[field] }
}

/// Converts plain JSON to Firestore's typed REST values and back.
public enum FirestoreValue {
    /// `{"title": "milk"}` → `{"title": {"stringValue": "milk"}}`.
    public static func encode(_ fields: [String: JSONValue]) -> JSONValue { .object(fields.mapValues(encode)) }

    /// One value: strings, integers, doubles, booleans, null, arrays and maps.
    public static func encode(_ v: JSONValue) -> JSONValue {
        switch v {
        case .null: return ["nullValue": nil]
        case .bool(let b): return ["booleanValue": .bool(b)]
        case .int(let i): return ["integerValue": .string(String(i))]
        case .double(let d): return ["doubleValue": .double(d)]
        case .string(let s): return ["stringValue": .string(s)]
        case .array(let a): return ["arrayValue": ["values": .array(a.map(encode))]]
        case .object(let o): return ["mapValue": ["fields": encode(o)]]
        }
    }

    /// A REST `fields` object as plain JSON.
    public static func decode(fields: JSONValue?) -> [String: JSONValue] { (fields?.objectValue ?? [:]).mapValues(decode) }

    /// One typed value as plain JSON.
    public static func decode(_ v: JSONValue) -> JSONValue {
        guard case .object(let o) = v, let (kind, value) = o.first else { return .null }
        switch kind {
        case "integerValue": return value.stringValue.flatMap { Int64($0) }.map(JSONValue.int) ?? value
        case "arrayValue": return .array((value["values"]?.arrayValue ?? []).map(decode))
        case "mapValue": return .object(decode(fields: value["fields"]))
        case "nullValue": return .null
        case "geoPointValue": return value
        default: return value  // stringValue, booleanValue, doubleValue, timestampValue, referenceValue, bytesValue
        }
    }
}
