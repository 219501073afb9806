import Foundation

/// A handle on one emulator, reached through a transport: create and remove projects, read its
/// status, send raw requests. Immutable and `Sendable`; copies share the transport.
///
/// ```swift
/// let emulator = try FirebaseEmulator.fromEnvironment()   // FIREBASE_EMULATOR_HUB, as `emulator exec` sets it
/// let project = try await emulator.createProject()
/// defer { Task { try? await emulator.removeProject(project) } }
/// ```
public struct FirebaseEmulator: Sendable {
    /// Where requests go.
    public let transport: any EmulatorTransport
    /// Sent as `Authorization: Bearer` on control-plane calls when the emulator has `--admin-token`.
    public let adminToken: String?
    /// Remembers whether `DELETE /emulator/v1/projects/{p}` exists (else projects are reset).
    let removal = RemovalSupport()

    /// An emulator reached through `transport`.
    public init(transport: any EmulatorTransport, adminToken: String? = nil) {
        self.transport = transport
        self.adminToken = adminToken
    }

    /// A running emulator at `host:port`, over HTTP.
    public init(host: String, adminToken: String? = nil) throws(FirebaseEmulatorError) {
        self.init(transport: try URLSessionTransport(host: host), adminToken: adminToken)
    }

    /// The emulator named by the environment: `FIREBASE_EMULATOR_HUB`, else
    /// `FIRESTORE_EMULATOR_HOST`, else `FIREBASE_AUTH_EMULATOR_HOST` (as `emulator exec` sets them);
    /// otherwise `127.0.0.1:4400`, where `emulator start` listens by default. On a simulator, pass
    /// the variable with the `SIMCTL_CHILD_` prefix or set it in the test plan.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment,
        adminToken: String? = nil
    ) throws(FirebaseEmulatorError) -> FirebaseEmulator {
        let host =
            ["FIREBASE_EMULATOR_HUB", "FIRESTORE_EMULATOR_HOST", "FIREBASE_AUTH_EMULATOR_HOST"]
            .lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? "127.0.0.1:4400"
        return try FirebaseEmulator(host: host, adminToken: adminToken ?? environment["FIREBASE_EMULATOR_ADMIN_TOKEN"])
    }

    /// True when the environment names an emulator (the variables `fromEnvironment` reads).
    public static func isConfiguredInEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        ["FIREBASE_EMULATOR_HUB", "FIRESTORE_EMULATOR_HOST", "FIREBASE_AUTH_EMULATOR_HOST"].contains { !(environment[$0] ?? "").isEmpty }
    }

    // MARK: Requests

    /// Sends one request and returns the answer whatever its status.
    public func send(_ request: EmulatorRequest) async throws(FirebaseEmulatorError) -> EmulatorResponse {
        var r = request
        if let token = adminToken, r.path.hasPrefix("/emulator/"), r.header("authorization") == nil {
            r.headers.append(("Authorization", "Bearer \(token)"))
        }
        return try await transport.send(r)
    }

    /// Sends a JSON request and decodes the JSON answer; throws `.http` unless the status is in
    /// `expect`. An empty body decodes as `null`.
    @discardableResult
    public func json(
        _ method: String, _ path: String, _ body: JSONValue? = nil, headers: [(String, String)] = [],
        expect: Set<Int> = [200]
    ) async throws(FirebaseEmulatorError) -> JSONValue {
        var h = headers
        if body != nil { h.append(("Content-Type", "application/json")) }
        let response = try await send(EmulatorRequest(method: method, path: path, headers: h, body: body?.data ?? Data()))
        guard expect.contains(response.status) else { throw FirebaseEmulatorError.from(status: response.status, body: response.body) }
        return response.body.isEmpty ? .null : try JSONValue.parse(response.body)
    }

    // MARK: Emulator and projects

    /// `GET /emulator/v1/status`: `project` (the default), `version`, `services`, `uptimeMs`.
    public func status() async throws(FirebaseEmulatorError) -> JSONValue {
        try await json("GET", "/emulator/v1/status")
    }

    /// The emulator's default project (the one clients get when they name none).
    public func defaultProject() async throws(FirebaseEmulatorError) -> EmulatorProject {
        guard let id = try await status()["project"]?.stringValue else { throw .decoding("status without 'project'") }
        return project(id)
    }

    /// Registers a new project with its own API key and returns it. `id` defaults to a unique id
    /// made from `hint` (a test's name) and random characters.
    public func createProject(_ id: String? = nil, hint: String = "", apiKey: String? = nil) async throws(FirebaseEmulatorError) -> EmulatorProject {
        let pid = id ?? Self.uniqueProjectId(hint: hint)
        let p = project(pid, apiKey: apiKey ?? "key-\(pid)")
        try await json("POST", "/emulator/v1/projects", ["projectId": .string(pid), "apiKey": .string(p.apiKey)])
        return p
    }

    /// A handle on an existing project (nothing is sent). `apiKey` is what client Auth calls send;
    /// an unregistered key selects the default project.
    public func project(_ id: String, apiKey: String? = nil) -> EmulatorProject {
        EmulatorProject(id: id, apiKey: apiKey ?? "key-\(id)", emulator: self)
    }

    /// Removes a project: `DELETE /emulator/v1/projects/{p}` where the emulator has that route,
    /// otherwise a reset of its data (the id should then not be reused).
    public func removeProject(_ project: EmulatorProject) async throws(FirebaseEmulatorError) {
        if removal.supported {
            let r = try await send(EmulatorRequest(method: "DELETE", path: "/emulator/v1/projects/\(project.id)"))
            if r.status == 200 { return }
            // Without the route the path falls through to another API's 404 (or a 405).
            guard r.status == 404 || r.status == 405 else { throw FirebaseEmulatorError.from(status: r.status, body: r.body) }
            removal.supported = false
        }
        try await project.reset()
    }

    /// The registered and used project ids.
    public func projectIds() async throws(FirebaseEmulatorError) -> [String] {
        (try await json("GET", "/emulator/v1/projects")["projects"]?.arrayValue ?? []).compactMap { $0["projectId"]?.stringValue }
    }

    /// `POST /emulator/v1/reset`: every project's data, clocks, faults and seeds.
    public func resetAll() async throws(FirebaseEmulatorError) {
        try await json("POST", "/emulator/v1/reset", .object([:]))
    }

    /// A fresh project id: `t-<hint>-<random>`, at most 60 characters of `[a-z0-9-]`.
    public static func uniqueProjectId(hint: String = "") -> String {
        var slug = ""
        for c in hint.lowercased().unicodeScalars {
            if ("a"..."z").contains(c) || ("0"..."9").contains(c) {
                slug.unicodeScalars.append(c)
            } else if !slug.isEmpty, !slug.hasSuffix("-") {
                slug += "-"
            }
            if slug.count >= 28 { break }
        }
        while slug.hasSuffix("-") { slug.removeLast() }
        let random = UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(10)
        return slug.isEmpty ? "t-\(random)" : "t-\(slug)-\(random)"
    }
}

/// Whether project removal is served; shared by copies of one `FirebaseEmulator`. Behind an
/// `NSLock` (the library supports platforms older than `Synchronization.Mutex`).
final class RemovalSupport: @unchecked Sendable {
    private let lock = NSLock()
    private var value = true

    /// True until a removal found no route.
    var supported: Bool {
        get {
            lock.lock()
            defer { lock.unlock() }
            return value
        }
        set {
            lock.lock()
            value = newValue
            lock.unlock()
        }
    }
}
