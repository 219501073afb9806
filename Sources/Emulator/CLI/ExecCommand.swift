import EmulatorCore
import EmulatorFunctions
import Foundation

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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        var env = ProcessInfo.processInfo.environment
        for (k, v) in runtime.clientEnvironment { env[k] = v }
        process.environment = env
        let status: Int32
        do {
            try ProcessLauncher.run(process)
            status = await withCheckedContinuation { cont in
                DispatchQueue.global().async {
                    process.waitUntilExit()
                    let code = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
                    cont.resume(returning: code)
                }
            }
        } catch {
            printError("emulator: cannot run '\(command[0])': \(error.localizedDescription)")
            status = 127
        }
        await runtime.stop()
        return status
    }
}
