import EmulatorCore
import Foundation
import Testing

@testable import EmulatorFunctions

#if canImport(Glibc)
import Glibc
#endif

/// A launcher that answers like the real one, without Python: forked processes are simulated, and
/// each "function process" listens on a real loopback socket so the readiness check can connect.
final class FakeLauncher: LauncherChannel, @unchecked Sendable {
    struct State {
        var handler: (@Sendable (LauncherEvent) -> Void)?
        var commands: [JSON] = []
        var ports: [String: Int] = [:]
        var sockets: [Int32] = []
        var nextPid: Int32 = 100
        var stopped = false
        /// Spawns sent a signal: their "process" is gone, so calls to their port fail.
        var signalled: Set<String> = []
    }
    let state = Mutex(State())
    let manifest: JSON
    /// Function spawns whose process "dies" before it starts (status 3, after writing a traceback).
    let failing: Set<String>
    let startDelay: Double
    /// How long a signalled process takes to be reported exited (a real one takes a while).
    let exitDelay: Double

    init(manifest: JSON, failing: Set<String> = [], startDelay: Double = 0, exitDelay: Double = 0) {
        self.manifest = manifest
        self.failing = failing
        self.startDelay = startDelay
        self.exitDelay = exitDelay
    }

    func emit(_ e: LauncherEvent) { state.withLock { $0.handler }?(e) }

    func start(_ handler: @escaping @Sendable (LauncherEvent) -> Void) throws {
        state.withLock { $0.handler = handler }
        emit(.ready(python: "3.11.7", prefork: true, milliseconds: 5, missing: []))
    }

    var spawns: [JSON] { state.withLock { $0.commands.filter { $0["op"] == "spawn" } } }

    func send(_ command: JSON) {
        state.withLock { $0.commands.append(command) }
        let id = command["id"]?.stringValue ?? ""
        switch command["op"]?.stringValue {
        case "spawn" where command["kind"] == "admin":
            let pid = state.withLock { s -> Int32 in
                s.nextPid += 1
                return s.nextPid
            }
            emit(.spawned(id: id, pid: pid, port: 9))
        case "spawn":
            let name = String(id.split(separator: "#")[0])
            let (pid, fd, port) = state.withLock { s -> (Int32, Int32, Int) in
                s.nextPid += 1
                let (fd, port) = Self.listen()
                s.sockets.append(fd)
                s.ports[id] = port
                return (s.nextPid, fd, port)
            }
            _ = fd
            Thread.detachNewThread { [self] in
                if startDelay > 0 { usleep(UInt32(startDelay * 1e6)) }
                emit(.spawned(id: id, pid: pid, port: nil))
                emit(.listening(id: id, port: port))
                if failing.contains(name) {
                    emit(.output(id: id, stream: "stderr", line: "Traceback (most recent call last):"))
                    emit(.output(id: id, stream: "stderr", line: "ImportError: nope"))
                    emit(.exited(id: id, pid: pid, status: 3, signal: nil))
                } else {
                    emit(.started(id: id, port: port))
                }
            }
        case "yaml":
            emit(.yaml(id: id, json: manifest, error: nil))
        case "signal":
            state.withLock { _ = $0.signalled.insert(id) }
            let signal = Int(command["signal"]?.intValue ?? 15)
            Thread.detachNewThread { [self] in
                if exitDelay > 0 { usleep(UInt32(exitDelay * 1e6)) }
                emit(.exited(id: id, pid: 0, status: nil, signal: signal))
            }
        default: break
        }
    }

    func stop() { state.withLock { $0.stopped = true } }

    func spawnId(port: Int) -> String? { state.withLock { s in s.ports.first { $0.value == port }?.key } }

    static func listen() -> (Int32, Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        Glibc.listen(fd, 16)
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return (fd, Int(UInt16(bigEndian: addr.sin_port)))
    }

    deinit { for fd in state.withLock({ $0.sockets }) { close(fd) } }
}

/// Answers for the fake processes: the admin server's manifest, and function calls that print a
/// line (tagged with the invocation, as the real stream wrapper does) and echo what they got. A
/// call whose body is `{"data":"hang"}` waits until it is cancelled; a call to a signalled
/// process is refused, as the real socket would be.
final class FakeFunctionTransport: WorkerTransport, @unchecked Sendable {
    let launcher: FakeLauncher
    let requests = Mutex<[(String, String, [(String, String)], [UInt8])]>([])
    init(launcher: FakeLauncher) { self.launcher = launcher }

