import EmulatorCore

/// What the command line asked for, before it is merged with the config file.
public struct CommandLineOptions: Equatable {
    /// The sub-command.
    public enum Command: Equatable {
        /// Run until interrupted.
        case start
        /// Start, run a command with the emulator's environment, stop, exit with its code.
        case exec([String])
        /// Print usage.
        case help
        /// Print the version.
        case version
        /// Cut damaged journals of `--data-dir` at their last intact record (`DataDirectory.repair`).
        case repair
    }

    /// The sub-command.
    public var command: Command = .help
    /// `--config PATH`.
    public var configPath: String?
    /// Flag values by canonical flag name (`project`, `port`, `auth-port`, ...).
    public var values: [String: String] = [:]

    /// Flags that take a value, in help order.
    public static let valueFlags: [(name: String, help: String)] = [
        ("config", "PATH  emulator.json or firebase.json (default: built-in settings)"),
        ("project", "ID  default project (demo-project)"),
        ("host", "HOST  address to bind (127.0.0.1); non-loopback needs --admin-token"),
        ("port", "N  serve every API on this one port (0 = ephemeral)"),
        ("auth-port", "N  Auth port (9099)"),
        ("firestore-port", "N  Firestore port (8080)"),
        ("functions-port", "N  Functions port (5001)"),
        ("hub-port", "N  hub/admin port (4400)"),
        ("storage-port", "N  Storage port (9199)"),
        ("pubsub-port", "N  Pub/Sub port (8085)"),
        ("rules", "PATH  Firestore security rules file"),
        ("indexes", "PATH  Firestore index file (firestore.indexes.json) for enforcement and suggestions"),
        ("storage-rules", "PATH  Storage security rules file (service firebase.storage)"),
        ("log-level", "LEVEL  debug|info|warning|error (info)"),
        ("admin-token", "TOKEN  require 'Authorization: Bearer TOKEN' on /emulator/v1/* (and in the UI)"),
        ("allowed-host", "NAMES  extra Host names to answer (comma-separated; .domain = with subdomains)"),
        ("allowed-origin", "ORIGINS  browser origins trusted like the UI (comma-separated scheme://host:port)"),
        ("data-dir", "DIR  keep data durably in DIR"),
        ("import", "DIR  import an export at start"),
        ("export-on-exit", "DIR  export on clean exit"),
        ("functions-install", "auto|never  create a Python codebase's missing venv (auto)"),
        ("functions-schedules", "manual|clock  run scheduled functions on their schedule (manual)"),
        ("max-connections", "N  connections open at once; more are answered 503 (1024)"),
        ("max-streams-per-connection", "N  HTTP/2 streams open at once per connection (1000)"),
        ("event-loops", "N  event-loop threads, 1 to 8 (1; more pay with cores to spare)"),
    ]

    /// Flags without a value (`--strict-indexes`), in help order.
    public static let booleanFlags: [(name: String, help: String)] = [
        ("strict-indexes", "refuse queries that need an index the index file lacks, as production does")
    ]

