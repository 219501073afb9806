import Foundation
import Testing

@testable import Emulator

@Suite struct CommandLineTests {
    @Test func parsesStartFlagsInBothForms() throws {
        let o = try CommandLineOptions.parse(["start", "--project", "p1", "--port=0", "--log-level", "debug"])
        #expect(o.command == .start)
        var c = EmulatorConfig()
        try o.apply(to: &c)
        #expect(c.projectId == "p1")
        #expect(c.singlePort == 0)
        #expect(c.logLevel == .debug)
    }

    @Test func parsesExecCommand() throws {
        let o = try CommandLineOptions.parse(["exec", "--port", "0", "--", "sh", "-c", "exit 3"])
        #expect(o.command == .exec(["sh", "-c", "exit 3"]))
    }

    @Test(arguments: [
        (["start", "--bogus"], "unknown flag '--bogus' (see --help)"),
        (["start", "--port"], "flag '--port' needs a value"),
        (["frobnicate"], "unknown command 'frobnicate' (expected start, exec, help or --version)"),
        (["exec", "--port", "0"], "exec needs a command after '--': emulator exec [flags] -- CMD [ARGS...]"),
        (["start", "--", "ls"], "'--' is only valid with 'exec'"),
    ])
    func badFlagsNameTheProblem(args: [String], message: String) {
        #expect(throws: CLIError(message)) { try CommandLineOptions.parse(args) }
    }

    @Test(arguments: [
        (["--port", "70000"], "--port must be a port number 0-65535, got '70000'"),
        (["--auth-port", "x"], "--auth-port must be a port number 0-65535, got 'x'"),
        (["--log-level", "loud"], "--log-level must be debug, info, warning or error, got 'loud'"),
        (
            ["--project", "a/b"],
            "--project 'a/b' is not a valid project id: it contains '/' (1-100 lowercase letters, digits and hyphens, starting with a letter or digit)"
        ),
    ])
    func badValuesNameTheProblem(args: [String], message: String) throws {
        let o = try CommandLineOptions.parse(["start"] + args)
        var c = EmulatorConfig()
        #expect(throws: CLIError(message)) { try o.apply(to: &c) }
    }

    @Test func badFlagsExitWithCode2() async {
        #expect(await EmulatorCommand.run(arguments: ["start", "--nope"]) == 2)
        #expect(await EmulatorCommand.run(arguments: ["start", "--config", "/nonexistent/emulator.json"]) == 2)
    }

    @Test func helpAndVersionExitZero() async {
        #expect(await EmulatorCommand.run(arguments: ["--version"]) == 0)
        #expect(CommandLineOptions.usage.contains("--firestore-port"))
    }

