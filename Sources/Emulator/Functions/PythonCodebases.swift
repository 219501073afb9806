import EmulatorCore
import EmulatorFunctions
import FoundationEssentials

/// Starts the Python codebases of `functions.codebases` (entries with a `source`), each with the
/// environment the Firebase CLI gives its functions: the emulator hosts, the project, dummy
/// credentials. A source that is not a Python codebase is reported and skipped.
enum PythonCodebases {
    /// The supervisors, started (they boot in the background; see `waitUntilSettled`).
    static func start(
        config: EmulatorConfig, services: EmulatorServices, addresses: [ServiceAddress], hostPort: (ServiceAddress) -> String,
        credentials: DummyCredentials
    ) throws -> [PythonCodebase] {
        let entries = (config.functions["codebases"]?.arrayValue ?? []).filter { $0["source"] != nil && $0["command"] == nil }
        guard !entries.isEmpty else { return [] }
        let logger = services.logger
        func hp(_ name: String) -> String? { addresses.first { $0.name == name }.map(hostPort) }
        var hosts: [String: String] = [:]
        hosts["FIREBASE_AUTH_EMULATOR_HOST"] = hp("auth")
        hosts["FIRESTORE_EMULATOR_HOST"] = hp("firestore")
        hosts["FIREBASE_FIRESTORE_EMULATOR_ADDRESS"] = hp("firestore")
        hosts["FIREBASE_EMULATOR_HUB"] = hp("hub")
        hosts["CLOUD_TASKS_EMULATOR_HOST"] = hp("functions")
        hosts["PUBSUB_EMULATOR_HOST"] = hp("pubsub")
        let install = config.functions["installDependencies"]?.boolValue ?? true
        var out: [PythonCodebase] = []
        var names = Set<String>()
        for entry in entries {
            var cb: PythonCodebaseConfig
            do { cb = try PythonCodebaseConfig(json: entry) } catch let e as HttpsError { throw CLIError("config: \(e.message)") }
            guard names.insert(cb.name).inserted else { throw CLIError("config: functions codebase '\(cb.name)' is configured twice") }
            if entry["installDependencies"] == nil { cb.installDependencies = install }
            var isDir = false
            guard FileManager.default.fileExists(atPath: cb.source, isDirectory: &isDir), isDir else {
                logger.log(.error, "functions", "functions[\(cb.name)]: source folder \(cb.source) does not exist; codebase skipped")
                continue
            }
            guard FileManager.default.fileExists(atPath: cb.source + "/requirements.txt") else {
                let node = FileManager.default.fileExists(atPath: cb.source + "/package.json")
                logger.log(
                    .warning, "functions",
                    "functions[\(cb.name)]: \(cb.source) has no requirements.txt, so it is not a Python codebase"
                        + (node ? " (Node.js codebases cannot run here yet)" : "") + "; codebase skipped")
                continue
            }
            let project = cb.project ?? config.projectId
            var env = FunctionEnvironment(inherited: ProcessInfo.processInfo.environment, project: project, venv: cb.venv)
            env.emulatorHosts = hosts
            if cb.verifyIdTokens { env.controls["EMULATOR_VERIFY_ID_TOKENS"] = "1" }
            if let t = config.adminToken { env.controls["EMULATOR_ADMIN_TOKEN"] = t }
            env.credentialsPath = try credentials.file(project: project, emulator: hp("functions") ?? "127.0.0.1")
            let codebase = PythonCodebase(
                config: cb, project: project, host: services.functions, transport: HTTPWorkerTransport(),
                environment: env, logger: logger, documentEncoder: services.documentEventEncoder)
            codebase.start()
            out.append(codebase)
        }
        return out
    }
}
