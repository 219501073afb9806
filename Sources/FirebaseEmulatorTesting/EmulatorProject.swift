import Foundation

/// One project of the emulator, as a test uses it: its id and API key, and every control a test
/// needs (reset, seed, clock, faults, snapshots, idle wait), users and tokens, codes, the rules
/// evaluation log, function invocations, and Firestore documents over REST. A value: copies
/// talk to the same project.
///
/// Projects are isolated namespaces in the emulator (users, documents, rules, clock, seed,
/// faults), and creating one costs a single request, so each test can have its own.
public struct EmulatorProject: Sendable, Hashable, CustomStringConvertible {
    /// The project id (`projects/{id}` in every API).
    public let id: String
    /// The API key registered for it (client Auth calls select the project by key).
    public let apiKey: String
    /// The emulator it lives in.
    public let emulator: FirebaseEmulator

    /// The project a Swift Testing trait (`.emulatorProject`) or `EmulatorTestCase` made for the
    /// running test; nil outside one.
    @TaskLocal public static var current: EmulatorProject?

    /// A handle (nothing is sent); see `FirebaseEmulator.createProject` and `project(_:)`.
    public init(id: String, apiKey: String, emulator: FirebaseEmulator) {
        self.id = id
        self.apiKey = apiKey
        self.emulator = emulator
    }

    /// The id and where it lives.
    public var description: String { "project \(id) at \(emulator.transport.endpoint)" }

    /// Same id and key.
    public static func == (a: EmulatorProject, b: EmulatorProject) -> Bool { a.id == b.id && a.apiKey == b.apiKey }
    /// Hashes the id.
    public func hash(into h: inout Hasher) { h.combine(id) }

    /// `/emulator/v1/projects/{id}` + `suffix`.
    func admin(_ suffix: String) -> String { "/emulator/v1/projects/\(id)\(suffix)" }

    // MARK: Data

    /// Clears the project's data in every service (documents, users, codes, queued events,
    /// function logs, the rules log); keeps rules, config, clock, seed and faults.
    public func reset() async throws(FirebaseEmulatorError) {
        try await emulator.json("POST", admin(":reset"), .object([:]))
    }

    /// Seeds generated ids, uids, codes and tokens (`nil`: system randomness).
    public func setSeed(_ seed: UInt64?) async throws(FirebaseEmulatorError) {
        try await emulator.json("PUT", admin("/seed"), ["seed": seed.map { .int(Int64(clamping: $0)) } ?? .null])
    }

    /// Saves the project's data in memory under `name` (1-100 letters, digits, `.`, `_`, `-`).
    public func saveSnapshot(_ name: String) async throws(FirebaseEmulatorError) {
        try await emulator.json("POST", admin("/snapshots"), ["name": .string(name)])
    }

    /// Puts a saved snapshot back (a pointer swap).
    public func restoreSnapshot(_ name: String) async throws(FirebaseEmulatorError) {
        try await emulator.json("POST", admin("/snapshots/\(name):restore"), .object([:]))
    }

    /// The saved snapshots' names.
    public func snapshots() async throws(FirebaseEmulatorError) -> [String] {
        (try await emulator.json("GET", admin("/snapshots"))["snapshots"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
    }

    /// Deletes a saved snapshot.
    public func deleteSnapshot(_ name: String) async throws(FirebaseEmulatorError) {
        try await emulator.json("DELETE", admin("/snapshots/\(name)"))
    }

    // MARK: Clock

    /// The project's time (everything time-dependent in the project reads it).
    public func now() async throws(FirebaseEmulatorError) -> Date {
        try Self.date(try await emulator.json("GET", admin("/clock")))
    }

    /// Stops the project's clock at `date` (default: now) and returns the time.
    @discardableResult
    public func freezeClock(at date: Date? = nil) async throws(FirebaseEmulatorError) -> Date {
        var body: [String: JSONValue] = ["mode": "frozen"]
        if let date { body["time"] = .string(Self.rfc3339(date)) }
        return try Self.date(try await emulator.json("PUT", admin("/clock"), .object(body)))
    }

    /// Moves the clock forward by `seconds` (frozen or not) and returns the new time.
    @discardableResult
    public func advanceClock(by seconds: Double) async throws(FirebaseEmulatorError) -> Date {
        try Self.date(try await emulator.json("POST", admin("/clock:advance"), ["seconds": .double(seconds)]))
    }

    /// Back to the system time with no offset.
    public func useSystemClock() async throws(FirebaseEmulatorError) {
        try await emulator.json("PUT", admin("/clock"), ["mode": "system"])
    }

    static func date(_ clock: JSONValue) throws(FirebaseEmulatorError) -> Date {
        guard let text = clock["time"]?.stringValue, let d = parseRFC3339(text) else { throw .decoding("clock without a valid 'time': \(clock)") }
        return d
    }

    /// RFC 3339 with fractional seconds in UTC, as the emulator reads and writes times.
    public static func rfc3339(_ date: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: date)
    }

    /// Parses RFC 3339 text with or without fractional seconds.
    public static func parseRFC3339(_ text: String) -> Date? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let d = f.date(from: text) { return d }
        f.formatOptions = [.withInternetDateTime]
        return f.date(from: text)
    }

