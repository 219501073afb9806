import EmulatorCore
import EmulatorFunctions
import FoundationEssentials

/// `emulator exec [flags] -- CMD [ARGS...]`: start, run CMD with the emulator's environment,
/// stop, and exit with CMD's status (127 when CMD cannot be started, 128+N when killed by signal N).
enum ExecCommand {
    static func run(config: EmulatorConfig, command: [String]) async -> Int32 {
        let logger = StderrLogger(threshold: config.logLevel)
        let runtime: EmulatorRuntime
        do {
            runtime = try await EmulatorCommand.launch(config: config, logger: logger)
        } catch {
            return 2
        }
        var env = ProcessInfo.processInfo.environment
        for (k, v) in runtime.clientEnvironment { env[k] = v }
        let status: Int32
        do {
            let process = try ChildProcess.start(command: command, environment: env)
            status = await process.termination().status
        } catch {
            printError("emulator: \(error)")
            status = 127
        }
        await runtime.stop()
        return status
    }
}
