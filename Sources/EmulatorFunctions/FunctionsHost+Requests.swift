import EmulatorCore

extension FunctionsHost {
    /// The function registered under `name` with `region`, for the URL `/{project}/{region}/{name}`.
    public func resolve(project: String, region: String, name: String) -> FunctionDefinition? {
        guard let r = lookup(project, name), r.definition.regions.contains(region) else { return nil }
        return r.definition
    }

    /// Runs a callable with the exact callable protocol. `auth` is the already-verified caller,
    /// or an error when the Authorization header was invalid (→ UNAUTHENTICATED).
    public func call(
        project: String, name: String, method: String, contentType: String?, body: [UInt8],
        auth: Result<AuthContext?, HttpsError>, rawToken: String?, appCheck: String?,
        headers: [(String, String)] = []
    ) async -> (status: Int, body: JSON) {
        guard let reg = lookup(project, name), reg.definition.trigger == .callable else {
            return CallableProtocol.failure(HttpsError(.notFound, "Function \(name) does not exist in project \(project)."))
        }
        do {
            let data = try CallableProtocol.decodeRequest(method: method, contentType: contentType, body: body)
            let caller = try auth.get()
            let req = CallableRequest(data: data, auth: caller, appCheckToken: appCheck, rawToken: rawToken, headers: headers, rawBody: body)
            let result = try await invoke(project, reg, trigger: "callable", eventId: nil, attempt: 1, input: data) { ctx in
                try await reg.backend.callable(reg.definition, req, ctx)
            }
            return CallableProtocol.success(result)
        } catch {
            return CallableProtocol.failure(error)
        }
    }

    /// Runs an HTTP function; a thrown error is a 500 with its message.
    public func http(project: String, name: String, request: FunctionHTTPRequest) async -> FunctionHTTPResponse {
        guard let reg = lookup(project, name), reg.definition.trigger == .http else {
            return FunctionHTTPResponse(status: 404, body: Array("Function \(name) does not exist in project \(project).".utf8))
        }
        do {
            // A 5xx answer is the function failing (a framework's 500 page after an exception),
            // recorded as an error as production's logs count it; the answer still goes back.
            return try await invoke(
                project, reg, trigger: "http", eventId: nil, attempt: 1,
                input: .string("\(request.method) \(request.path)"), failure: Self.httpFailure
            ) { ctx in
                try await reg.backend.http(reg.definition, request, ctx)
            }
        } catch {
            let msg = (error as? HttpsError)?.message ?? "Internal error in function \(name)."
            return FunctionHTTPResponse(status: 500, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array(msg.utf8))
        }
    }

    /// The error an HTTP function's answer reports: its status and the start of its body for a 5xx.
    @Sendable static func httpFailure(_ r: FunctionHTTPResponse) -> String? {
        guard r.status >= 500 else { return nil }
        let text = String(decoding: r.body.prefix(200), as: UTF8.self).trimmingScalars { $0.properties.isWhitespace }
        return "HTTP \(r.status)" + (text.isEmpty ? "" : ": \(text)")
    }

    /// Runs the project's blocking function for `event` (`beforeCreate`/`beforeSignIn`), if any.
    /// Returns its changes; throws an `HttpsError` when it rejects or fails.
    public func runBlocking(project: String, event: String, payload: JSON) async throws -> JSON? {
        let reg = registered(project).first { $0.definition.trigger == .blocking(event: event) }
        guard let reg else { return nil }
        let eventId = environments.environment(for: project).ids.string(length: 20, alphabet: IDGenerator.alphanumerics)
        var withId = payload.objectValue ?? [:]
        withId["eventId"] = withId["eventId"] ?? .string(eventId)
        return try await invoke(project, reg, trigger: event, eventId: eventId, attempt: 1, input: payload) { [withId] ctx in
            try await reg.backend.blocking(reg.definition, .object(withId), ctx)
        }
    }

}