    // MARK: Faults

    /// Adds a fault rule and returns its id.
    @discardableResult
    public func addFault(_ fault: EmulatorFault) async throws(FirebaseEmulatorError) -> String {
        let r = try await emulator.json("POST", admin("/faults"), fault.json)
        guard let id = r["id"]?.stringValue ?? r["id"]?.intValue.map({ String($0) }) else { throw .decoding("fault without 'id': \(r)") }
        return id
    }

    /// Every fault rule with `fired` and `remaining`.
    public func faults() async throws(FirebaseEmulatorError) -> [JSONValue] {
        try await emulator.json("GET", admin("/faults"))["faults"]?.arrayValue ?? []
    }

    /// Removes every fault rule.
    public func clearFaults() async throws(FirebaseEmulatorError) {
        try await emulator.json("DELETE", admin("/faults"))
    }

    // MARK: Functions

    /// Returns once no function event of the project is queued or running; throws `.timeout`
    /// naming the pending events otherwise.
    public func waitIdle(timeout: Double = 10) async throws(FirebaseEmulatorError) {
        let ms = Int(max(0, min(timeout, 600)) * 1000)
        let r = try await emulator.send(EmulatorRequest(method: "GET", path: admin(":idle?timeoutMs=\(ms)")))
        if r.status == 200 { return }
        let e = FirebaseEmulatorError.from(status: r.status, body: r.body)
        if r.status == 408 { throw .timeout(e.message) }
        throw e
    }

    /// Function invocations, newest first.
    public func invocations() async throws(FirebaseEmulatorError) -> [FunctionInvocation] {
        (try await emulator.json("GET", admin("/functions/logs"))["invocations"]?.arrayValue ?? []).map(FunctionInvocation.init)
    }

    /// Calls a callable function as the client SDKs do (`{"data": ...}` → `result`), as `user`
    /// when given. A function error throws `.http` with its status and message.
    public func callFunction(
        _ name: String, data: JSONValue = .null, as user: TestUser? = nil,
        region: String = "us-central1"
    ) async throws(FirebaseEmulatorError) -> JSONValue {
        var headers: [(String, String)] = []
        if let user { headers.append(("Authorization", "Bearer \(user.idToken)")) }
        return try await emulator.json("POST", "/\(id)/\(region)/\(name)", ["data": data], headers: headers)["result"] ?? .null
    }

    // MARK: Rules

    /// Replaces the project's Security Rules (throws `.http` 400 with the diagnostics when they
    /// do not compile; the previous rules stay).
    public func setRules(_ source: String, fileName: String = "firestore.rules") async throws(FirebaseEmulatorError) {
        try await emulator.json(
            "PUT", admin(":securityRules"),
            ["rules": ["files": [["name": .string(fileName), "content": .string(source)]]]])
    }

    /// The rules evaluation log, newest first, optionally only one `outcome` (`allow`, `deny`,
    /// `error`, `admin`).
    public func rulesEvaluations(outcome: String? = nil) async throws(FirebaseEmulatorError) -> [RulesEvaluation] {
        let query = outcome.map { "?outcome=\($0)&pageSize=1000" } ?? "?pageSize=1000"
        return (try await emulator.json("GET", admin("/rulesEvaluations\(query)"))["evaluations"]?.arrayValue ?? []).map(RulesEvaluation.init)
    }

