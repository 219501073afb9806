import EmulatorCore

/// Sends HTTP requests to worker processes on loopback (implemented by the wiring layer with the
/// project's HTTP client, so this module does not depend on it).
public protocol WorkerTransport: Sendable {
    /// Sends one request to `127.0.0.1:port` and returns the whole response.
    func send(port: Int, method: String, path: String, headers: [(String, String)], body: [UInt8], timeout: Double) async throws
        -> FunctionHTTPResponse
    /// Drops whatever is kept open to a worker that exited.
    func forget(port: Int)
}

extension WorkerTransport {
    /// Nothing kept open by default.
    public func forget(port: Int) {}
}

/// A function served by a worker process (protocol in docs/functions.md).
struct WorkerBackend: FunctionBackend {
    let codebase: String
    let port: Int
    let transport: any WorkerTransport

    func post(_ def: FunctionDefinition, _ envelope: JSON, _ ctx: FunctionContext) async throws -> JSON {
        let r: FunctionHTTPResponse
        do {
            r = try await transport.send(
                port: port, method: "POST", path: "/__/invoke/\(def.name)",
                headers: [("Content-Type", "application/json")], body: envelope.serializedBytes(),
                timeout: def.timeoutSeconds)
        } catch let e as HttpsError {
            throw e
        } catch {
            throw HttpsError(.unavailable, "worker '\(codebase)' is not reachable: \(error)")
        }
        guard let body = try? JSON.parse(r.body) else {
            throw HttpsError(.internal, "worker '\(codebase)' answered \(r.status) without JSON")
        }
        // Lines the function logged come back with the answer (`"logs": [...]`, optional).
        if case .array(let lines)? = body["logs"] { for l in lines.prefix(1000) { ctx.log(l.stringValue ?? l.serialized()) } }
        if let e = body["error"], case .object(let o) = e {
            let code = o["status"]?.stringValue.flatMap(ErrorCode.init(rawValue:)) ?? .internal
            throw HttpsError(code, o["message"]?.stringValue ?? code.rawValue, details: o["details"])
        }
        return body["result"] ?? .null
    }

    func envelope(_ kind: String, _ ctx: FunctionContext, _ extra: UTF8Dictionary<JSON>) -> JSON {
        var o = extra
        o["kind"] = .string(kind)
        o["project"] = .string(ctx.projectId)
        o["time"] = .string(ctx.clock.now().rfc3339())
        return .object(o)
    }

    func callable(_ def: FunctionDefinition, _ req: CallableRequest, _ ctx: FunctionContext) async throws -> JSON {
        var extra: UTF8Dictionary<JSON> = ["data": req.data]
        if let a = req.auth { extra["auth"] = ["uid": .string(a.uid), "token": .object(a.token)] }
        if let t = req.rawToken { extra["rawToken"] = .string(t) }
        if let c = req.appCheckToken { extra["appCheck"] = .string(c) }
        return try await post(def, envelope("callable", ctx, extra), ctx)
    }

    func event(_ def: FunctionDefinition, _ ev: BackgroundEvent, _ ctx: FunctionContext) async throws {
        _ = try await post(def, envelope("event", ctx, ["event": ev.json]), ctx)
    }

    func blocking(_ def: FunctionDefinition, _ payload: JSON, _ ctx: FunctionContext) async throws -> JSON? {
        let r = try await post(def, envelope("blocking", ctx, ["event": payload]), ctx)
        return r.isNull ? nil : r
    }

    func http(_ def: FunctionDefinition, _ req: FunctionHTTPRequest, _ ctx: FunctionContext) async throws -> FunctionHTTPResponse {
        do {
            return try await transport.send(
                port: port, method: req.method, path: "/__/http/\(def.name)" + req.path, headers: req.headers,
                body: req.body, timeout: def.timeoutSeconds)
        } catch {
            throw HttpsError(.unavailable, "worker '\(codebase)' is not reachable: \(error)")
        }
    }
}
