import EmulatorCore

/// One injected fault: which requests it matches, what it does, and how often it may fire.
public struct FaultRule: Sendable, Equatable {
    /// `firestore`, `auth`, `functions` or `storage`.
    public var service: String
    /// Operation name to match (`commit`, `signInWithPassword`, `get`, ...); nil = any.
    public var method: String?
    /// Glob over the request path (`*` within a segment, `**` across segments); nil = any.
    public var pathGlob: String?
    /// A functions trigger/function name (`onTaskWritten`); only for `functions`.
    public var function: String?
    /// The error to answer with; nil = only delay.
    public var error: EmulatorError?
    /// Delay before answering (or before running the request, when there is no error).
    public var delayMs: Int
    /// How many more times it may fire; nil = unlimited.
    public var remaining: Int?
    /// Fraction of matching calls that fire (0...1), drawn from the project's fault seed.
    public var probability: Double
    /// How often it fired.
    public var fired: Int = 0
    /// Stable id for listing/deletion.
    public var id: String

    /// Decodes `{"match":{service,method,path,function},"error":{status,message},"delayMs","times","probability"}`.
    public static func decode(_ body: UTF8Dictionary<JSON>, id: String) throws -> FaultRule {
        guard case .object(let match)? = body["match"] else { throw EmulatorError.invalidArgument("fault needs a 'match' object") }
        guard let service = match["service"]?.stringValue, ["firestore", "auth", "functions", "storage", "pubsub"].contains(service) else {
            throw EmulatorError.invalidArgument("match.service must be one of firestore, auth, functions, storage, pubsub")
        }
        let allowed: Set<String> = ["match", "error", "delayMs", "times", "probability"]
        if let bad = body.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw EmulatorError.invalidArgument("unknown fault field '\(bad)' (known: \(allowed.sorted().joined(separator: ", ")))")
        }
        var error: EmulatorError?
        if let e = body["error"], !e.isNull {
            guard let statusName = e["status"]?.stringValue, let code = ErrorCode(rawValue: statusName) else {
                throw EmulatorError.invalidArgument("error.status must be a canonical code such as ABORTED, UNAVAILABLE, PERMISSION_DENIED")
            }
            error = EmulatorError(code, e["message"]?.stringValue ?? "Injected fault: \(statusName).")
        }
        let delay = body["delayMs"]?.intValue ?? 0
        guard (0...60_000).contains(delay) else { throw EmulatorError.invalidArgument("delayMs must be between 0 and 60000") }
        var times: Int?
        if let t = body["times"], !t.isNull {
            guard let n = t.intValue, n > 0, n <= 1_000_000 else { throw EmulatorError.invalidArgument("times must be a positive integer") }
            times = Int(n)
        }
        let p = body["probability"]?.doubleValue ?? 1
        guard (0...1).contains(p) else { throw EmulatorError.invalidArgument("probability must be between 0 and 1") }
        guard error != nil || delay > 0 else { throw EmulatorError.invalidArgument("a fault needs an 'error', a 'delayMs', or both") }
        return FaultRule(
            service: service, method: match["method"]?.stringValue, pathGlob: match["path"]?.stringValue,
            function: match["function"]?.stringValue, error: error, delayMs: Int(delay), remaining: times,
            probability: p, id: id)
    }

    /// The listing shape.
    public var json: JSON {
        var m: UTF8Dictionary<JSON> = ["service": .string(service)]
        if let method { m["method"] = .string(method) }
        if let pathGlob { m["path"] = .string(pathGlob) }
        if let function { m["function"] = .string(function) }
        var o: UTF8Dictionary<JSON> = [
            "id": .string(id), "match": .object(m), "delayMs": .int(Int64(delayMs)),
            "probability": .double(probability), "fired": .int(Int64(fired)),
        ]
        if let error { o["error"] = ["status": .string(error.code.rawValue), "message": .string(error.message)] }
        o["remaining"] = remaining.map { .int(Int64($0)) } ?? .null
        return .object(o)
    }

    /// True when the rule applies to this request (ignoring probability and count).
    func matches(_ target: FaultTarget) -> Bool {
        guard target.service == service else { return false }
        if let method, method != target.method { return false }
        if let function, function != target.function { return false }
        if let pathGlob, !Glob.matches(pathGlob, target.path) { return false }
        return true
    }
}

/// What a request (or a function invocation) is, for fault matching.
public struct FaultTarget: Sendable, Equatable {
    /// `firestore`, `auth`, `functions` or `storage`.
    public var service: String
    /// The operation (`commit`, `get`, `signInWithPassword`, ...).
    public var method: String
    /// The resource path (document path, or request path).
    public var path: String
    /// Function name, for functions.
    public var function: String?

    /// Creates a target.
    public init(service: String, method: String, path: String, function: String? = nil) {
        self.service = service
        self.method = method
        self.path = path
        self.function = function
    }
}

/// Path globs: `*` matches within one segment, `**` matches any number of segments.
enum Glob {
    static func matches(_ pattern: String, _ path: String) -> Bool {
        let p = pattern.split(separator: "/", omittingEmptySubsequences: true)
        let s = path.split(separator: "/", omittingEmptySubsequences: true)
        return match(p[...], s[...])
    }

    private static func match(_ p: ArraySlice<Substring>, _ s: ArraySlice<Substring>) -> Bool {
        guard let first = p.first else { return s.isEmpty }
        if first == "**" {
            var rest = s
            while true {
                if match(p.dropFirst(), rest) { return true }
                guard !rest.isEmpty else { return false }
                rest = rest.dropFirst()
            }
        }
        guard let seg = s.first, segment(Array(first.utf8)[...], Array(seg.utf8)[...]) else { return false }
        return match(p.dropFirst(), s.dropFirst())
    }

    private static func segment(_ p: ArraySlice<UInt8>, _ s: ArraySlice<UInt8>) -> Bool {
        guard let c = p.first else { return s.isEmpty }
        if c == UInt8(ascii: "*") {
            var rest = s
            while true {
                if segment(p.dropFirst(), rest) { return true }
                guard !rest.isEmpty else { return false }
                rest = rest.dropFirst()
            }
        }
        guard let d = s.first, c == d else { return false }
        return segment(p.dropFirst(), s.dropFirst())
    }
}