    /// Judges a hypothetical request without touching data (`{"allowed", "explanation"}`).
    public func evaluateRules(
        method: String, path: String, uid: String? = nil, token: [String: JSONValue] = [:],
        resource: [String: JSONValue]? = nil, requestResource: [String: JSONValue]? = nil
    ) async throws(FirebaseEmulatorError) -> JSONValue {
        var body: [String: JSONValue] = ["method": .string(method), "path": .string(path)]
        body["auth"] = uid.map { ["uid": .string($0), "token": .object(token)] } ?? .null
        if let resource { body["resource"] = .object(resource) }
        if let requestResource { body["requestResource"] = .object(requestResource) }
        return try await emulator.json("POST", admin(":evaluateRules"), .object(body))
    }
}

/// A fault rule (`POST /emulator/v1/projects/{p}/faults`): which calls it matches and what it does.
public struct EmulatorFault: Sendable {
    /// The JSON body.
    public var json: JSONValue

    /// Matches `service` (`firestore`, `auth`, `functions`) and optionally an operation
    /// (`commit`, `get`, `signInWithPassword`, `call`, ...), a path glob and a function; fails
    /// with canonical `status` (e.g. `UNAVAILABLE`) and/or waits `delayMs`.
    public init(
        service: String, method: String? = nil, path: String? = nil, function: String? = nil,
        status: String? = nil, message: String? = nil, delayMs: Int? = nil, times: Int? = nil, probability: Double? = nil
    ) {
        var match: [String: JSONValue] = ["service": .string(service)]
        if let method { match["method"] = .string(method) }
        if let path { match["path"] = .string(path) }
        if let function { match["function"] = .string(function) }
        var body: [String: JSONValue] = ["match": .object(match)]
        if let status {
            var error: [String: JSONValue] = ["status": .string(status)]
            if let message { error["message"] = .string(message) }
            body["error"] = .object(error)
        }
        if let delayMs { body["delayMs"] = .int(Int64(delayMs)) }
        if let times { body["times"] = .int(Int64(times)) }
        if let probability { body["probability"] = .double(probability) }
        json = .object(body)
    }
}

/// One entry of the rules evaluation log.
public struct RulesEvaluation: Sendable {
    /// The whole entry as the API returns it.
    public let raw: JSONValue
    /// Creates it from the API's JSON.
    public init(_ raw: JSONValue) { self.raw = raw }
    /// `get`, `list`, `create`, `update` or `delete`.
    public var method: String { raw["method"]?.stringValue ?? "" }
    /// The document path (`tasks/t1`).
    public var path: String { raw["path"]?.stringValue ?? "" }
    /// `allow`, `deny`, `error` or `admin`.
    public var outcome: String { raw["outcome"]?.stringValue ?? "" }
    /// Why, with the deciding expression for a denial.
    public var explanation: String { raw["explanation"]?.stringValue ?? "" }
    /// The caller's uid, when signed in.
    public var uid: String? { raw["caller"]?["uid"]?.stringValue }
}

/// One function invocation from the project's log.
public struct FunctionInvocation: Sendable {
    /// The whole entry as the API returns it.
    public let raw: JSONValue
    /// Creates it from the API's JSON.
    public init(_ raw: JSONValue) { self.raw = raw }
    /// The function's name.
    public var function: String { raw["function"]?.stringValue ?? "" }
    /// `callable`, `https`, `document`, `auth`, `blocking`, ...
    public var trigger: String { raw["trigger"]?.stringValue ?? "" }
    /// `success`, `error`, ...
    public var outcome: String { raw["outcome"]?.stringValue ?? "" }
    /// The error message, when it failed.
    public var error: String? { raw["error"]?.stringValue }
    /// The log lines the function wrote.
    public var logs: [String] { (raw["logs"]?.arrayValue ?? []).compactMap { $0.stringValue ?? $0["message"]?.stringValue } }
}
