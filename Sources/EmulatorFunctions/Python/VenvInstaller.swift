import Dispatch
import EmulatorCore
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// Creates a codebase's missing `venv` and installs `requirements.txt` into it (the Firebase CLI
/// fails instead), showing pip's progress line by line. A failed installation removes the
/// half-made venv, so the next start tries again. Stateless.
public enum VenvInstaller {
    /// Creates `<source>/venv` with `interpreter` (`python3.11`, falling back to `python3`) and
    /// runs `pip install -r requirements.txt`. Throws with the failing step's last lines.
    public static func install(source: String, interpreter: String, environment: [String: String], log: @escaping @Sendable (String) -> Void) throws {
        let venv = source + "/venv"
        let python = findExecutable(interpreter, environment["PATH"]) ?? findExecutable("python3", environment["PATH"])
        guard let python else { throw HttpsError(.failedPrecondition, "cannot create \(venv): neither \(interpreter) nor python3 is on PATH") }
        log("creating \(venv) with \(python)")
        do {
            try run([python, "-m", "venv", venv], cwd: source, environment: environment, log: log)
            try run(
                [venv + "/bin/python", "-m", "pip", "install", "--disable-pip-version-check", "--progress-bar", "off", "-r", "requirements.txt"],
                cwd: source, environment: environment, log: log)
        } catch {
            try? FileManager.default.removeItem(atPath: venv)
            throw error
        }
        log("installed requirements.txt into \(venv)")
    }

    /// The first executable `name` on `path`.
    static func findExecutable(_ name: String, _ path: String?) -> String? {
        if name.contains("/") { return access(name, X_OK) == 0 ? name : nil }
        for dir in (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(dir)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// Runs one step, passing each output line (stdout and stderr) to `log`; throws with the last
    /// lines on failure. Its standard input is `/dev/null`, so a prompt cannot hang the install.
    static func run(_ argv: [String], cwd: String, environment: [String: String], log: @escaping @Sendable (String) -> Void) throws {
        var env = environment
        env["VIRTUAL_ENV"] = nil
        env["PYTHONHOME"] = nil
        let p = try ChildProcess.start(
            command: argv, environment: env, workingDirectory: cwd, searchPath: false, input: .nullDevice,
            captureOutput: true, errorOutput: .output)
        let tail = Mutex<[String]>([])
        let drained = DispatchSemaphore(value: 0)
        ChildProcess.forEachLine(of: { p.readOutput() }, name: "venv-install", atEnd: { drained.signal() }) { line in
            if line.isEmpty { return }
            log(line)
            tail.withLock { t in
                t.append(line)
                if t.count > 20 { t.removeFirst() }
            }
        }
        let termination = p.waitUntilExit()
        // The last lines, for the error; a grandchild that keeps the pipe open must not hold the
        // install up, so only a short wait after the exit.
        _ = drained.wait(timeout: .now() + 2)
        guard termination == .exited(0) else {
            let last = tail.withLock { $0 }.joined(separator: "\n")
            throw HttpsError(.failedPrecondition, "\(argv.prefix(4).joined(separator: " ")) failed (exit status \(termination.status)):\n\(last)")
        }
    }
}
