import EmulatorCore

/// A route handler: decode, call one service function, encode. Errors are thrown and turned
/// into responses by the one error mapper in `Emulator`.
public typealias RouteHandler = @Sendable (HTTPRequest, RouteMatch) async throws -> HTTPResponse

/// Method + path template → handler. Built once at start-up, then only read (hence a value type).
///
/// Resolution picks the most specific matching template (literal segments win over patterns),
/// so routes of different services share one port without colliding.
public struct Router: Sendable {
    struct Route: Sendable {
        let method: String
        let template: PathTemplate
        let handler: RouteHandler
    }

    private var routes: [Route] = []

    /// Creates an empty router.
    public init() {}

    /// Registers `handler` for `method` (uppercase) on `template`.
    public mutating func add(_ method: String, _ template: String, _ handler: @escaping RouteHandler) {
        routes.append(Route(method: method.uppercased(), template: PathTemplate(template), handler: handler))
    }

    /// Registers a GET route.
    public mutating func get(_ template: String, _ handler: @escaping RouteHandler) { add("GET", template, handler) }
    /// Registers a POST route.
    public mutating func post(_ template: String, _ handler: @escaping RouteHandler) { add("POST", template, handler) }
    /// Registers a PUT route.
    public mutating func put(_ template: String, _ handler: @escaping RouteHandler) { add("PUT", template, handler) }
    /// Registers a PATCH route.
    public mutating func patch(_ template: String, _ handler: @escaping RouteHandler) { add("PATCH", template, handler) }
    /// Registers a DELETE route.
    public mutating func delete(_ template: String, _ handler: @escaping RouteHandler) { add("DELETE", template, handler) }

    /// The outcome of looking a request up.
    public enum Resolution: Sendable {
        /// A handler and what its template captured.
        case found(RouteHandler, RouteMatch)
        /// The path exists, but not for this method; lists the methods that would work.
        case methodNotAllowed([String])
        /// No template matches the path.
        case notFound
    }

    /// Every registered (method, template) pair, for listings and the OpenAPI document.
    public var table: [(method: String, template: String)] { routes.map { ($0.method, $0.template.description) } }

    /// Finds the most specific route for `method` and the raw `path`. HEAD falls back to GET and
    /// method `*` routes accept any method. When a more specific template matches the path under
    /// another method, the answer is 405 rather than a less specific route (so `POST
    /// /emulator/v1/status` is not handed to the catch-all functions route).
    public func resolve(method: String, path: String) -> Resolution {
        var p = Substring(path)
        if p.hasPrefix("/") { p = p.dropFirst() }
        let raw = p.isEmpty ? [] : p.split(separator: "/", omittingEmptySubsequences: false)
        let m = method.uppercased()
        var best: (Route, RouteMatch, [Int])?
        var bestOther: [Int]?
        var otherMethods: Set<String> = []
        for route in routes {
            guard let match = route.template.match(rawSegments: raw) else { continue }
            let score = route.template.specificity
            let methodOK = route.method == m || route.method == "*" || (m == "HEAD" && route.method == "GET")
            guard methodOK else {
                otherMethods.insert(route.method)
                if bestOther == nil || bestOther!.lexicographicallyPrecedes(score) { bestOther = score }
                continue
            }
            if let b = best, !b.2.lexicographicallyPrecedes(score) { continue }
            best = (route, match, score)
        }
        if let best {
            if let bestOther, best.2.lexicographicallyPrecedes(bestOther) {
                return .methodNotAllowed(otherMethods.sorted())
            }
            return .found(best.0.handler, best.1)
        }
        if !otherMethods.isEmpty { return .methodNotAllowed(otherMethods.sorted()) }
        return .notFound
    }
}
