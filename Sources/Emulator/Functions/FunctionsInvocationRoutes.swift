import EmulatorCore
import EmulatorFunctions
import EmulatorHTTP

/// One invocation with its input (`GET /emulator/v1/projects/{p}/functions/invocations/{id}`) and
/// re-running a recorded background event (`POST .../invocations/{id}:rerun`).
enum FunctionsInvocationRoutes {
    static func register(_ r: inout Router, _ s: EmulatorServices) {
        let path = "/emulator/v1/projects/{project}/functions/invocations/{id}"
        r.get(path) { _, m in
            let rec = try record(m, s)
            var o = rec.json.objectValue ?? [:]
            o["input"] = rec.input ?? .null
            return .json(.object(o))
        }
        r.post(path + ":rerun") { _, m in
            let rec = try record(m, s)
            guard let event = rec.event else {
                throw EmulatorError.failedPrecondition(
                    rec.input == nil && rec.trigger.contains(".")
                        ? "Invocation '\(rec.id)' is too old to re-run: events are kept for the newest 200 invocations."
                        : "Invocation '\(rec.id)' was a \(rec.trigger) call, not a background event; only events can be re-run.")
            }
            guard s.functions.redeliver(project: m["project"], function: rec.function, event: event) else {
                throw EmulatorError.failedPrecondition("Function '\(rec.function)' is no longer registered in project '\(m["project"])'.")
            }
            return .json(["queued": true, "function": .string(rec.function), "eventId": .string(event.id)])
        }
    }

    static func record(_ m: RouteMatch, _ s: EmulatorServices) throws -> InvocationRecord {
        try s.projects.requireKnown(m["project"])
        guard let rec = s.functions.invocation(project: m["project"], id: m["id"]) else {
            throw EmulatorError.notFound("No invocation '\(m["id"].prefix(40))' in project '\(m["project"])' (the log keeps the last 1000).")
        }
        return rec
    }
}
