import EmulatorAuth
import EmulatorCore
import EmulatorFunctions
import EmulatorHTTP

/// Connects Auth's hooks to the functions host: blocking functions run inline (a rejection is the
/// error the SDK sees), user created/deleted become queued background events.
struct FunctionsAuthHooks: AuthHooks {
    /// Weak: the functions host holds Auth through its admin context (no cycle).
    private let box: WeakHost
    let projects: ProjectRegistry

    init(host: FunctionsHost, projects: ProjectRegistry) {
        box = WeakHost(host)
        self.projects = projects
    }

    var host: FunctionsHost? { box.host }

    func beforeCreate(_ event: BlockingEvent) async throws -> BlockingResult? { try await run(event) }
    func beforeSignIn(_ event: BlockingEvent) async throws -> BlockingResult? { try await run(event) }

    func run(_ e: BlockingEvent) async throws -> BlockingResult? {
        var o: UTF8Dictionary<JSON> = [
            "eventType": .string(e.eventType), "signInMethod": .string(e.signInMethod), "user": e.user.json,
            "locale": .string(e.locale),
        ]
        if let f = e.secondFactor { o["signInSecondFactor"] = .string(f) }  // beforeSignIn at mfaSignIn:finalize
        if let c = e.credential { o["credential"] = c.json }
        let payload = JSON.object(o)
        let changes: JSON?
        do {
            changes = try await host?.runBlocking(project: e.projectId, event: e.eventType, payload: payload)
        } catch let h as HttpsError {
            throw EmulatorError(
                .invalidArgument, "BLOCKING_FUNCTION_ERROR_RESPONSE : ((\(h.code.rawValue): \(h.message)))",
                style: .identityToolkit(reason: "invalid", omitStatus: true))
        }
        guard let c = changes, case .object(let o) = c else { return nil }
        // `photoURL` is what the SDKs send, `photoUrl` what the Firebase Auth emulator reads: take both.
        return BlockingResult(
            displayName: o["displayName"]?.stringValue, disabled: o["disabled"]?.boolValue,
            emailVerified: o["emailVerified"]?.boolValue, customClaims: o["customClaims"]?.objectValue,
            sessionClaims: o["sessionClaims"]?.objectValue, photoUrl: (o["photoURL"] ?? o["photoUrl"])?.stringValue)
    }

    func userCreated(projectId: String, user: AuthUser) async {
        host?.userEvent(
            project: projectId, event: "created", time: projects.environment(for: projectId).clock.now(), uid: user.localId, user: user.json)
    }

    func userDeleted(projectId: String, user: AuthUser) async {
        host?.userEvent(
            project: projectId, event: "deleted", time: projects.environment(for: projectId).clock.now(), uid: user.localId, user: user.json)
    }
}

/// A weak reference to the functions host.
final class WeakHost: @unchecked Sendable {
    weak var host: FunctionsHost?
    init(_ h: FunctionsHost) { host = h }
}

/// Worker requests over the project's HTTP client.
struct HTTPWorkerTransport: WorkerTransport {
    func send(port: Int, method: String, path: String, headers: [(String, String)], body: [UInt8], timeout: Double) async throws
        -> FunctionHTTPResponse
    {
        var h = HTTPHeaders()
        for (n, v) in headers where !["host", "connection", "content-length", "transfer-encoding"].contains(n.lowercased()) { h.add(n, v) }
        let r = try await HTTPConnectionPool.shared.send(
            HTTPRequest(method: method, target: path, headers: h, body: body), host: "127.0.0.1", port: port, timeout: timeout)
        return FunctionHTTPResponse(status: r.status, headers: r.headers.fields.map { ($0.name, $0.value) }, body: r.body)
    }

    func forget(port: Int) { HTTPConnectionPool.shared.forget(host: "127.0.0.1", port: port) }
}
