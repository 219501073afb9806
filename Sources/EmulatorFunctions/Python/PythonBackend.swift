import EmulatorCore

/// A function of a Python codebase: each kind of invocation becomes the HTTP request the
/// platform would send to the function's functions-framework process, and the answer becomes
/// the host's result (callable envelope, HTTP response, event outcome, blocking changes).
struct PythonBackend: FunctionBackend {
    let codebase: PythonCodebase
    let endpoint: ManifestEndpoint

    /// Starts the function's process if it has none, outside the function's timeout.
    func prepare(_ def: FunctionDefinition) async throws {
        _ = try await codebase.ensureRunning(endpoint.definition.name)
    }

    /// Forwards the verified request as it came; reads back the result or the error envelope.
    func callable(_ def: FunctionDefinition, _ req: CallableRequest, _ ctx: FunctionContext) async throws -> JSON {
        // The host has verified the token and the body; the SDK sees the request as it came.
        var headers = req.headers
        if !headers.contains(where: { $0.0.lowercased() == "content-type" }) { headers.append(("Content-Type", "application/json")) }
        let body = req.rawBody ?? JSON.object(["data": req.data]).serializedBytes()
        let r = try await codebase.forward(endpoint, method: "POST", path: "/", headers: headers, body: body, ctx: ctx)
        let answer = try? JSON.parse(r.body)
        if r.status == 200, let result = answer?["result"] { return result }
        throw Self.error(from: answer, status: r.status)
    }

    /// Forwards the request; returns the answer without hop-by-hop headers.
    func http(_ def: FunctionDefinition, _ req: FunctionHTTPRequest, _ ctx: FunctionContext) async throws -> FunctionHTTPResponse {
        var r = try await codebase.forward(endpoint, method: req.method, path: req.path, headers: req.headers, body: req.body, ctx: ctx)
        r.headers = r.headers.filter { !PythonCodebase.hopByHop.contains($0.0.lowercased()) }
        return r
    }

    /// Sends the event the way its platform service would; a non-2xx answer is a failure (retried when asked).
    func event(_ def: FunctionDefinition, _ ev: BackgroundEvent, _ ctx: FunctionContext) async throws {
        let request: PlatformRequest
        switch def.trigger {
        case .document:
            guard let encoder = codebase.documentEncoder else {
                throw HttpsError(.unimplemented, "Firestore triggers of Python codebases need the protobuf codec, which this build lacks")
            }
            let data = try encoder.encode(
                value: ev.after, oldValue: ev.before,
                updateMask: ev.before != nil && ev.after != nil ? PlatformRequest.changedFields(before: ev.before, after: ev.after) : [])
            request = .firestore(
                project: ctx.projectId, location: def.region, eventType: endpoint.eventType ?? "", event: ev, data: data,
                authType: ev.principal?.type ?? "unknown", authId: ev.principal?.id)
        case .pubsub(let topic):
            request = .pubsub(project: ctx.projectId, topic: topic, subscription: "eventarc-\(def.region)-\(def.name)", event: ev)
        case .storage(let bucket, let kind):
            request = .storage(bucket: bucket, event: kind, ev)
        case .scheduled:
            request = .scheduled(name: def.name, region: def.region, scheduleTime: ev.time)
        case .taskQueue:
            request = .task(project: ctx.projectId, region: def.region, event: ev)
        default:
            throw HttpsError(.unimplemented, "\(def.trigger.summary) events are not delivered to Python functions")
        }
        let r = try await codebase.forward(
            endpoint, method: request.method, path: request.path, headers: request.headers.sorted { $0.key < $1.key },
            body: request.body, ctx: ctx)
        guard (200..<300).contains(r.status) else {
            let text = String(decoding: r.body.prefix(500), as: UTF8.self)
            throw HttpsError(.internal, "function answered \(r.status)" + (text.isEmpty ? "" : ": \(text)"))
        }
    }

    /// Sends the unsigned JWT; returns the masked changes, or throws the function's error.
    func blocking(_ def: FunctionDefinition, _ payload: JSON, _ ctx: FunctionContext) async throws -> JSON? {
        let event = payload["eventType"]?.stringValue ?? ""
        let claims = BlockingPayload.claims(
            project: ctx.projectId, event: event, signInMethod: payload["signInMethod"]?.stringValue ?? "password",
            user: payload["user"] ?? [:], eventId: payload["eventId"]?.stringValue ?? "", now: ctx.clock.now(),
            audience: "https://\(def.region)-\(ctx.projectId).cloudfunctions.net/\(def.name)",
            secondFactor: payload["signInSecondFactor"]?.stringValue, credential: payload["credential"],
            locale: payload["locale"]?.stringValue ?? "en", forward: endpoint.forwardedCredentials)
        let r = try await codebase.forward(
            endpoint, method: "POST", path: "/", headers: [("Content-Type", "application/json")],
            body: BlockingPayload.body(jwt: BlockingPayload.unsignedJWT(claims)), ctx: ctx)
        let answer = try? JSON.parse(r.body)
        guard r.status == 200, let answer else { throw Self.error(from: answer, status: r.status) }
        return try BlockingPayload.changes(fromResponse: answer)
    }

    /// The callable error envelope's code and message (the HTTP status when there is no envelope).
    static func error(from answer: JSON?, status: Int) -> HttpsError {
        if case .object(let e)? = answer?["error"] {
            let code =
                e["status"]?.stringValue.flatMap(ErrorCode.init(rawValue:)) ?? ErrorCode.allCases.first { $0.httpStatus == status } ?? .internal
            return HttpsError(code, e["message"]?.stringValue ?? code.rawValue, details: e["details"])
        }
        return HttpsError(.internal, "INTERNAL")
    }
}
