import EmulatorCore

/// Where a function runs: in this process (closures) or in a worker process.
public protocol FunctionBackend: Sendable {
    /// Runs a callable.
    func callable(_ def: FunctionDefinition, _ req: CallableRequest, _ ctx: FunctionContext) async throws -> JSON
    /// Runs an HTTP function.
    func http(_ def: FunctionDefinition, _ req: FunctionHTTPRequest, _ ctx: FunctionContext) async throws -> FunctionHTTPResponse
    /// Runs a background function.
    func event(_ def: FunctionDefinition, _ ev: BackgroundEvent, _ ctx: FunctionContext) async throws
    /// Runs a blocking function; returns `{"userRecord": {...changes}}`-style changes or nil.
    func blocking(_ def: FunctionDefinition, _ payload: JSON, _ ctx: FunctionContext) async throws -> JSON?
    /// Gets ready to run `def` (starts its process, say) before its timeout starts counting: a
    /// start has its own limit, and a slow one must not time out the call it was started for.
    func prepare(_ def: FunctionDefinition) async throws
}

extension FunctionBackend {
    /// Nothing to get ready by default.
    public func prepare(_ def: FunctionDefinition) async throws {}
}

/// A closure registered from Swift.
struct InProcessBackend: FunctionBackend {
    let handler: FunctionHandler

    func callable(_ def: FunctionDefinition, _ req: CallableRequest, _ ctx: FunctionContext) async throws -> JSON {
        guard case .callable(let f) = handler else { throw HttpsError(.internal, "INTERNAL") }
        return try await f(req, ctx)
    }

    func http(_ def: FunctionDefinition, _ req: FunctionHTTPRequest, _ ctx: FunctionContext) async throws -> FunctionHTTPResponse {
        guard case .http(let f) = handler else { throw HttpsError(.internal, "INTERNAL") }
        return try await f(req, ctx)
    }

    func event(_ def: FunctionDefinition, _ ev: BackgroundEvent, _ ctx: FunctionContext) async throws {
        guard case .event(let f) = handler else { throw HttpsError(.internal, "INTERNAL") }
        try await f(ev, ctx)
    }

    func blocking(_ def: FunctionDefinition, _ payload: JSON, _ ctx: FunctionContext) async throws -> JSON? {
        guard case .blocking(let f) = handler else { throw HttpsError(.internal, "INTERNAL") }
        return try await f(payload, ctx)
    }
}

/// Runs `body` with a deadline; DEADLINE_EXCEEDED when it takes longer.
func withTimeout<T: Sendable>(_ seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(nanoseconds: max(1_000_000, MonotonicClock.nanoseconds(inSeconds: seconds)))
            throw HttpsError(.deadlineExceeded, "function timed out after \(seconds) s")
        }
        defer { group.cancelAll() }
        return try await group.next()!  // trap-ok: two tasks were added, so next() has a result
    }
}