    /// Parses `arguments` (without the program name). Accepts `--flag value` and `--flag=value`.
    public static func parse(_ arguments: [String]) throws(CLIError) -> CommandLineOptions {
        var o = CommandLineOptions()
        var args = arguments[...]
        guard let first = args.first else { return o }
        switch first {
        case "start":
            o.command = .start
            args = args.dropFirst()
        case "exec":
            o.command = .exec([])
            args = args.dropFirst()
        case "help", "--help", "-h":
            o.command = .help
            return o
        case "--version", "version":
            o.command = .version
            return o
        case "repair":
            o.command = .repair
            args = args.dropFirst()
        default:
            if first.hasPrefix("-") {
                o.command = .start
            } else {
                throw CLIError("unknown command '\(first)' (expected start, exec, help or --version)")
            }
        }
        while let arg = args.first {
            args = args.dropFirst()
            if arg == "--" {
                guard case .exec = o.command else { throw CLIError("'--' is only valid with 'exec'") }
                guard !args.isEmpty else { throw CLIError("exec needs a command after '--'") }
                o.command = .exec(Array(args))
                return o
            }
            if arg == "--help" || arg == "-h" {
                o.command = .help
                return o
            }
            if arg == "--version" {
                o.command = .version
                return o
            }
            guard arg.hasPrefix("--") else {
                if case .exec = o.command { throw CLIError("exec runs the command after '--': emulator exec [flags] -- \(arg) ...") }
                throw CLIError("unexpected argument '\(arg)'")
            }
            var name = String(arg.dropFirst(2))
            var value: String?
            if let eq = name.firstIndex(of: "=") {
                value = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            if booleanFlags.contains(where: { $0.name == name }) {
                guard value == nil || value == "true" || value == "false" else { throw CLIError("flag '--\(name)' takes no value (or =true/=false)") }
                o.values[name] = value ?? "true"
                continue
            }
            guard valueFlags.contains(where: { $0.name == name }) else { throw CLIError("unknown flag '--\(name)' (see --help)") }
            if value == nil {
                guard let next = args.first, !next.hasPrefix("--") else { throw CLIError("flag '--\(name)' needs a value") }
                value = next
                args = args.dropFirst()
            }
            if name == "config" { o.configPath = value } else { o.values[name] = value }
        }
        if case .exec(let cmd) = o.command, cmd.isEmpty { throw CLIError("exec needs a command after '--': emulator exec [flags] -- CMD [ARGS...]") }
        if o.command == .repair, o.values["data-dir"] == nil { throw CLIError("repair needs the folder: emulator repair --data-dir DIR") }
        return o
    }

    /// Applies the flags on top of `config` (flags override the config file).
    public func apply(to config: inout EmulatorConfig) throws(CLIError) {
        func port(_ flag: String) throws(CLIError) -> Int? {
            guard let v = values[flag] else { return nil }
            guard let n = Int(v), (0...65535).contains(n) else { throw CLIError("--\(flag) must be a port number 0-65535, got '\(v)'") }
            return n
        }
        if let v = values["project"] {
            if let problem = ResourceId.projectProblem(v) {
                throw CLIError(
                    "--project '\(ResourceId.shown(v))' is not a valid project id: \(problem) (1-\(ResourceId.maxProjectLength) lowercase letters, digits and hyphens, starting with a letter or digit)"
                )
            }
            config.projectId = v
        }
        if let v = values["host"] { config.host = v }
        if let p = try port("port") { config.singlePort = p }
        for service in ["auth", "firestore", "functions", "hub", "storage", "pubsub"] {
            if let p = try port("\(service)-port") {
                config.ports[service] = p
                if values["port"] == nil { config.singlePort = nil }
            }
        }
        if let v = values["rules"] { config.rulesPath = ConfigLoader.absolute(v) }
        if let v = values["indexes"] { config.indexesPath = ConfigLoader.absolute(v) }
        if let v = values["strict-indexes"] { config.strictIndexes = v == "true" }
        if let v = values["storage-rules"] { config.storageRulesPath = ConfigLoader.absolute(v) }
        if let v = values["log-level"] {
            guard let l = LogLevel(name: v) else { throw CLIError("--log-level must be debug, info, warning or error, got '\(v)'") }
            config.logLevel = l
        }
        if let v = values["admin-token"] { config.adminToken = v }
        func list(_ v: String) -> [String] { v.split(separator: ",").map { String($0).trimming(" \t") }.filter { !$0.isEmpty } }
        if let v = values["allowed-host"] {
            config.allowedHosts = try list(v).map { h throws(CLIError) in try ConfigLoader.validateAllowedHost(h, "--allowed-host") }
        }
        if let v = values["allowed-origin"] {
            config.allowedOrigins = try list(v).map { o throws(CLIError) in try ConfigLoader.validateAllowedOrigin(o, "--allowed-origin") }
        }
        if let v = values["data-dir"] { config.dataDir = ConfigLoader.absolute(v) }
        if let v = values["import"] { config.importDir = ConfigLoader.absolute(v) }
        if let v = values["export-on-exit"] { config.exportOnExit = ConfigLoader.absolute(v) }
        for (flag, key) in [
            ("max-connections", "maxConnections"), ("max-streams-per-connection", "maxStreamsPerConnection"), ("event-loops", "eventLoops"),
        ] {
            guard let v = values[flag] else { continue }
            let range = EmulatorConfig.Limits.ranges[key] ?? 1...1
            guard let n = Int(v), range.contains(n) else {
                throw CLIError("--\(flag) must be an integer from \(range.lowerBound) to \(range.upperBound), got '\(v)'")
            }
            switch key {
            case "maxConnections": config.limits.maxConnections = n
            case "maxStreamsPerConnection": config.limits.maxStreamsPerConnection = n
            default: config.limits.eventLoops = n
            }
        }
        var functions = config.functions.objectValue ?? [:]
        if let v = values["functions-install"] {
            guard v == "auto" || v == "never" else { throw CLIError("--functions-install must be auto or never, got '\(v)'") }
            functions["installDependencies"] = .bool(v == "auto")
        }
        if let v = values["functions-schedules"] {
            guard v == "manual" || v == "clock" else { throw CLIError("--functions-schedules must be manual or clock, got '\(v)'") }
            functions["runSchedules"] = .bool(v == "clock")
        }
        config.functions = .object(functions)
    }

    /// The usage text.
    public static var usage: String {
        var s = """
            emulator \(EmulatorVersion.current): local Firebase-style Auth, Firestore and Functions emulator

            Usage:
              emulator start [flags]              run until Ctrl-C
              emulator exec [flags] -- CMD [ARGS]  start, run CMD with FIREBASE_AUTH_EMULATOR_HOST,
                                                  FIRESTORE_EMULATOR_HOST, FIREBASE_EMULATOR_HUB,
                                                  STORAGE_EMULATOR_HOST, PUBSUB_EMULATOR_HOST,
                                                  GCLOUD_PROJECT set, stop,
                                                  exit with CMD's code
              emulator repair --data-dir DIR      cut damaged journals at their last intact record,
                                                  saving the rest beside them (docs/robustness.md)
              emulator --version | --help

            Flags:

            """
        for f in valueFlags {
            let parts = f.help.split(separator: " ", maxSplits: 1)
            let left = "  --\(f.name) \(parts[0])"
            s += left + String(repeating: " ", count: max(0, 36 - left.count)) + (parts.count > 1 ? String(parts[1]).trimming(" \t") : "") + "\n"
        }
        for f in booleanFlags {
            let left = "  --\(f.name)"
            s += left + String(repeating: " ", count: max(0, 36 - left.count)) + f.help + "\n"
        }
        return s
    }
}
