import EmulatorCore
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

extension PythonCodebase {
    /// The manifest: `<source>/functions.yaml` when checked in, else the SDK's admin server's.
    func discover() async throws -> FunctionManifest {
        let text: String
        if let data = FileManager.default.contents(atPath: config.source + "/functions.yaml") {
            text = String(decoding: data, as: UTF8.self)
        } else {
            text = try await runAdminServer()
        }
        let json = try await yamlToJSON(text)
        do { return try FunctionManifest(json: json) } catch let e as HttpsError {
            throw HttpsError(.invalidArgument, "the functions manifest is not valid: \(e.message)")
        }
    }

    /// Runs `python -m firebase_functions.private.serving` with `ADMIN_PORT`, reads
    /// `/__/functions.yaml`, then `/__/quitquitquit`. A failed import is reported with its traceback.
    func runAdminServer() async throws -> String {
        let (launcher, id, env) = state.withLock { s -> ((any LauncherChannel)?, String, [String: String]) in
            s.counter += 1
            let id = "admin#\(s.counter)"
            s.spawns[id] = Spawn(function: nil)
            return (s.launcher, id, s.environment.common)
        }
        guard let launcher else { throw HttpsError(.unavailable, "the launcher is not running") }
        launcher.send([
            "op": "spawn", "id": .string(id), "kind": "admin", "cwd": .string(config.source), "env": .object(env.mapValues { .string($0) }),
        ])
        defer {
            // It exits by itself after quitquitquit; make sure of it.
            Task.detached { [self] in
                try? await Task.sleep(nanoseconds: 3_000_000_000)
                if state.withLock({ $0.spawns[id]?.exit == nil }) { signal(id, SIGKILL) }
            }
        }
        let deadline = MonotonicClock.deadline(afterSeconds: config.startTimeoutSeconds)
        while MonotonicClock.nanoseconds() < deadline {
            let (port, exit, tail) = state.withLock { s in (s.spawns[id]?.adminPort, s.spawns[id]?.exit, s.spawns[id]?.tail ?? []) }
            if let exit { throw HttpsError(.failedPrecondition, "the SDK's admin server ended before answering (\(exit)):\n" + Self.traceback(tail)) }
            if let port, let r = try? await transport.send(port: port, method: "GET", path: "/__/functions.yaml", headers: [], body: [], timeout: 30)
            {
                if r.status == 200 {
                    _ = try? await transport.send(port: port, method: "GET", path: "/__/quitquitquit", headers: [], body: [], timeout: 5)
                    transport.forget(port: port)
                    return String(decoding: r.body, as: UTF8.self)
                }
                // The traceback is logged before the answer and the access line after it.
                for _ in 0..<100 {
                    if state.withLock({ ($0.spawns[id]?.tail ?? []).contains { $0.contains("GET /__/functions.yaml") } }) { break }
                    try? await Task.sleep(nanoseconds: 10_000_000)
                }
                _ = try? await transport.send(port: port, method: "GET", path: "/__/quitquitquit", headers: [], body: [], timeout: 5)
                transport.forget(port: port)
                let tail = state.withLock { $0.spawns[id]?.tail ?? [] }
                throw HttpsError(
                    .failedPrecondition, "main.py failed to load (the SDK's admin server answered \(r.status)):\n" + Self.traceback(tail))
            }
            try? await Task.sleep(nanoseconds: 30_000_000)
        }
        throw HttpsError(.deadlineExceeded, "the SDK's admin server did not answer within \(Int(config.startTimeoutSeconds)) s")
    }

    /// The last Python traceback in `lines` (without the web server's access lines), or all lines.
    static func traceback(_ lines: [String]) -> String {
        guard let start = lines.lastIndex(where: { $0.hasPrefix("Traceback (most recent call last)") }) else {
            return lines.suffix(30).joined(separator: "\n")
        }
        let rest = lines[start...].prefix { !($0.hasPrefix("127.0.0.1 - - [") || $0.contains("\"GET /__/")) }
        return rest.joined(separator: "\n")
    }

    /// Converts YAML to JSON with the venv's own PyYAML (through the launcher).
    func yamlToJSON(_ text: String) async throws -> JSON {
        let (launcher, id) = state.withLock { s -> ((any LauncherChannel)?, String) in
            s.counter += 1
            return (s.launcher, "yaml#\(s.counter)")
        }
        guard let launcher else { throw HttpsError(.unavailable, "the launcher is not running") }
        launcher.send(["op": "yaml", "id": .string(id), "text": .string(text)])
        let deadline = MonotonicClock.nanoseconds() + 10_000_000_000
        while MonotonicClock.nanoseconds() < deadline {
            if let r = state.withLock({ $0.yaml.removeValue(forKey: id) }) {
                switch r {
                case .success(let j): return j
                case .failure(let e): throw HttpsError(.invalidArgument, "functions.yaml is not valid YAML: \(e.message)")
                }
            }
            try? await Task.sleep(nanoseconds: 2_000_000)
        }
        throw HttpsError(.deadlineExceeded, "PyYAML did not answer within 10 s")
    }
}
