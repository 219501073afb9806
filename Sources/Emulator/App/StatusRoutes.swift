import EmulatorCore
import EmulatorHTTP

/// `GET /` (the UI for a browser that prefers HTML, else a JSON pointer to the status),
/// `GET /emulator/v1/status` and the hub's `GET /emulators`.
enum StatusRoutes {
    static func register(_ r: inout Router, _ s: EmulatorServices) {
        r.get("/") { req, _ in
            if UIRoutes.prefersHTML(req.headers["Accept"]) { return UIRoutes.shell(req) }
            return .json([
                "name": "firebase-style emulator", "version": .string(EmulatorVersion.current),
                "project": .string(s.config.projectId), "status": "/emulator/v1/status", "ui": "/ui/",
            ])
        }
        // `?wait=functions[&timeoutMs=N]` holds the answer until every functions codebase has
        // settled (ready or failed: no install or discovery running), then answers as usual; 503
        // with the states when `timeoutMs` (default 60,000, at most 900,000) passes first.
        r.get("/emulator/v1/status") { req, _ in
            req.query("wait") == nil ? .json(bytes: cachedStatusBody(s)) : nil
        } _: { req, _ in
            if let wait = req.query("wait") {
                guard wait == "functions" else { throw EmulatorError.invalidArgument("wait must be 'functions', got '\(wait)'.") }
                let timeout = try req.intQuery("timeoutMs", in: 0...900_000, default: 60_000)
                let deadline = ContinuousClock.now + .milliseconds(timeout)
                while !s.functions.codebasesSettled && ContinuousClock.now < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
                if !s.functions.codebasesSettled {
                    var r = HTTPResponse.json(bytes: cachedStatusBody(s))
                    r.status = 503
                    return r
                }
            }
            return .json(bytes: cachedStatusBody(s))
        }
        r.get("/emulators") { _, _ in
            .json(
                .object(
                    s.directory.addresses.mapValues { a in
                        [
                            "name": .string(a.name), "host": .string(a.host), "port": .int(Int64(a.port)),
                            "listen": [
                                ["address": .string(a.host), "family": .string(a.host.contains(":") ? "IPv6" : "IPv4"), "port": .int(Int64(a.port))]
                            ],
                        ]
                    }))
        }
    }
}

extension StatusRoutes {
    /// The status document: project, version, services, uptime, and the functions codebases
    /// (`functions.ready` is false while one is still installing, starting or discovering).
    static func statusBody(_ s: EmulatorServices) -> JSON {
        statusBody(s, uptime: WallClock().now().milliseconds - s.startedAt.milliseconds)
    }

    /// The status document's bytes, from `statusCache`: equal to `statusBody` serialized.
    static func cachedStatusBody(_ s: EmulatorServices) -> [UInt8] {
        // The versions are read before the state the body is built from: a change in between
        // is in the body and makes the next request rebuild it, never the other way round.
        let key = StatusBodyCache.Key(directory: s.directory.version, functions: s.functions.statusVersion)
        let uptime = WallClock().now().milliseconds - s.startedAt.milliseconds
        return s.statusCache.body(key: key, uptime: uptime) { statusBody(s, uptime: $0) }
    }

    /// The status document with `uptime` (milliseconds).
    static func statusBody(_ s: EmulatorServices, uptime: Int64) -> JSON {
        return [
            "project": .string(s.config.projectId), "version": .string(EmulatorVersion.current),
            "services": .object(s.directory.addresses.mapValues { ["host": .string($0.host), "port": .int(Int64($0.port))] }),
            "uptimeMs": .int(uptime),
            "functions": [
                "ready": .bool(s.functions.codebasesSettled),
                "codebases": .array(
                    s.functions.allCodebaseStatuses().map { c in
                        var o: UTF8Dictionary<JSON> = ["project": c["project"] ?? .null, "name": c["name"] ?? .null, "state": c["state"] ?? .null]
                        if let e = c["error"] { o["error"] = e }
                        return .object(o)
                    }),
            ],
        ]
    }
}

/// The product version printed by `--version` and the status route.
public enum EmulatorVersion {
    /// Semantic version of this build.
    public static let current = "0.1.0"
}
