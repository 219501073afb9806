import EmulatorCore

/// A callable invocation.
public struct CallableRequest: Sendable {
    /// Decoded `data`.
    public var data: JSON
    /// The verified caller, if the request carried an ID token.
    public var auth: AuthContext?
    /// `X-Firebase-AppCheck`, passed through.
    public var appCheckToken: String?
    /// The raw ID token (for functions that re-verify or forward it).
    public var rawToken: String?
    /// The request's header fields (backends that forward the request as it came use them).
    public var headers: [(String, String)]
    /// The request body as it came (already validated).
    public var rawBody: [UInt8]?

    /// Creates a request.
    public init(
        data: JSON, auth: AuthContext?, appCheckToken: String? = nil, rawToken: String? = nil, headers: [(String, String)] = [],
        rawBody: [UInt8]? = nil
    ) {
        self.data = data
        self.auth = auth
        self.appCheckToken = appCheckToken
        self.rawToken = rawToken
        self.headers = headers
        self.rawBody = rawBody
    }
}

/// A plain HTTP request for `onRequest` functions (path below the function's URL).
public struct FunctionHTTPRequest: Sendable {
    /// Method.
    public var method: String
    /// Path after `/{project}/{region}/{name}` ("/" when none), with the query string.
    public var path: String
    /// Header fields.
    public var headers: [(String, String)]
    /// Body.
    public var body: [UInt8]

    /// Creates a request.
    public init(method: String, path: String, headers: [(String, String)], body: [UInt8]) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
    }
}

/// An HTTP function's answer.
public struct FunctionHTTPResponse: Sendable {
    /// Status.
    public var status: Int
    /// Header fields.
    public var headers: [(String, String)]
    /// Body.
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// A background event (document change or auth user event), as delivered to functions.
public struct BackgroundEvent: Sendable {
    /// Unique id (from the project's id generator).
    public var id: String
    /// `document.created`, `document.updated`, `document.deleted`, `user.created`, `user.deleted`.
    public var type: String
    /// When it happened (project clock / commit time).
    public var time: Timestamp
    /// Document path or uid; events for one subject are delivered in order.
    public var subject: String
    /// Wildcard values of the matched pattern.
    public var params: [String: String]
    /// The document before (REST shape), or the user record for auth events.
    public var before: JSON?
    /// The document after (REST shape), or the message / task for Pub/Sub and task-queue events.
    public var after: JSON?
    /// Delivery attempt (1 = first), set by the queue for each delivery.
    public var attempt: Int = 1
    /// Who caused a document event, as Firestore's auth context names it (`app_user`,
    /// `service_account`, `unauthenticated`, `system`), and their id (uid, account email).
    public var principal: (type: String, id: String)?

    /// The JSON envelope workers receive.
    public var json: JSON {
        var o: UTF8Dictionary<JSON> = [
            "id": .string(id), "type": .string(type), "time": .string(time.rfc3339()), "subject": .string(subject),
            "params": .object(params.mapValues { .string($0) }),
        ]
        if let before { o["before"] = before }
        if let after { o["after"] = after }
        return .object(o)
    }
}

/// An in-process function body.
public enum FunctionHandler: Sendable {
    /// Returns the callable result or throws `HttpsError`.
    case callable(@Sendable (CallableRequest, FunctionContext) async throws -> JSON)
    /// Answers an HTTP request.
    case http(@Sendable (FunctionHTTPRequest, FunctionContext) async throws -> FunctionHTTPResponse)
    /// Handles a background event (throw to fail; retried when the function asks for retries).
    case event(@Sendable (BackgroundEvent, FunctionContext) async throws -> Void)
    /// A blocking function: gets the user record and event JSON, returns changes or throws.
    case blocking(@Sendable (JSON, FunctionContext) async throws -> JSON?)
}

/// One recorded invocation.
public struct InvocationRecord: Sendable {
    /// Invocation id.
    public var id: String
    /// Function name.
    public var function: String
    /// `callable`, `http`, `document.created`, `user.created`, `beforeCreate`, ...
    public var trigger: String
    /// Event id for background events.
    public var eventId: String?
    /// Attempt number (1 = first).
    public var attempt: Int
    /// Start time (project clock).
    public var start: Timestamp
    /// Duration in milliseconds (wall time).
    public var durationMs: Double
    /// `ok`, `error`, `retrying`, `gave-up`.
    public var outcome: String
    /// Error text, when failed.
    public var error: String?
    /// Lines the function logged.
    public var logs: [String]
    /// What the function was given (callable `data`, the background event, the blocking payload,
    /// an HTTP request line); kept for the newest `FunctionsHost.maxInputs` invocations only.
    public var input: JSON?
    /// The background event, for re-delivery (`FunctionsHost.redeliver`); same retention as `input`.
    public var event: BackgroundEvent?

    /// Listing shape.
    public var json: JSON {
        var o: UTF8Dictionary<JSON> = [
            "id": .string(id), "function": .string(function), "trigger": .string(trigger), "attempt": .int(Int64(attempt)),
            "startTime": .string(start.rfc3339()), "durationMs": .double(durationMs), "outcome": .string(outcome),
            "logs": .array(logs.map { .string($0) }),
        ]
        if let eventId { o["eventId"] = .string(eventId) }
        if let error { o["error"] = .string(error) }
        if event != nil { o["rerunnable"] = true }
        return .object(o)
    }
}
