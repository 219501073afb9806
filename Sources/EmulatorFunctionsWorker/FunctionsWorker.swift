import EmulatorCore
import EmulatorHTTP
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What a worker function gets besides its input.
public struct WorkerContext: Sendable {
    /// Project id.
    public let project: String
    /// The emulator's clock at invocation (use it for time checks, not the wall clock).
    public let time: Timestamp
    /// Admin access to the emulator.
    public let admin: WorkerAdmin
    let lines = LogLines()

    /// Adds a line to this invocation's log (returned to the emulator with the answer and shown
    /// with the invocation in `GET .../functions/logs` and the UI).
    public func log(_ line: String) { lines.append(line) }
}

/// The log lines of one invocation, behind a `Mutex` (a function may log from child tasks).
final class LogLines: Sendable {
    private let state = Mutex<[String]>([])
    func append(_ line: String) { state.withLock { if $0.count < 1000 { $0.append(line) } } }
    var all: [String] { state.withLock { $0 } }
}

/// A background event (document change, user event or Cloud Storage object change).
public struct WorkerEvent: Sendable {
    /// `document.created|updated|deleted`, `user.created|deleted` or
    /// `storage.finalized|deleted|metadataUpdated|archived`.
    public let type: String
    /// Document path, uid, or `bucket/objectName` for storage events.
    public let subject: String
    /// Wildcard values.
    public let params: [String: String]
    /// Document before (REST shape) or user record.
    public let before: JSON?
    /// Document after (REST shape), or the object's Cloud Storage JSON for storage events
    /// (`timeDeleted` added for deletes).
    public let after: JSON?
    /// When it happened.
    public let time: Timestamp
}

/// Serves functions to the emulator's functions host (protocol: docs/functions.md): register
/// closures, then `run()`. The worker listens on 127.0.0.1 (an ephemeral port), prints
/// `emulator-worker ready port=N`, answers `GET /__/functions.json` and `POST /__/invoke/{name}`.
/// Registrations are made before `run()`; afterwards the table is only read (behind a `Mutex`).
public final class FunctionsWorker: Sendable {
    enum Body: Sendable {
        case callable(@Sendable (JSON, AuthContext?, String?, WorkerContext) async throws -> JSON)
        case event(@Sendable (WorkerEvent, WorkerContext) async throws -> Void)
        case blocking(@Sendable (JSON, WorkerContext) async throws -> JSON?)
    }

    struct Entry: Sendable {
        var manifest: JSON
        var body: Body
    }

    private let entries = Mutex<[String: Entry]>([:])

    /// Creates an empty worker.
    public init() {}

    func add(_ name: String, _ manifest: JSON, _ body: Body) {
        var m = manifest.objectValue ?? [:]
        m["name"] = .string(name)
        entries.withLock { $0[name] = Entry(manifest: .object(m), body: body) }
    }

    /// A callable: `data`, the verified caller (nil when unauthenticated), the caller's raw ID token.
    public func callable(
        _ name: String, region: String = "us-central1",
        _ body: @escaping @Sendable (_ data: JSON, _ auth: AuthContext?, _ rawToken: String?, WorkerContext) async throws -> JSON
    ) {
        add(name, ["kind": "callable", "region": .string(region)], .callable(body))
    }

    /// A document trigger on `pattern` (`tasks/{taskId}`) for `event` (created, updated, deleted, written).
    public func onDocument(
        _ name: String, _ pattern: String, event: String = "written", retry: Bool = false,
        _ body: @escaping @Sendable (WorkerEvent, WorkerContext) async throws -> Void
    ) {
        add(name, ["kind": "document", "document": .string(pattern), "event": .string(event), "retry": .bool(retry)], .event(body))
    }

    /// A user trigger (`created` or `deleted`).
    public func onUser(
        _ name: String, event: String, retry: Bool = false, _ body: @escaping @Sendable (WorkerEvent, WorkerContext) async throws -> Void
    ) {
        add(name, ["kind": "auth", "event": .string(event), "retry": .bool(retry)], .event(body))
    }

    /// A Cloud Storage trigger for `event` (`finalized`, `deleted`, `metadataUpdated`, `archived`) in
    /// `bucket` (nil: the project's `{project}.appspot.com`). The event's `after` is the object's
    /// Cloud Storage JSON; `subject` is `bucket/objectName`.
    public func onStorage(
        _ name: String, event: String, bucket: String? = nil, retry: Bool = false,
        _ body: @escaping @Sendable (WorkerEvent, WorkerContext) async throws -> Void
    ) {
        var manifest: JSON = ["kind": "storage", "event": .string(event), "retry": .bool(retry)]
        if let bucket, case .object(var o) = manifest {
            o["bucket"] = .string(bucket)
            manifest = .object(o)
        }
        add(name, manifest, .event(body))
    }

