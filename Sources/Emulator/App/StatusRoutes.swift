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
        r.get("/emulator/v1/status") { _, _ in
            let uptime = WallClock().now().milliseconds - s.startedAt.milliseconds
            return .json([
                "project": .string(s.config.projectId), "version": .string(EmulatorVersion.current),
                "services": .object(s.directory.addresses.mapValues { ["host": .string($0.host), "port": .int(Int64($0.port))] }),
                "uptimeMs": .int(uptime),
            ])
        }
        r.get("/emulators") { _, _ in
            .json(.object(s.directory.addresses.mapValues { a in
                ["name": .string(a.name), "host": .string(a.host), "port": .int(Int64(a.port)),
                 "listen": [["address": .string(a.host), "family": .string(a.host.contains(":") ? "IPv6" : "IPv4"), "port": .int(Int64(a.port))]]]
            }))
        }
    }
}

/// The product version printed by `--version` and the status route.
public enum EmulatorVersion {
    /// Semantic version of this build.
    public static let current = "0.1.0"
}