    @Test func flagsOverrideTheConfigFile() throws {
        let dir = try TempDir()
        let path = try dir.write("emulator.json", #"{"project": "from-file", "port": 7000, "rules": "r.rules"}"#)
        var c = EmulatorConfig()
        try ConfigLoader.load(path: path, into: &c)
        #expect(c.projectId == "from-file")
        #expect(c.rulesPath == dir.path + "/r.rules")
        try CommandLineOptions.parse(["start", "--port", "0"]).apply(to: &c)
        #expect(c.singlePort == 0)
        #expect(c.projectId == "from-file")
    }
}

@Suite struct ConfigLoaderTests {
    @Test func loadsFirebaseJSONAndFirebaserc() throws {
        let dir = try TempDir()
        let path = try dir.write(
            "firebase.json",
            """
            {"emulators": {"auth": {"port": 9199}, "firestore": {"host": "127.0.0.1", "port": "8181"}, "ui": {"enabled": true}},
             "firestore": {"rules": "firestore.rules"}}
            """)
        _ = try dir.write(".firebaserc", #"{"projects": {"default": "my-app"}}"#)
        var c = EmulatorConfig()
        try ConfigLoader.load(path: path, into: &c)
        #expect(c.ports["auth"] == 9199)
        #expect(c.ports["firestore"] == 8181)
        #expect(c.ports["functions"] == 5001)
        #expect(c.rulesPath == dir.path + "/firestore.rules")
        #expect(c.projectId == "my-app")
    }

    @Test func firebaseJSONWithDatabaseArrayTakesFirstRules() throws {
        let dir = try TempDir()
        let path = try dir.write(
            "firebase.json", #"{"firestore": [{"database": "(default)", "rules": "a.rules"}, {"database": "x", "rules": "b.rules"}]}"#)
        var c = EmulatorConfig()
        try ConfigLoader.load(path: path, into: &c)
        #expect(c.rulesPath == dir.path + "/a.rules")
    }

    @Test func firebaseJSONStorageTargetsBecomePerBucketRules() throws {
        let dir = try TempDir()
        let path = try dir.write(
            "firebase.json",
            #"{"storage": [{"bucket": "my-app.appspot.com", "rules": "private.rules"}, {"target": "assets", "rules": "public.rules"}]}"#)
        _ = try dir.write(".firebaserc", #"{"projects": {"default": "my-app"}, "targets": {"my-app": {"storage": {"assets": ["a1", "a2"]}}}}"#)
        var c = EmulatorConfig()
        try ConfigLoader.load(path: path, into: &c)
        #expect(
            c.storageBucketRulesPaths == [
                "my-app.appspot.com": dir.path + "/private.rules", "a1": dir.path + "/public.rules", "a2": dir.path + "/public.rules",
            ])
        #expect(c.storageRulesPath == nil)
        for (bad, fragment) in [
            (#"{"storage": [{"target": "nowhere", "rules": "x.rules"}]}"#, "Storage target 'nowhere' is not configured in .firebaserc"),
            (#"{"storage": [{"rules": "x.rules"}]}"#, "'storage[0]' needs 'bucket' or 'target'"),
            (#"{"storage": [{"bucket": "b"}]}"#, "'storage[0]' needs 'rules'"),
        ] {
            let p = try dir.write("firebase.json", bad)
            var cc = EmulatorConfig()
            do {
                try ConfigLoader.load(path: p, into: &cc)
                Issue.record("expected an error for \(bad)")
            } catch {
                #expect(error.description.contains(fragment), "\(error.description)")
            }
        }
    }

    @Test(arguments: [
        (#"{"prot": 1}"#, "unknown key 'prot'"),
        (#"{"port": "x"}"#, "'port' must be a port number 0-65535"),
        (#"{"ports": {"hosting": 5000}}"#, "unknown service 'hosting' in 'ports'"),
        (#"{"logLevel": 3}"#, "'logLevel' must be a string, got number"),
        (#"{"auth": []}"#, "'auth' must be an object"),
        ("{", "is not valid JSON"),
        ("[]", "must hold a JSON object"),
    ])
    func badConfigFilesNameTheProblem(text: String, fragment: String) throws {
        let dir = try TempDir()
        let path = try dir.write("emulator.json", text)
        var c = EmulatorConfig()
        do {
            try ConfigLoader.load(path: path, into: &c)
            Issue.record("expected an error for \(text)")
        } catch {
            #expect(error.description.contains(fragment), "\(error.description)")
            #expect(error.description.contains(path))
        }
    }

    @Test func firebaseJSONFunctionsBecomeCodebasesWithResolvedSources() throws {
        let dir = try TempDir()
        let one = try dir.write("firebase.json", #"{"functions": {"runtime": "python311", "ignore": ["venv", 3]}}"#)
        var c = EmulatorConfig()
        try ConfigLoader.load(path: one, into: &c)
        #expect(
            c.functions == [
                "codebases": [["name": "default", "source": .string(dir.path + "/functions"), "runtime": "python311", "ignore": ["venv"]]]
            ])
        let two = try dir.write("firebase.json", #"{"functions": [{"source": "a", "codebase": "one"}, {"source": "/abs/b", "codebase": "two"}]}"#)
        c = EmulatorConfig()
        try ConfigLoader.load(path: two, into: &c)
        #expect(c.functions["codebases"]?.arrayValue?.map { $0["source"] } == [.string(dir.path + "/a"), "/abs/b"])
        for bad in [#"{"functions": 3}"#, #"{"functions": [1]}"#, #"{"functions": [{"source": "a"}, {"source": "b"}]}"#] {
            let path = try dir.write("firebase.json", bad)
            var cc = EmulatorConfig()
            #expect(throws: CLIError.self, "\(bad)") { try ConfigLoader.load(path: path, into: &cc) }
        }
    }

    @Test func emulatorJSONCodebaseSourcesResolveAgainstTheFile() throws {
        let dir = try TempDir()
        let path = try dir.write("emulator.json", #"{"functions": {"codebases": [{"name": "py", "source": "functions-python", "prefork": false}]}}"#)
        var c = EmulatorConfig()
        try ConfigLoader.load(path: path, into: &c)
        #expect(c.functions["codebases"]?.arrayValue?.first?["source"] == .string(dir.path + "/functions-python"))
        try CommandLineOptions.parse(["start", "--functions-install", "never", "--functions-schedules", "clock"]).apply(to: &c)
        #expect(c.functions["installDependencies"] == false && c.functions["runSchedules"] == true)
        #expect(throws: CLIError.self) { try CommandLineOptions.parse(["start", "--functions-install", "sometimes"]).apply(to: &c) }
        #expect(throws: CLIError.self) { try CommandLineOptions.parse(["start", "--functions-schedules", "cron"]).apply(to: &c) }
    }

    @Test func shippedDefaultConfigLoads() throws {
        var c = EmulatorConfig()
        try ConfigLoader.load(path: packageRoot() + "/config/emulator.json", into: &c)
        #expect(c.projectId == "demo-project")
        #expect(c.ports == EmulatorConfig().ports)
    }
}

/// A temporary directory removed when the value is deinitialised.
final class TempDir {
    let path: String
    init() throws {
        path = NSTemporaryDirectory() + "emulator-test-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    func write(_ name: String, _ text: String) throws -> String {
        let p = path + "/" + name
        try text.write(toFile: p, atomically: true, encoding: .utf8)
        return p
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// The package root, found from this source file's location.
func packageRoot(file: String = #filePath) -> String {
    var url = URL(fileURLWithPath: file)
    while url.path != "/" {
        url.deleteLastPathComponent()
        if FileManager.default.fileExists(atPath: url.path + "/Package.swift") { return url.path }
    }
    return FileManager.default.currentDirectoryPath
}