    /// A blocking function (`beforeCreate`, `beforeSignIn`): gets `{eventType, signInMethod, user}`;
    /// returns changes (`displayName`, `disabled`, `emailVerified`, `customClaims`, `sessionClaims`) or nil;
    /// throws `CallableError` to reject.
    public func blocking(_ name: String, event: String, _ body: @escaping @Sendable (JSON, WorkerContext) async throws -> JSON?) {
        add(name, ["kind": "blocking", "event": .string(event)], .blocking(body))
    }

    /// Serves until the process is terminated.
    public func run(environment: [String: String] = ProcessInfo.processInfo.environment) async throws -> Never {
        guard let admin = WorkerAdmin.fromEnvironment(environment) else {
            throw CallableError(.failedPrecondition, "FIRESTORE_EMULATOR_HOST is not set: run this worker from the emulator's functions.codebases")
        }
        let server = HTTPServer(configuration: HTTPServerConfiguration(listeners: [.init(host: "127.0.0.1", port: 0)])) { [self] req in
            await handle(req, admin: admin)
        }
        let port = try server.start()[0].port
        // One write(2), unbuffered: the host waits for this line on the pipe.
        let line = Array("emulator-worker ready port=\(port)\n".utf8)
        _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        while true { try await Task.sleep(nanoseconds: 3_600_000_000_000) }
    }

    func handle(_ req: HTTPRequest, admin: WorkerAdmin) async -> HTTPResponse {
        if req.method == "GET" && req.path == "/__/functions.json" {
            return .json(["functions": .array(entries.withLock { $0.values.map(\.manifest) })])
        }
        guard req.method == "POST", req.path.hasPrefix("/__/invoke/") else {
            return .json(["error": ["status": "NOT_FOUND", "message": "no such route"]], status: 404)
        }
        let name = String(req.path.dropFirst("/__/invoke/".count))
        guard let entry = entries.withLock({ $0[name] }), let env = try? JSON.parse(req.body) else {
            return .json(["error": ["status": "NOT_FOUND", "message": .string("no function \(name)")]], status: 404)
        }
        let time = env["time"]?.stringValue.flatMap { Timestamp(rfc3339: $0) } ?? Timestamp(seconds: 0)
        let ctx = WorkerContext(
            project: env["project"]?.stringValue ?? admin.project, time: time,
            admin: WorkerAdmin(host: admin.host, port: admin.port, project: env["project"]?.stringValue ?? admin.project))
        var response = await invoke(entry, env, ctx, name)
        let logged = ctx.lines.all
        if !logged.isEmpty, case .object(var o)? = try? JSON.parse(response.body) {
            o["logs"] = .array(logged.map { .string($0) })
            response = .json(.object(o))
        }
        return response
    }

    func invoke(_ entry: Entry, _ env: JSON, _ ctx: WorkerContext, _ name: String) async -> HTTPResponse {
        let time = ctx.time
        do {
            switch entry.body {
            case .callable(let f):
                let auth = env["auth"].flatMap { a -> AuthContext? in
                    guard let uid = a["uid"]?.stringValue else { return nil }
                    return AuthContext(uid: uid, token: a["token"]?.objectValue ?? [:])
                }
                return .json(["result": try await f(env["data"] ?? .null, auth, env["rawToken"]?.stringValue, ctx)])
            case .event(let f):
                let e = env["event"] ?? [:]
                try await f(
                    WorkerEvent(
                        type: e["type"]?.stringValue ?? "", subject: e["subject"]?.stringValue ?? "",
                        params: (e["params"]?.objectValue ?? [:]).compactMapValues(\.stringValue).dictionary, before: e["before"], after: e["after"],
                        time: e["time"]?.stringValue.flatMap { Timestamp(rfc3339: $0) } ?? time), ctx)
                return .json(["result": .null])
            case .blocking(let f):
                return .json(["result": try await f(env["event"] ?? .null, ctx) ?? .null])
            }
        } catch let e as CallableError {
            var o: UTF8Dictionary<JSON> = ["status": .string(e.code.rawValue), "message": .string(e.message)]
            if let d = e.details { o["details"] = d }
            return .json(["error": .object(o)])
        } catch {
            FileHandle.standardError.write(Data("worker: \(name) failed: \(error)\n".utf8))
            return .json(["error": ["status": "INTERNAL", "message": "INTERNAL"]])
        }
    }
}
