import Dispatch
import EmulatorCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `emulator` command line (`start`, `exec`, `repair`, `--help`, `--version`).
public enum EmulatorCommand {
    /// Runs the command and exits the process with its status.
    public static func main(arguments: [String]) async -> Never {
        let code = await run(arguments: arguments)
        exit(code)
    }

    /// Runs the command and returns the exit status (2 for usage and configuration errors).
    public static func run(arguments: [String]) async -> Int32 {
        let options: CommandLineOptions
        var config = EmulatorConfig()
        do {
            options = try CommandLineOptions.parse(arguments)
            if let path = options.configPath { try ConfigLoader.load(path: path, into: &config) }
            try options.apply(to: &config)
        } catch {
            printError("emulator: \(error.description)")
            return 2
        }
        switch options.command {
        case .help:
            print(CommandLineOptions.usage, terminator: "")
            return 0
        case .version:
            print("emulator \(EmulatorVersion.current)")
            return 0
        case .start:
            return await start(config: config)
        case .exec(let command):
            return await ExecCommand.run(config: config, command: command)
        case .repair:
            return repair(dataDir: options.values["data-dir"] ?? "")
        }
    }

    /// Starts the emulator and serves until SIGINT/SIGTERM, then shuts down gracefully.
    static func start(config: EmulatorConfig) async -> Int32 {
        let logger = StderrLogger(threshold: config.logLevel)
        let signals = SignalWatcher.install()
        let runtime: EmulatorRuntime
        do {
            runtime = try await launch(config: config, logger: logger)
        } catch {
            return 2
        }
        let signal = await signals.wait()
        logger.log(.info, "emulator", "received \(signal), shutting down")
        await runtime.stop()
        logger.log(.info, "emulator", "stopped")
        return 0
    }

    /// `emulator repair --data-dir DIR`: prints what was cut and saved; 2 when it could not.
    static func repair(dataDir: String) -> Int32 {
        do {
            print(try DataDirectory.repair(path: dataDir), terminator: "")
            return 0
        } catch {
            printError("emulator: \(String(describing: error))")
            return 2
        }
    }

    /// Starts the runtime and prints the ready lines; errors are printed as one line.
    static func launch(config: EmulatorConfig, logger: any LogSink) async throws -> EmulatorRuntime {
        do {
            let runtime = try await EmulatorRuntime.start(config: config, logger: logger)
            printReady(runtime)
            return runtime
        } catch {
            printError("emulator: \(String(describing: error))")
            throw error
        }
    }

    /// One human line per service, then one machine-readable `emulator ready:` line.
    static func printReady(_ runtime: EmulatorRuntime) {
        var lines = ""
        for a in runtime.addresses {
            lines += "✔  \(a.name + String(repeating: " ", count: max(0, 10 - a.name.count))) http://\(runtime.hostPort(a))\n"
        }
        let pairs = runtime.addresses.map { "\($0.name)=\(runtime.hostPort($0))" }.joined(separator: " ")
        lines += "emulator ready: project=\(runtime.services.config.projectId) \(pairs)\n"
        printError(lines, newline: false)
    }
}

/// Writes to stderr in one call.
func printError(_ s: String, newline: Bool = true) {
    let text = newline ? s + "\n" : s
    _ = text.utf8CString.withUnsafeBufferPointer { p in write(2, p.baseAddress, p.count - 1) }
}
