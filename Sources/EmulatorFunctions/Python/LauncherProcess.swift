import Dispatch
import EmulatorCore

#if canImport(Glibc)
import Glibc
#endif

/// What a codebase's launcher reports (one JSON line each; see `PythonLauncherScript`).
public enum LauncherEvent: Sendable, Equatable {
    /// The launcher is up (`preloaded` modules imported in `milliseconds` when prefork is on).
    case ready(python: String, prefork: Bool, milliseconds: Int, missing: [String])
    /// A child was forked (`port`: the admin server's `ADMIN_PORT`).
    case spawned(id: String, pid: Int32, port: Int?)
    /// A function process bound its socket.
    case listening(id: String, port: Int)
    /// A function process imported the user's module and is about to serve.
    case started(id: String, port: Int)
    /// A line a child wrote.
    case output(id: String, stream: String, line: String)
    /// A child ended (exit status, or the signal that killed it).
    case exited(id: String, pid: Int32, status: Int?, signal: Int?)
    /// The answer to a `yaml` command.
    case yaml(id: String, json: JSON?, error: String?)
    /// A command failed.
    case failure(id: String?, message: String)
    /// The launcher itself ended (its children die with it).
    case closed(status: Int32)

    /// Decodes one line; nil for anything else (also a `pid` that is not a process id).
    public static func parse(_ line: String) -> LauncherEvent? {
        guard case .object(let o)? = try? JSON.parse(line), let ev = o["ev"]?.stringValue else { return nil }
        let id = o["id"]?.stringValue ?? ""
        guard let pid = Int32(exactly: o["pid"]?.intValue ?? 0), pid >= 0 else { return nil }
        let port = o["port"]?.intValue.map { Int($0) }
        switch ev {
        case "ready" where o["python"] != nil:
            let python: String = o["python"]?.stringValue ?? "?"
            let prefork: Bool = o["prefork"]?.boolValue ?? false
            let ms: Int64 = o["ms"]?.intValue ?? 0
            let missing: [JSON] = o["missing"]?.arrayValue ?? []
            return .ready(python: python, prefork: prefork, milliseconds: Int(ms), missing: missing.compactMap(\.stringValue))
        case "ready": return port.map { .started(id: id, port: $0) }
        case "spawned": return .spawned(id: id, pid: pid, port: port)
        case "listen": return port.map { .listening(id: id, port: $0) }
        case "out": return .output(id: id, stream: o["stream"]?.stringValue ?? "stdout", line: o["line"]?.stringValue ?? "")
        case "exit": return .exited(id: id, pid: pid, status: o["status"]?.intValue.map { Int($0) }, signal: o["signal"]?.intValue.map { Int($0) })
        case "yaml": return .yaml(id: id, json: o["json"], error: o["error"]?.stringValue)
        case "error": return .failure(id: o["id"]?.stringValue, message: o["error"]?.stringValue ?? "unknown error")
        default: return nil
        }
    }
}

/// The channel to a launcher: start it, send commands, stop it. The real one is
/// `LauncherProcess`; tests use fakes.
public protocol LauncherChannel: AnyObject, Sendable {
    /// Starts the launcher; `handler` gets every event in the order the launcher wrote them, and
    /// `closed` after the others.
    func start(_ handler: @escaping @Sendable (LauncherEvent) -> Void) throws
    /// Sends one command (`{"op": ...}`).
    func send(_ command: JSON)
    /// Asks the launcher to stop its children and exit; kills it after a grace period.
    func stop()
}

/// The launcher as a child process of the emulator: `<venv>/bin/python -c <script> launcher`,
/// a `ChildProcess` (started from the long-lived spawner thread, so its `PR_SET_PDEATHSIG` fires
/// only when the emulator dies). Commands go to its stdin, events come from its stdout (read on a
/// dedicated thread); its own stderr is logged. State is behind a `Mutex`.
public final class LauncherProcess: LauncherChannel {
    let python: String
    let workingDirectory: String
    let environment: [String: String]
    let prefork: Bool
    let logger: any LogSink
    let label: String
    private let process = Mutex<ChildProcess?>(nil)

    /// Describes a launcher to start with `start`.
    public init(python: String, workingDirectory: String, environment: [String: String], prefork: Bool, logger: any LogSink, label: String) {
        self.python = python
        self.workingDirectory = workingDirectory
        self.environment = environment
        self.prefork = prefork
        self.logger = logger
        self.label = label
    }

    public func start(_ handler: @escaping @Sendable (LauncherEvent) -> Void) throws {
        var env = environment
        env["EMULATOR_PARENT_PID"] = String(getpid())
        env["EMULATOR_PREFORK"] = prefork ? "1" : "0"
        let label = self.label, logger = self.logger
        let p = try ChildProcess.start(
            command: [python, "-c", PythonLauncherScript.source, "launcher"], environment: env,
            workingDirectory: workingDirectory, searchPath: false, input: .pipe, captureOutput: true,
            errorOutput: .capture
        ) { termination in
            // Let the reader drain the last events first (it ends at EOF, which comes no later).
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { handler(.closed(status: termination.status)) }
        }
        process.withLock { $0 = p }
        ChildProcess.forEachLine(of: { p.readOutput() }, name: "py-launcher-out") { line in
            if let ev = LauncherEvent.parse(line) {
                handler(ev)
            } else if !line.isEmpty {
                logger.log(.warning, "functions", "\(label): launcher: \(line)")
            }
        }
        ChildProcess.forEachLine(of: { p.readErrorOutput() }, name: "py-launcher-err") { line in
            if !line.isEmpty { logger.log(.warning, "functions", "\(label): launcher: \(line)") }
        }
    }

    public func send(_ command: JSON) {
        guard let p = process.withLock({ $0 }) else { return }
        var bytes = command.serializedBytes()
        bytes.append(10)
        // A launcher that died closes the pipe; the write then fails (the emulator ignores SIGPIPE)
        // and the `closed` event tells the owner.
        p.writeInput(bytes)
    }

    public func stop() {
        guard let p = process.withLock({ $0 }) else { return }
        p.writeInput(Array(#"{"op":"quit"}"#.utf8) + [10])
        p.closeInput()
        if p.waitUntilExit(timeoutSeconds: 5) == nil {
            p.sendToGroup(signal: SIGKILL)
            p.send(signal: SIGKILL)
            _ = p.waitUntilExit()
        }
    }
}
