import Emulator
import EmulatorCore
import EmulatorHTTP
import FirebaseEmulatorTesting
import FoundationEssentials

/// The testing library's transport served in process: each request goes straight to
/// `EmulatorApp.handle` (the whole pipeline: host check, CORS, admin token, routing, faults, error
/// mapping) without sockets, and gRPC requests (`content-type: application/grpc`) to the Firestore
/// gRPC service over an in-memory stream. Immutable; safe to share.
public struct InProcessTransport: EmulatorTransport {
    /// The pipeline requests go to.
    public let app: EmulatorApp
    /// Serves gRPC calls (built once per app).
    let grpc: InProcessGRPC?

    /// A transport over an existing pipeline.
    public init(app: EmulatorApp) {
        self.app = app
        self.grpc = InProcessGRPC.make(app)
    }

    /// A fresh emulator (services and pipeline, no listeners) with `config` (edited by `edit`).
    public init(
        config: EmulatorConfig = EmulatorConfig(), logger: any LogSink = NullLogSink(),
        _ edit: (inout EmulatorConfig) -> Void = { _ in }
    ) throws {
        var c = config
        edit(&c)
        self.init(app: EmulatorApp(services: try EmulatorServices(config: c, logger: logger)))
    }

    /// "in-process".
    public var endpoint: String { "in-process" }

    /// Hands the request to the pipeline (or the gRPC service) and returns its answer.
    public func send(_ request: EmulatorRequest) async throws(FirebaseEmulatorError) -> EmulatorResponse {
        if request.header("content-type")?.hasPrefix("application/grpc") == true {
            guard let grpc else { throw .unavailable("in-process gRPC needs a debug build (it reaches internal types through @testable)") }
            return await grpc.call(request)
        }
        var headers = HTTPHeaders()
        for (k, v) in request.headers { headers.add(k, v) }
        let response = await app.handle(
            HTTPRequest(
                method: request.method, target: request.path, headers: headers,
                body: [UInt8](request.body)))
        if response.stream != nil {
            throw .unavailable("\(request.path) answers a stream (Server-Sent Events), which the in-process transport does not collect")
        }
        return EmulatorResponse(status: response.status, headers: response.headers.map { ($0.name, $0.value) }, body: Data(response.body))
    }
}

extension FirebaseEmulator {
    /// An emulator living in this process (no sockets): a fresh one with `config`, or `app`.
    public static func inProcess(config: EmulatorConfig = EmulatorConfig(), _ edit: (inout EmulatorConfig) -> Void = { _ in }) throws
        -> FirebaseEmulator
    {
        FirebaseEmulator(transport: try InProcessTransport(config: config, edit))
    }

    /// An emulator over an existing pipeline (tests that also inspect `app.services`).
    public static func inProcess(app: EmulatorApp) -> FirebaseEmulator {
        FirebaseEmulator(transport: InProcessTransport(app: app))
    }

    /// The pipeline behind an in-process emulator (nil for other transports).
    public var inProcessApp: EmulatorApp? { (transport as? InProcessTransport)?.app }
}

#if canImport(Testing)
import Testing

extension Trait where Self == EmulatorProjectTrait {
    /// A fresh project per test in a fresh in-process emulator (one per test, configured by
    /// `edit`; `EmulatorProject.current?.emulator.inProcessApp` reaches its services).
    public static func inProcessProject(
        _ edit: @escaping @Sendable (inout EmulatorConfig) -> Void = { _ in },
        configure: (@Sendable (EmulatorProject) async throws -> Void)? = nil
    ) -> Self {
        .emulatorProject(emulator: { try FirebaseEmulator.inProcess(edit) }, configure: configure)
    }
}
#endif