    func send(port: Int, method: String, path: String, headers: [(String, String)], body: [UInt8], timeout: Double) async throws
        -> FunctionHTTPResponse
    {
        requests.withLock { $0.append((method, path, headers, body)) }
        if path == "/__/functions.yaml" { return FunctionHTTPResponse(status: 200, body: Array("endpoints: {}".utf8)) }
        if path == "/__/quitquitquit" { return FunctionHTTPResponse(status: 200, body: Array("OK".utf8)) }
        let inv = headers.first { $0.0 == "X-Emulator-Invocation" }?.1 ?? "?"
        let sid = launcher.spawnId(port: port)
        if let sid, launcher.state.withLock({ $0.signalled.contains(sid) }) { throw POSIXError(.ECONNREFUSED) }
        if body == Array(#"{"data":"hang"}"#.utf8) { try await Task.sleep(nanoseconds: 60_000_000_000) }
        if let sid {
            launcher.emit(.output(id: sid, stream: "stdout", line: "\u{1E}\(inv)\u{1F}handling \(path)"))
            launcher.emit(.output(id: sid, stream: "stdout", line: "\u{1E}\(inv)\u{1F}\u{1D}END"))
            launcher.emit(.output(id: sid, stream: "stderr", line: "\u{1E}\(inv)\u{1F}\u{1D}END"))
        }
        return FunctionHTTPResponse(
            status: 200, headers: [("Content-Type", "application/json")],
            body: JSON.object(["result": ["path": .string(path), "port": .int(Int64(port))]]).serializedBytes())
    }
}

@Suite(.serialized) struct PythonCodebaseTests {
    static let manifest: JSON = [
        "specVersion": "v1alpha1",
        "endpoints": [
            "hello": ["entryPoint": "hello", "platform": "gcfv2", "callableTrigger": [:]],
            "broken": ["entryPoint": "broken", "platform": "gcfv2", "callableTrigger": [:]],
            "page": ["entryPoint": "page", "platform": "gcfv2", "httpsTrigger": [:], "region": ["europe-west1"]],
        ],
    ]

    /// A source folder with a stand-in venv interpreter (never run: the launcher is fake).
    static func source(yaml: String? = nil) throws -> String {
        let dir = NSTemporaryDirectory() + "pycodebase-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir + "/venv/bin", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(
            atPath: dir + "/venv/bin/python", contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o755])
        _ = FileManager.default.createFile(atPath: dir + "/requirements.txt", contents: Data("firebase-functions\n".utf8))
        _ = FileManager.default.createFile(atPath: dir + "/.env", contents: Data("FROM_DOTENV=yes\n".utf8))
        if let yaml { _ = FileManager.default.createFile(atPath: dir + "/functions.yaml", contents: Data(yaml.utf8)) }
        return dir
    }

    func boot(_ launcher: FakeLauncher, source: String) async throws -> (FunctionsHost, PythonCodebase, FakeFunctionTransport) {
        let host = FunctionsHost(environments: LocalEnvironmentProvider())
        var config = PythonCodebaseConfig(source: source)
        config.watch = false
        config.startTimeoutSeconds = 5
        let transport = FakeFunctionTransport(launcher: launcher)
        let codebase = PythonCodebase(
            config: config, project: "demo-p", host: host, transport: transport,
            environment: FunctionEnvironment(inherited: ["PATH": "/bin"], project: "demo-p", venv: source + "/venv"),
            logger: NullLogSink(), launcher: { _, _, _ in launcher })
        codebase.start()
        #expect(await codebase.waitUntilSettled(timeout: 10))
        return (host, codebase, transport)
    }

    func call(_ host: FunctionsHost, _ name: String, data: String = "1") async -> (status: Int, body: JSON) {
        await host.call(
            project: "demo-p", name: name, method: "POST", contentType: "application/json", body: Array(#"{"data":\#(data)}"#.utf8),
            auth: .success(nil), rawToken: nil, appCheck: nil)
    }

    @Test func discoversThroughTheAdminServerAndRegisters() async throws {
        let launcher = FakeLauncher(manifest: Self.manifest)
        let (host, codebase, transport) = try await boot(launcher, source: try Self.source())
        #expect(host.functions(project: "demo-p").map(\.name) == ["broken", "hello", "page"])
        #expect(host.resolve(project: "demo-p", region: "europe-west1", name: "page")?.trigger == .http)
        let admin = launcher.spawns.first { $0["kind"] == "admin" }
        #expect(admin?["env"]?["GCLOUD_PROJECT"] == "demo-p" && admin?["env"]?["FROM_DOTENV"] == "yes" && admin?["env"]?["FUNCTION_TARGET"] == nil)
        #expect(transport.requests.withLock { $0.map(\.1) } == ["/__/functions.yaml", "/__/quitquitquit"])
        #expect(host.codebaseStatuses(project: "demo-p").first?["state"] == "ready")
        codebase.stop()
        #expect(launcher.state.withLock { $0.stopped } && host.functions(project: "demo-p").isEmpty)
    }

    @Test func aCheckedInManifestSkipsTheAdminServer() async throws {
        let launcher = FakeLauncher(manifest: Self.manifest)
        let (host, codebase, transport) = try await boot(launcher, source: try Self.source(yaml: "endpoints: {}"))
        #expect(launcher.spawns.isEmpty && transport.requests.withLock { $0.isEmpty })
        #expect(launcher.state.withLock { $0.commands.first?["text"] } == "endpoints: {}")
        #expect(host.functions(project: "demo-p").count == 3)
        codebase.stop()
    }

    @Test func concurrentCallsShareOneProcessAndGetTheirOwnOutput() async throws {
        let launcher = FakeLauncher(manifest: Self.manifest, startDelay: 0.2)
        let (host, codebase, _) = try await boot(launcher, source: try Self.source())
        async let a = call(host, "hello")
        async let b = call(host, "hello")
        let (ra, rb) = await (a, b)
        #expect(ra.status == 200 && rb.status == 200 && ra.body["result"]?["port"] == rb.body["result"]?["port"])
        let functionSpawns = launcher.spawns.filter { $0["kind"] == "function" }
        #expect(functionSpawns.count == 1)
        #expect(functionSpawns.first?["env"]?["FUNCTION_TARGET"] == "hello" && functionSpawns.first?["env"]?["FUNCTION_SIGNATURE_TYPE"] == "http")
        let records = host.logs(project: "demo-p")
        #expect(records.count == 2 && records.allSatisfy { $0.logs == ["handling /"] && $0.outcome == "ok" })
        codebase.stop()
    }

    @Test func aProcessThatDiesBeforeStartingFailsItsCallersWithItsTraceback() async throws {
        let launcher = FakeLauncher(manifest: Self.manifest, failing: ["broken"])
        let (host, codebase, _) = try await boot(launcher, source: try Self.source())
        let r = await call(host, "broken")
        #expect(r.status == 503 && r.body["error"]?["status"] == "UNAVAILABLE")
        #expect(
            r.body["error"]?["message"] == "function broken failed to start (exit status 3):\nTraceback (most recent call last):\nImportError: nope")
        // The next call tries again with a new process; other functions are unaffected.
        _ = await call(host, "broken")
        #expect(launcher.spawns.filter { $0["env"]?["FUNCTION_TARGET"] == "broken" }.count == 2)
        #expect(await call(host, "hello").status == 200)
        codebase.stop()
    }

    @Test func aProcessThatEndsIsReplacedOnTheNextCall() async throws {
        let launcher = FakeLauncher(manifest: Self.manifest)
        let (host, codebase, _) = try await boot(launcher, source: try Self.source())
        let first = await call(host, "hello").body["result"]?["port"]
        let id = launcher.spawns.last?["id"]?.stringValue ?? ""
        launcher.emit(.exited(id: id, pid: 0, status: nil, signal: 9))
        let second = await call(host, "hello").body["result"]?["port"]
        #expect(first != nil && second != nil && first != second)
        #expect(launcher.spawns.filter { $0["kind"] == "function" }.count == 2)
        codebase.stop()
    }

    @Test func aProcessThatEndsBetweenPrepareAndTheCallIsStartedAgain() async throws {
        // The call uses the process `prepare` started while it runs; one that died meanwhile is
        // replaced rather than called.
        let launcher = FakeLauncher(manifest: Self.manifest)
        let (host, codebase, _) = try await boot(launcher, source: try Self.source())
        let endpoint = try #require(codebase.state.withLock { $0.functions["page"]?.endpoint })
        let backend = PythonBackend(codebase: codebase, endpoint: endpoint)
        try await backend.prepare(endpoint.definition)
        let prepared = try #require(launcher.spawns.last?["id"]?.stringValue)
        launcher.emit(.exited(id: prepared, pid: 0, status: nil, signal: 9))
        let r = try await backend.http(
            endpoint.definition, FunctionHTTPRequest(method: "GET", path: "/", headers: [], body: []), host.context("demo-p", LogBuffer()))
        #expect(r.status == 200)
        #expect(launcher.spawns.filter { $0["kind"] == "function" }.count == 2)
        codebase.stop()
    }

    @Test func httpFunctionsGetTheirPathAndHeadersWithoutHopByHop() async throws {
        let launcher = FakeLauncher(manifest: Self.manifest)
        let (host, codebase, transport) = try await boot(launcher, source: try Self.source())
        let r = await host.http(
            project: "demo-p", name: "page",
            request: FunctionHTTPRequest(
                method: "PUT", path: "/a/b?c=d",
                headers: [("Host", "x"), ("Connection", "keep-alive"), ("X-Mine", "1")], body: [1]))
        #expect(r.status == 200)
        let sent = transport.requests.withLock { $0.last }
        #expect(sent?.0 == "PUT" && sent?.1 == "/a/b?c=d" && sent?.3 == [1])
        #expect(sent?.2.map(\.0) == ["X-Mine", "X-Emulator-Invocation"])
        codebase.stop()
    }

    /// A manifest whose `slow` callable may run for 0.3 s.
    static let timedManifest: JSON = [
        "specVersion": "v1alpha1",
        "endpoints": ["slow": ["entryPoint": "slow", "platform": "gcfv2", "callableTrigger": [:], "timeoutSeconds": 0.3]],
    ]

    @Test func aTimedOutCallRetiresItsProcessSoTheNextCallGetsANewOne() async throws {
        // The killed process is reported exited only a second later, as a loaded machine may do;
        // the next call must not be sent to it meanwhile.
        let launcher = FakeLauncher(manifest: Self.timedManifest, exitDelay: 1)
        let (host, codebase, _) = try await boot(launcher, source: try Self.source())
        let first = await call(host, "slow")
        #expect(first.status == 200)
        let timedOut = await call(host, "slow", data: #""hang""#)
        #expect(timedOut.status == 504 && timedOut.body["error"]?["status"] == "DEADLINE_EXCEEDED")
        let next = await call(host, "slow")
        #expect(next.status == 200, "\(next.body)")
        #expect(next.body["result"]?["port"] != nil && next.body["result"]?["port"] != first.body["result"]?["port"])
        #expect(launcher.spawns.filter { $0["kind"] == "function" }.count == 2)
        codebase.stop()
    }

    @Test func aManifestTimeoutTooLargeForNanosecondsMeansNoTimeout() async throws {
        // `timeoutSeconds: 1e300` once trapped converting the timeout to nanoseconds.
        let manifest: JSON = [
            "specVersion": "v1alpha1",
            "endpoints": ["slow": ["entryPoint": "slow", "platform": "gcfv2", "callableTrigger": [:], "timeoutSeconds": 1e300]],
        ]
        let launcher = FakeLauncher(manifest: manifest)
        let (host, codebase, _) = try await boot(launcher, source: try Self.source())
        #expect(await call(host, "slow").status == 200)
        codebase.stop()
    }

    @Test func aProcessStartIsNotCountedAgainstTheFunctionsTimeout() async throws {
        // The start has its own limit (`startTimeoutSeconds`); the timeout is the function's own time.
        let launcher = FakeLauncher(manifest: Self.timedManifest, startDelay: 0.8)
        let (host, codebase, _) = try await boot(launcher, source: try Self.source())
        let r = await call(host, "slow")
        #expect(r.status == 200, "\(r.body)")
        codebase.stop()
    }
}
